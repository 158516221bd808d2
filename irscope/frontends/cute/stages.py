"""The stages only a CuTe DSL compile has: its IR as the DSL traced it, before any pass, and after its lowering.

"After lowering" is the module the DSL's one pass pipeline (``cute-to-nvvm{...}``) leaves, which the DSL hands
back as the compiled function's ``ir_module`` (what its file cache stores as bytecode and ``export_to_c`` starts
from): the host function lowered to the LLVM dialect, and the kernels replaced by their cubin (the
``@kernels_binary`` global). It is the last MLIR the DSL shows: the kernels' own NVVM and LLVM IR live only
inside that pass, which turns them into PTX and the cubin itself, and the DSL emits no LLVM IR text; the
kernels' code after lowering is the ``ptx`` stage.
"""

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

CUTE_LOWERED: Stage = register(
    StageSpec(
        "cute_lowered",
        "CuTe lowered",
        "mlir",
        "mlir",
        "CuTe IR after the DSL's lowering (cute-to-nvvm): the host function in the LLVM dialect, its kernels a cubin",
        "CuTe DSL's compiled ir_module, printed with locations as its own IR dumps print",
        vendor="nvidia",
        frontends=("cute",),
    )
)
