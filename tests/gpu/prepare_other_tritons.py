"""Compile tests/gpu/other_triton_kernels.py under every Triton at hand, one session per kernel, for the GPU test.

    IRSCOPE_TRITONS=DIR python tests/gpu/prepare_other_tritons.py OUT [--arch sm_90] [--versions 3.6.0,3.9.0]

Run where the other Tritons are (their private folders, see docs/triton-versions.md), then carry
OUT to the GPU machine and run tests/gpu/test_other_triton.py there with IRSCOPE_OTHER_TRITONS=OUT.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--versions", default="3.6.0,3.8.0,3.9.0")
    args = parser.parse_args()
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import sweep_configs
    from irscope.session import Session, run_sweep

    for name in ("scaled_add", "row_softmax"):
        kernel = resolve_kernel(f"{HERE / 'other_triton_kernels.py'}:{name}")
        out = args.out / name
        shutil.rmtree(out, ignore_errors=True)
        session = Session.create(
            out, kernel.identity(), kernel.source(), kernel.parameter_table(), frontend=kernel.frontend
        )
        configs = sweep_configs(kernel.parameter_table(), name, {"triton": args.versions.split(",")}, {})
        for result in run_sweep(kernel, configs, args.arch, session):
            print(name, result.variant.config.label(), result.variant.status.value, result.variant.error or "")


if __name__ == "__main__":
    main()
