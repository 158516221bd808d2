"""The JIT's argument specialization, computed without launching (and without torch).

Triton's JIT compiles a different kernel depending on its arguments: a pointer
whose address is a multiple of 16 gets ``tt.divisibility = 16``, so does an int
that is a multiple of 16; an int equal to 1 becomes a constant; an int beyond 32
bits becomes i64. An ahead-of-time compile must apply the same rules or its PTX
differs (no ``ld.global.v4``). The rules below mirror Triton's own (3.6's native
``specialize_impl``, 3.5's Python one: the same results); a GPU test checks the
resulting PTX against the JIT's. What differs between Triton releases goes through
``versions.py``.

Tensors are stood in for by ``ExampleTensor``: only dtype, address alignment,
shape and strides matter here, and importing torch would cost a second.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...arch import wave_size
from ...errors import ParameterError
from ...spec import DTYPE_BYTES
from ...types import Config
from .options import triton_options
from .signature import SignatureArg
from .versions import constexpr_attr, jit_run_kwargs, ptr_type

# triton is imported inside the functions that use it: about a second, which commands that never compile
# should not pay.

if TYPE_CHECKING:
    from .kernel import TritonKernel

# Addresses of fresh allocations: torch's CUDA caching allocator hands out blocks
# aligned to 512 bytes, its CPU allocator to 64; both are multiples of 16.
_BASE_ADDRESS = 0x7F00_0000_0000
_BOOLS = {"i1": "u1"}  # -S may name a bool either way; the JIT says u1
_ALLOCATION_STRIDE = 1 << 32


class ExampleTensor:
    """A stand-in for a torch tensor: dtype, shape, contiguous strides and an address."""

    def __init__(self, dtype: str, shape: Sequence[int], address: int) -> None:
        self.dtype = dtype  # Triton canonicalises str(dtype).split(".")[-1]
        self.shape = tuple(shape)
        self._address = address
        strides, acc = [], 1
        for dim in reversed(self.shape):
            strides.append(acc)
            acc *= dim
        self._strides = tuple(reversed(strides))

    def data_ptr(self) -> int:
        return self._address

    def stride(self, dim: int | None = None) -> Any:
        return self._strides if dim is None else self._strides[dim]

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    def dim(self) -> int:
        return len(self.shape)

    ndim = property(dim)

    def numel(self) -> int:
        return math.prod(self.shape)

    def element_size(self) -> int:
        return DTYPE_BYTES[self.dtype]

    def is_contiguous(self) -> bool:
        return True

    def ptr_range(self) -> int:
        """The bytes the tensor spans: what Triton's HIP backend asks (``is_within_2gb``) before it marks
        a pointer for AMD's buffer loads and stores (``tt.pointer_range``)."""
        return self.numel() * self.element_size()


def example_tensors(kernel: TritonKernel, config: Config) -> dict[str, ExampleTensor]:
    sizes = dict(config.sizes)
    out = {}
    for i, (name, decl) in enumerate(kernel.launch_spec.tensors.items()):
        address = _BASE_ADDRESS + i * _ALLOCATION_STRIDE + decl.offset_in(sizes) * DTYPE_BYTES[decl.dtype]
        out[name] = ExampleTensor(decl.dtype, decl.dims(sizes), address)
    return out


def specialize_arg(arg: Any, is_const: bool, specialize: bool, align: bool, backend: Any = None) -> tuple[Any, Any]:
    """``(type, key)`` for one argument, as Triton's ``native_specialize_impl`` (3.5: ``create_specialize_impl``).

    ``backend``: a tensor's key is then the backend's own (Triton's HIP backend adds "S" to a tensor
    within 2 GB, which becomes ``tt.pointer_range``: AMD's buffer loads); without one, CUDA's rule.
    """
    from triton.language import constexpr
    from triton.runtime.jit import JITCallable

    if isinstance(arg, bool):
        return "u1", None
    if isinstance(arg, int):
        if specialize and arg == 1:
            return "constexpr", arg
        if -(2**31) <= arg <= 2**31 - 1:
            kind = "i32"
        elif -(2**63) <= arg <= 2**63 - 1:
            kind = "i64"
        elif arg < 2**64:
            kind = "u64"
        else:
            raise OverflowError("integer to be specialized too large to represent")
        return kind, (("D" if align and arg % 16 == 0 else "") if specialize else None)
    if isinstance(arg, float):
        return "fp32", None
    if arg is None:
        return "constexpr", None
    if isinstance(arg, constexpr):
        return "constexpr", arg
    if isinstance(arg, JITCallable):
        return "constexpr", arg.cache_key
    if isinstance(arg, tuple):
        pairs = [specialize_arg(item, False, True, True) for item in arg]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if hasattr(arg, "data_ptr"):
        kind = ptr_type(arg.dtype, is_const)
        if not specialize:
            return kind, None
        if backend is not None:
            return kind, tensor_key(backend, arg, align)
        return kind, "D" if align and arg.data_ptr() % 16 == 0 else ""
    raise TypeError(f"cannot specialize argument of type {type(arg).__name__}")


