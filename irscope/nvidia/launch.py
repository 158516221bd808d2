"""Launch a kernel from the cubin irscope compiled: the binary the listings show is the one that runs.

Through the CUDA driver API (``cuModuleLoadData``, ``cuLaunchKernel``) with ctypes,
on torch's current stream and context, so CUDA C++ and Numba kernels are checked
and timed exactly as Triton's are. Each argument is packed as the kernel's own PTX
declares its parameter (``.u64`` pointer, ``.u32``/``.s32`` int, ``.f32`` float ...),
which the source cannot get wrong the way a guessed C type can. A Numba array is the
parameters Numba lowers it to: meminfo, parent, item count, item size, data, then
the shape and the strides in bytes.

Imports torch: GPU side only.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError

# PTX parameter type -> ctypes type of the value
SCALARS = {
    "u8": ctypes.c_uint8,
    "s8": ctypes.c_int8,
    "b8": ctypes.c_uint8,
    "u16": ctypes.c_uint16,
    "s16": ctypes.c_int16,
    "b16": ctypes.c_uint16,
    "u32": ctypes.c_uint32,
    "s32": ctypes.c_int32,
    "b32": ctypes.c_uint32,
    "u64": ctypes.c_uint64,
    "s64": ctypes.c_int64,
    "b64": ctypes.c_uint64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}
# ".param .u64 name", ".param .align 8 .b8 name[16]" (nvcc), ".param .u64 .ptr .global .align 1 name" (Triton)
PARAM = re.compile(
    r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)(?:\s+\.ptr(?:\s+\.(?:global|shared|const|local))?(?:\s+\.align\s+\d+)?)?"
    r"\s+(\w+)(\[\d+\])?"
)


class LaunchError(UsageError):
    """A spec whose arguments do not fit the kernel's parameters."""


@dataclass(frozen=True)
class NumbaArray:
    """A tensor passed where a Numba kernel takes an array: expanded to Numba's parameters."""

    tensor: Any


def entry_params(ptx: str, entry: str) -> list[str]:
    """The PTX types of ``entry``'s parameters, in order ("u64", "f32", ...; "struct" for a by-value aggregate)."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\((.*?)\)", ptx, re.S)
    if m is None:
        raise LaunchError(f"the PTX has no entry {entry}")
    out = []
    for param in PARAM.finditer(m.group(1)):
        out.append("struct" if param.group(3) else param.group(1))
    return out


def flatten(args: Sequence[Any]) -> list[Any]:
    """Numba arrays expanded to their parameters; everything else as it is."""
    out: list[Any] = []
    for arg in args:
        if isinstance(arg, NumbaArray):
            t = arg.tensor
            out += [0, 0, t.numel(), t.element_size(), t, *t.shape, *(s * t.element_size() for s in t.stride())]
        else:
            out.append(arg)
    return out


def pack(types: Sequence[str], args: Sequence[Any]) -> list[Any]:
    """ctypes values for ``args`` as the PTX ``types`` declare them (tensors become their data pointers)."""
    values = flatten(args)
    if len(values) != len(types):
        raise LaunchError(f"the kernel takes {len(types)} parameters and the spec's args give {len(values)}")
    out = []
    for i, (ptx_type, value) in enumerate(zip(types, values)):
        if ptx_type not in SCALARS:
            raise LaunchError(
                f"parameter {i} is a by-value aggregate ({ptx_type}): irscope launches only pointers and scalars"
            )
        if hasattr(value, "data_ptr"):
            if ptx_type not in ("u64", "b64", "s64"):
                raise LaunchError(f"parameter {i} is .{ptx_type} but the spec passes a tensor")
            value = value.data_ptr()
        if isinstance(value, bool):
            value = int(value)
        if ptx_type.startswith("f") and not isinstance(value, (int, float)):
            raise LaunchError(f"parameter {i} is .{ptx_type}; the spec passes {type(value).__name__}")
        out.append(SCALARS[ptx_type](value))
    return out


class CubinFunction:
    """One ``__global__`` function of a cubin, loaded into torch's current CUDA context."""

    def __init__(self, cubin: bytes, entry: str, ptx: str) -> None:
        import torch

        torch.empty(1, device="cuda")  # the primary context is current on this thread from here on
        self._cuda = ctypes.CDLL("libcuda.so.1")
        self._image = ctypes.create_string_buffer(cubin, len(cubin))
        self._module = ctypes.c_void_p()
        self._check(self._cuda.cuModuleLoadData(ctypes.byref(self._module), self._image), "cuModuleLoadData")
        self._function = ctypes.c_void_p()
        self._check(
            self._cuda.cuModuleGetFunction(ctypes.byref(self._function), self._module, entry.encode()),
            f"cuModuleGetFunction({entry})",
        )
        self.types = entry_params(ptx, entry)
        self.n_regs = self._attribute(4)  # CU_FUNC_ATTRIBUTE_NUM_REGS
        self.n_spills = None  # the driver does not say; ptxas's report does

    def allow_shared(self, dynamic_shared: int) -> None:
        """Opt in to more than 48 KB of dynamic shared memory, as a launch of that much needs."""
        if dynamic_shared > 48 * 1024:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            self._check(self._cuda.cuFuncSetAttribute(self._function, 8, dynamic_shared), "cuFuncSetAttribute")

    def max_active_blocks(self, threads: int, dynamic_shared: int = 0) -> int:
        """Blocks of ``threads`` threads with ``dynamic_shared`` bytes of dynamic shared memory that the driver
        fits on one SM (cuOccupancyMaxActiveBlocksPerMultiprocessor), after opting in to more than 48 KB."""
        self.allow_shared(dynamic_shared)
        blocks = ctypes.c_int()
        self._check(
            self._cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                ctypes.byref(blocks), self._function, threads, ctypes.c_size_t(dynamic_shared)
            ),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        )
        return blocks.value

    def _attribute(self, which: int) -> int:
        value = ctypes.c_int()
        self._cuda.cuFuncGetAttribute(ctypes.byref(value), which, self._function)
        return value.value

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            name = ctypes.c_char_p()
            self._cuda.cuGetErrorString(status, ctypes.byref(name))
            text = name.value.decode() if name.value else f"CUDA error {status}"
            raise LaunchError(f"{what}: {text}")

    def prepare(self, args: Sequence[Any]) -> tuple[list[Any], Any]:
        """The packed arguments and the pointer array cuLaunchKernel takes (kept alive together)."""
        values = pack(self.types, args)
        array = (ctypes.c_void_p * max(len(values), 1))(
            *[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in values]
        )
        return values, array

    def launch(
        self, grid: Sequence[int], block: Sequence[int], prepared: tuple[list[Any], Any], shared: int = 0
    ) -> None:
        import torch

        gx, gy, gz = (list(grid) + [1, 1, 1])[:3]
        bx, by, bz = (list(block) + [1, 1, 1])[:3]
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        self._check(
            self._cuda.cuLaunchKernel(self._function, gx, gy, gz, bx, by, bz, shared, stream, prepared[1], None),
            "cuLaunchKernel",
        )
