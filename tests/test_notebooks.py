"""Notebooks run by a real Jupyter kernel (nbclient + ipykernel), every kernel defined in a cell.

The example notebook (examples/cuda_mode_lecture_1.ipynb) runs as a reader would run it, and a notebook built
here checks what a cell kernel must give: its stages, its lines mapped back to the cell, diffs, sweeps and the
HTML display. Outputs are read back from the executed notebook, not only "it ran".
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "cuda_mode_lecture_1.ipynb"


def _run(nb, cwd: Path, timeout: int = 600):
    # the running interpreter's own kernel (ipykernel's built-in python3 spec uses sys.executable)
    NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return nb


def _text(cell) -> str:
    """Everything a cell printed or returned as text."""
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            out.append(o.get("text", ""))
        elif "data" in o:
            out.append(o["data"].get("text/plain", ""))
    return "".join(out)


def _html(cell) -> str:
    return "".join(o["data"].get("text/html", "") for o in cell.get("outputs", []) if "data" in o)


def _errors(nb) -> list[str]:
    return [
        f"{o.get('ename')}: {o.get('evalue')}"
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]


@pytest.fixture(scope="module")
def lecture():
    return _run(nbformat.read(EXAMPLE, as_version=4), EXAMPLE.parent)


def _cell(nb, contains: str):
    return next(c for c in nb.cells if c.cell_type == "code" and contains in c.source)


def test_the_lecture_notebook_runs_and_shows_each_stage(lecture):
    assert _errors(lecture) == []
    triton_ptx = _text(_cell(lecture, 'ptx = v1024.listings["ptx"]'))
    assert "lines of PTX" in triton_ptx and "ld.global" in triton_ptx and "st.global" in triton_ptx
    cuda_ptx = _text(_cell(lecture, "cuda_square = irscope.capture"))
    assert "<Variant square_matrix_kernel" in cuda_ptx and "ld.global" in cuda_ptx and "st.global" in cuda_ptx
    numba_ptx = _text(_cell(lecture, "numba_variant = irscope.capture"))
    if importlib.util.find_spec("numba") is not None:  # CI installs it; elsewhere the cell says how to
        assert "<Variant numba_square" in numba_ptx and "ld.f32" in numba_ptx and "st.f32" in numba_ptx
        assert "generic loads are not vectorised" in numba_ptx
    else:
        assert "pip install irscope[numba]" in numba_ptx
    diff = _text(_cell(lecture, "d = irscope.diff(v128, v1024)"))
    removed, added = (int(w) for w in diff.split()[0:4:3])
    assert removed + added > 0
    swept = _text(_cell(lecture, "session = irscope.sweep("))
    assert re.match(r"\d+ variants in ", swept) and int(swept.split()[0]) >= 10  # more where the cache had some
    assert "lines of PTX" in _text(_cell(lecture, "inductor_sessions = irscope.open"))
    timings = _text(_cell(lecture, "if GPU:"))
    assert "runtimes skipped" in timings or timings.count(" us ok") == 4


def test_the_lecture_notebook_displays_variants_diffs_sessions_and_findings_as_html(lecture):
    for contains in (
        'v1024 = irscope.capture(square, {"BLOCK_SIZE": 1024}',
        "d = irscope.diff(v128, v1024)",
        "notes = irscope.annotate(v1024)",
        "session = irscope.sweep(",
    ):
        html = _html(_cell(lecture, contains))
        assert html.startswith("<iframe") and "srcdoc=" in html, contains
        assert len(html) < 3_000_000


CELL_KERNELS = """
import irscope
import triton
import triton.language as tl


@triton.jit
def cell_axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=8)],
                 key=["n"])
@triton.jit
def cell_tuned_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)
"""

CELL_CHECKS = """
import json
from irscope.ir.sourcemap import SourceMap

SIG = "*fp32:16, *fp32:16, *fp32:16, i32, fp32"
small = irscope.capture(cell_axpy, {"BLOCK": 128}, signature=SIG, arch="sm_90")
large = irscope.capture(cell_axpy, {"BLOCK": 1024}, signature=SIG, arch="sm_90")
smap = SourceMap(large)
cell = large.listings["source"].splitlines()
load_line = next(i + 1 for i, text in enumerate(cell) if "x = tl.load" in text)
ptx_lines = smap.lines_for("ptx", load_line)
ptx = large.listings["ptx"].splitlines()
d = irscope.diff(small, large)
tuned = irscope.sweep(cell_tuned_copy, signature="*fp32:16, *fp32:16, i32", arch="sm_90")
print(json.dumps({
    "entry": ".entry cell_axpy" in large.listings["ptx"],
    "load_line_text": cell[load_line - 1].strip(),
    "load_ptx": sorted({ptx[i].strip() for i in ptx_lines if "ld.global" in ptx[i]}),
    "back": sorted({smap.source_line("ptx", i) for i in ptx_lines}),
    "load_line": load_line,
    "removed_added": [len(d.removed), len(d.added)],
    "tuned": sorted(v.config.values()["BLOCK"] for v in tuned),
    "repr": repr(large),
}))
"""


def test_kernels_defined_in_cells_are_captured_mapped_to_their_cell_and_diffed(tmp_path):
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(CELL_KERNELS),
            nbformat.v4.new_code_cell(CELL_CHECKS),
            nbformat.v4.new_code_cell("large"),
            nbformat.v4.new_code_cell("d"),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
    )
    _run(nb, tmp_path)
    assert _errors(nb) == []
    facts = json.loads(_text(nb.cells[1]).strip().splitlines()[-1])
    assert facts["entry"]
    assert facts["load_line_text"] == "x = tl.load(x_ptr + offsets, mask=mask)"
    assert facts["load_ptx"]  # the cell's load line became PTX loads
    assert facts["back"] == [facts["load_line"]]  # every PTX line of that load maps back to the cell's line
    assert sum(facts["removed_added"]) > 0
    assert facts["tuned"] == [256, 1024]
    assert len(facts["repr"]) < 300 and "cell_axpy" in facts["repr"]
    for cell in nb.cells[2:]:
        assert _html(cell).startswith("<iframe")