def tensor_key(backend: Any, arg: Any, align: bool) -> str:
    """A tensor argument's specialization key by the backend's own hook (3.6+: ``get_tensor_specialization``;
    3.5: ``get_arg_specialization``)."""
    hook = getattr(backend, "get_tensor_specialization", None)
    if hook is not None:
        return hook(arg, align=align)
    return backend.get_arg_specialization(arg, "tensor", align=align)


def bind_specialization(fn: Any, args: Sequence[Any], kwargs: dict[str, Any], backend: Any = None) -> tuple[dict, list]:
    """Bind ``args``/``kwargs`` to ``fn``'s parameters and specialise each, like the JIT's binder."""
    params = {k: v for k, v in kwargs.items() if k in fn.signature.parameters}
    bound = fn.signature.bind(*args, **params)
    bound.apply_defaults()
    specialization = [specialize_param(kp, value, backend) for kp, value in zip(fn.params, bound.arguments.values())]
    return dict(bound.arguments), specialization


def specialize_param(kp: Any, value: Any, backend: Any = None) -> tuple[Any, Any]:
    """``(type, key)`` for parameter ``kp`` (a ``KernelParam``) given ``value``, as the JIT's binder makes it."""
    if kp.is_constexpr:
        return "constexpr", value
    specialize = not kp.do_not_specialize
    align = not kp.do_not_specialize_on_alignment
    annotation = kp.annotation_type
    if not annotation:
        return specialize_arg(value, kp.is_const, specialize, align, backend)
    if annotation == "u1" or annotation[:2] in ("fp", "bf"):
        specialize = False
    return annotation, specialize_arg(value, kp.is_const, True, align, backend)[1] if specialize else None


def argument_entry(kp: Any, value: Any, declared: SignatureArg) -> SignatureArg:
    """The -S entry a launch passing ``value`` makes of parameter ``kp``, declared in -S as ``declared``.

    The JIT specializes on the value: an int equal to 1 becomes a constant, a multiple of 16
    gets ``:16``, one beyond 32 bits is an i64. A declared integer type or hint the value
    contradicts is refused: the compile would describe no launch.
    """
    kind, key = specialize_param(kp, value)
    if kind == "constexpr":
        entry = SignatureArg(None, None, value)
    else:
        entry = SignatureArg(kind, 16 if key == "D" else None)
    said = f"-c {kp.name}={value!r}"
    if kind != "constexpr" and _BOOLS.get(kind, kind) != _BOOLS.get(str(declared.type), declared.type):
        raise ParameterError(
            f"-S gives {kp.name} as {declared.type}, but a launch passing {value!r} makes it {kind} "
            f"(the JIT picks the type from the value): write {kind} in -S, or another value in {said}"
        )
    if declared.hint == 16 and entry.hint != 16:
        raise ParameterError(
            f"-S says {kp.name} is divisible by 16 ({declared.type}:16), but {said} is not; give one or the other"
        )
    return entry


def gpu_target(arch: int | str) -> Any:
    """Triton's ``GPUTarget`` for a compute capability (90) or an AMD processor ("gfx942", with its wave size)."""
    from triton.backends.compiler import GPUTarget

    if isinstance(arch, str):
        return GPUTarget("hip", arch, wave_size(arch))
    return GPUTarget("cuda", arch, 32)


