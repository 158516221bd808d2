"""The stages only a TileLang compile has: its TIR before and after lowering, and the CUDA it generates."""

from __future__ import annotations

from ...stages import Stage, StageSpec, register

TIR: Stage = register(
    StageSpec(
        "tilelang_tir",
        "TIR",
        "tir",
        "tir",
        "TIR: the T.prim_func as TileLang's frontend built it (TVMScript), before any pass",
        "TileLang's PrimFunc.script() for the config's parameters",
        vendor="nvidia",
        frontends=("tilelang",),
    )
)
LOWERED_TIR: Stage = register(
    StageSpec(
        "tilelang_device_tir",
        "Lowered TIR",
        "tir",
        "tir",
        "TIR after TileLang's lowering passes: the device module lower() hands on (irscope passes: after each pass)",
        "the device module of TileLang's lower(), as TVMScript",
        vendor="nvidia",
        frontends=("tilelang",),
    )
)
CUDA: Stage = register(
    StageSpec(
        "tilelang_cuda",
        "CUDA",
        "cu",
        "cuda_lines",
        "CUDA C++ TileLang generated, with #line directives naming the Python lines (what nvcc compiles)",
        "the kernel_source of TileLang's lower() with tl.emit_line_directives",
        vendor="nvidia",
        frontends=("tilelang",),
    )
)
