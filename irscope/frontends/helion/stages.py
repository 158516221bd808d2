"""The stage only a Helion compile has: the Triton module Helion generated for one config."""

from __future__ import annotations

from ...stages import Stage, StageSpec, register

# Its key is named in ir/sourcemap.py's ORIGINS (the "helion" entry): every later stage maps through it.
HELION_TRITON: Stage = register(
    StageSpec(
        "helion_triton",
        "Triton",
        "py",
        "python",
        "the Triton module Helion generated for this config (to_triton_code), with its # src[file:line] comments",
        "Helion's BoundKernel.to_triton_code(config)",
        aliases=("generated",),
        frontends=("helion",),
    )
)
