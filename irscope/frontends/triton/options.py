"""Triton's options: what ``-c``/``-s`` set besides a kernel's constexprs, and which Triton compiles.

Imported without Triton (the frontend's description, ``FRONTEND`` in ``__init__.py``, lists them
before any compile). Only this frontend, and the readers of Triton's own records in ``interop/``,
know these names; the rest of irscope sees a kernel's options through its ``FrontendInfo``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import ParameterError
from ..info import OptionSpec

# Launch options irscope passes to Triton next to the constexprs, with the values
# each may take and how an error says so. Anything else named with -c must be a
# constexpr or a size of the kernel's spec.
# num_warps: Triton asserts a power of two; a block has at most 1024 threads.
# num_stages: 0 and 1 both mean "not pipelined". No tile worth pipelining fits 32
#   stages in shared memory, and the pipeliner's time grows with the count (1,000: 36 s).
# num_ctas: the CTAs of a thread-block cluster, at most 16 (8 portable); above 1 needs sm_90.
# maxnreg: ptxas's .maxnreg, registers a thread; it wants a positive value, the GPU has 255.
# AMD's (Triton's HIPOptions): waves_per_eu, the waves per execution unit the register allocation aims at
#   (0: the compiler's choice; a CDNA3 SIMD holds 8 waves, RDNA's up to 16); matrix_instr_nonkdim, the
#   MFMA/WMMA tile's M and N (0: the compiler's choice); kpack, the K elements packed per operand (1 or 2).
LAUNCH_OPTION_VALUES: dict[str, tuple[Sequence[int], str]] = {
    "num_warps": ((1, 2, 4, 8, 16, 32), "a power of two from 1 to 32 (32 warps are 1024 threads, a block's most)"),
    "num_stages": (range(0, 33), "an integer from 0 to 32"),
    "num_ctas": ((1, 2, 4, 8, 16), "1, 2, 4, 8 or 16 (CTAs in a cluster)"),
    "maxnreg": (range(1, 256), "an integer from 1 to 255 (registers a thread)"),
    "waves_per_eu": (range(0, 17), "an integer from 0 (the compiler's choice) to 16"),
    "matrix_instr_nonkdim": ((0, 4, 16, 32), "0 (the compiler's choice), 4, 16 or 32"),
    "kpack": ((1, 2), "1 or 2"),
}
LAUNCH_OPTIONS = tuple(LAUNCH_OPTION_VALUES)
# The options only one vendor's compiler takes; the rest both do.
VENDOR_OPTIONS = {
    "maxnreg": "nvidia",
    "waves_per_eu": "amd",
    "matrix_instr_nonkdim": "amd",
    "kpack": "amd",
}

# Which Triton compiles a variant (``-c triton=3.8.0``, ``-s triton=3.6.0,3.9.0``): a version, kept
# as text. Not an option Triton sees: a version other than the running one compiles in a private
# folder of it (frontends/triton/environments.py). Only a Triton kernel takes it.
TRITON_OPTION = "triton"
# The Tritons irscope works with: those PyTorch 2.10 to 2.15 ship (from, before).
TRITON_RANGE = ((3, 5), (3, 10))

TRITON_DEFAULT_OPTIONS = {"num_warps": 4, "num_stages": 3}
# What Triton's HIP backend compiles with where a launch gives none of its options (HIPOptions' defaults).
AMD_OPTION_DEFAULTS = {"waves_per_eu": 0, "matrix_instr_nonkdim": 0, "kpack": 1}


def triton_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options Triton itself takes: ``options`` less the one naming which Triton compiles."""
    return {k: v for k, v in options.items() if k != TRITON_OPTION}


def check_triton_version(text: Any) -> str:
    """``text`` if it names a Triton release irscope works with (``3.8.0``), else one line saying which do."""
    text = text if isinstance(text, str) else repr(text)
    # ASCII digits, no leading zeros, a few of them: the text names a folder and pip's requirement, and
    # both must read it as the one release it is (pip takes "3.08.0" and "３.８.０" for 3.8.0).
    match = re.fullmatch(r"(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})", text)
    if match is None:
        raise ParameterError(f"triton must be a release such as 3.8.0, got {text!r}")
    (lo, hi), found = TRITON_RANGE, (int(match[1]), int(match[2]))
    if not lo <= found < hi:
        raise ParameterError(
            f"triton {text} is outside the range irscope works with: {lo[0]}.{lo[1]} to {hi[0]}.{hi[1] - 1}"
        )
    return text


# Every option a Triton kernel takes, as the frontend's description lists them.
OPTIONS: dict[str, OptionSpec] = {
    **{
        name: OptionSpec(words, values, vendor=VENDOR_OPTIONS.get(name, ""))
        for name, (values, words) in LAUNCH_OPTION_VALUES.items()
    },
    TRITON_OPTION: OptionSpec("a Triton release such as 3.8.0", check=check_triton_version, text=True),
}
