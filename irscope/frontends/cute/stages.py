"""The stage only a CuTe DSL compile has: its IR as the DSL traced it, before any pass."""

from __future__ import annotations

from ...stages import Stage, StageSpec, register

CUTE_IR: Stage = register(
    StageSpec(
        "cute_ir",
        "CuTe IR",
        "mlir",
        "mlir",
        "CuTe IR: the @cute.jit host function and its kernels as the DSL traced them (MLIR), before any pass",
        "CuTe DSL's CUTE_DSL_KEEP=ir-debug dump, with the Python file's locations",
        vendor="nvidia",
        frontends=("cute",),
    )
)
