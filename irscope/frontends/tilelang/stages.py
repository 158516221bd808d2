"""The stages only a TileLang compile has: its TIR before and after lowering (for any target), and the CUDA
(NVIDIA) or HIP (AMD) source it generates."""

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
HIP: Stage = register(
    StageSpec(
        "tilelang_hip",
        "HIP",
        "hip",
        "cuda_lines",
        "HIP C++ TileLang generated for an AMD GPU, with #line directives naming the Python lines (what hipcc compiles)",
        "the kernel_source of TileLang's lower() for {'kind': 'hip', 'mcpu': ...} with tl.emit_line_directives",
        vendor="amd",
        frontends=("tilelang",),
    )
)
