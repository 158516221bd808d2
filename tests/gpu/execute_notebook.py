"""Run a notebook in a real Jupyter kernel on this machine and write it back with its outputs.

``python tests/gpu/execute_notebook.py examples/cuda_mode_lecture_1.ipynb OUT.ipynb``: on a GPU machine the
lecture notebook's last section times every variant; its printed outputs are echoed here for the record.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def main(source: str, out: str) -> int:
    path = Path(source)
    nb = nbformat.read(path, as_version=4)
    started = time.perf_counter()
    try:
        NotebookClient(
            nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
        ).execute()
    finally:
        nbformat.write(nb, out)
    print(f"executed {path} in {time.perf_counter() - started:.1f} s")
    failed = 0
    for n, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                print(f"[{n}] {output['text'].rstrip()}")
            elif output.get("output_type") == "error":
                failed += 1
                print(f"[{n}] {output['ename']}: {output['evalue']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