def specialize(kernel: TritonKernel, config: Config, arch: int | str, tensors: dict[str, Any] | None = None):
    """``(ASTSource, options, signature, divisible_by_16)`` as the JIT would build them, for ``sm_<arch>`` or
    the AMD processor ``arch`` names.

    ``tensors`` replaces the stand-ins with real ones (on a GPU).
    """
    from triton import knobs
    from triton.compiler import ASTSource, make_backend

    backend = make_backend(gpu_target(arch))
    kwargs: dict[str, Any] = {**config.constexprs, **triton_options(config.options)}
    tuning = getattr(kernel, "tuning", None)
    if tuning is not None and tuning.heuristics():  # @triton.heuristics: their values for this config's arguments
        kwargs = tuning.resolve_for(kernel, config, kwargs, tensors)
    kwargs["debug"] = kwargs.get("debug", kernel.fn.debug) or knobs.runtime.debug
    kwargs.update(jit_run_kwargs())
    if kernel.spec is not None:
        ns = kernel.spec.namespace(config.values(), tensors or example_tensors(kernel, config))
        args = tuple(kernel.spec.args(ns))
        # AMD: the HIP backend's own key marks each tensor within 2 GB, as ROCm's JIT does on a launch.
        amd_backend = backend if isinstance(arch, str) else None
        bound, specialization = bind_specialization(kernel.fn, args, kwargs, amd_backend)
        options = {k: v for k, v in kwargs.items() if k not in kernel.fn.signature.parameters}
        options, signature, constexprs, attrs = kernel.fn._pack_args(backend, kwargs, bound, specialization, options)
    else:
        amd = isinstance(arch, str)
        signature, constexprs, attrs = _from_signature(kernel, launch_signature(kernel, config), kwargs, amd)
        options = backend.parse_options(kwargs)
    divisible = tuple(
        kernel.fn.arg_names[key[0]]
        for key, value in attrs.items()
        if len(key) == 1 and ["tt.divisibility", 16] in [list(a) for a in value]
    )
    fn = kernel.fn if tuning is None else tuning.jit  # the function itself, not its launcher
    return ASTSource(fn, signature, constexprs, attrs), options.__dict__, dict(signature), divisible


def launch_signature(kernel: TritonKernel, config: Config) -> tuple[SignatureArg, ...]:
    """The kernel's -S signature as a launch with ``config``'s example argument values makes it (``argument_entry``)."""
    given = config.sizes
    return tuple(
        argument_entry(param, given[param.name], arg)
        if not param.is_constexpr and given.get(param.name) is not None
        else arg
        for param, arg in zip(kernel.fn.params, kernel.signature or ())
    )


def _from_signature(kernel: TritonKernel, entries: Sequence[SignatureArg], values: dict[str, Any], amd: bool = False):
    """Signature, constexprs and attrs from -S ``entries``; ``values`` holds the constexprs (a heuristic's too).

    ``attrs`` as ``JITFunction._pack_args`` builds them, in parameter order: a constexpr gets what the
    running Triton gives one (``versions.constexpr_attr``), so that the source hashes as the JIT's. For
    an AMD target (``amd``), a pointer recorded within 2 GB gets ``tt.pointer_range`` after its
    divisibility, as Triton's ``HIPBackend.parse_attr`` gives a "DS" argument.
    """
    signature, constexprs, attrs = {}, {}, {}
    for_constexpr = constexpr_attr()
    for param, arg in zip(kernel.fn.params, entries):
        if for_constexpr is not None and (param.is_constexpr or arg.hint == 1 or arg.type is None):
            attrs[(param.num,)] = list(for_constexpr)
        if param.is_constexpr:
            if param.name not in values:
                raise ParameterError(
                    f"constexpr {param.name} of {kernel.name} has no value"
                    + (
                        "; a kernel rebuilt from a session's copy of its source runs none of its decorators "
                        "(@triton.heuristics): name its file with -S and -o"
                        if kernel.source_text is not None and not kernel.compiles_here
                        else ""
                    )
                )
            signature[param.name] = "constexpr"
            constexprs[(param.num,)] = values[param.name]
        elif arg.hint == 1:  # the JIT turns an integer equal to 1 into a constant
            signature[param.name] = "constexpr"
            constexprs[(param.num,)] = 1
        elif arg.type is None:  # a bare constant (-S "1", Inductor's "constants"): like the JIT's 1s
            signature[param.name] = "constexpr"
            constexprs[(param.num,)] = arg.value
        else:
            signature[param.name] = arg.type
            attrs[(param.num,)] = [["tt.divisibility", 16]] if arg.hint == 16 else []
            if amd and arg.pointer_range is not None:
                attrs[(param.num,)].append(["tt.pointer_range", arg.pointer_range])
    return signature, constexprs, attrs
