"""A CUDA fault: the process's context is gone, so the worker that met one must die, not go on.

Both jobs of a GPU worker (timing a variant, running the kernel's own autotuner) ask this of
what their launch raised.
"""

from __future__ import annotations


def is_cuda_fault(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(
        s in text
        for s in (
            "illegal memory access",
            "illegal address",
            "unspecified launch failure",
            "misaligned address",
            "an illegal instruction",
            "device-side assert",
        )
    )
