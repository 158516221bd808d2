"""Write samples/sessions/square_kernel: a small session the TUI snapshot tests open.

Six square_kernel variants compiled for sm_90 (the IR the H100 runs, see
tests/gpu/test_jit_equals_aot.py), with the runtimes recorded on the H100 in
samples/runtimes. Paths are made relative to the repository so the session reads
the same on every machine.

    python tests/record_session_sample.py
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "samples" / "sessions" / "square_kernel"


def main() -> None:
    import triton

    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import sweep_configs
    from irscope.measure.samples import sample_measurement
    from irscope.session import Session, run_sweep
    from irscope.types import KernelId

    ref = resolve_kernel("square_kernel")
    configs = sweep_configs(ref.parameter_table(), ref.name, {"BLOCK_SIZE": [128, 1024, 4096], "num_warps": [1, 4]}, {})
    root = str(REPO) + "/"
    triton_dir = str(Path(triton.__file__).parent)

    def portable(text: str) -> str:
        return text.replace(triton_dir, "<triton>").replace(root, "").replace(str(REPO), ".")

    if OUT.exists():
        shutil.rmtree(OUT)
    kernel = KernelId(ref.name, portable(ref.file), ref.identity().source_hash)
    session = Session.create(OUT, kernel, Path(ref.file).read_text(), ref.parameter_table())
    for result in sorted(run_sweep(ref, configs, "sm_90", None), key=lambda r: r.index):
        v = result.variant
        listings = {stage: portable(text) for stage, text in v.listings.items()}
        entry = session.add(replace(v, kernel=kernel, listings=listings, cubin=None))
        m = sample_measurement(v.kernel, v.config, v.arch)
        if m is not None:
            entry.measurement = m
            session.update(entry)
    leftovers = [p for p in OUT.rglob("*") if p.is_file() and str(REPO) in p.read_text(errors="ignore")]
    if leftovers:
        sys.exit(f"absolute paths left in {leftovers}")
    print(
        json.dumps(
            {"variants": len(session.entries), "bytes": sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())}
        )
    )


if __name__ == "__main__":
    main()
