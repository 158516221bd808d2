"""Triton 3.5 to 3.9 behind one seam: every difference between them irscope must bridge, each in one adapter.

irscope reads a few of Triton's internals (knobs, the JIT's specialization, its stage hook, its
ptxas), and those moved between releases (issue 29 lists each difference and why).
Everything version-dependent is decided here, once, by what the running Triton does or has (or,
where only reading its source tells, by its version), so that the rest of the frontend calls one
function and never asks which Triton it runs on:

- the running Triton's version, and the range irscope supports (``check_supported``);
- A: the options ``JITFunction.run`` adds from the knobs (``jit_run_kwargs``);
- B: a pointer argument's type (``ptr_type``);
- C: the stage-inspection hook irscope's stage tracker goes in through (``install_stage_hook``);
- D: the ptxas Triton would run for a capability (``ptxas_path``);
- F: the attribute the JIT gives a constexpr parameter (``constexpr_attr``);
- H: the autotuner's rules irscope mirrors or reads back (``lone_pruned_config_is_timed``, ``top_k_count``).

The pass-dump header format (E) is parsed in ``ir/passes.py``, which accepts both forms: no
Triton is needed to read a dump.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from ...errors import UsageError
from .options import TRITON_RANGE

# triton is imported inside the functions that use it, as everywhere in the frontend.

# The Triton releases irscope is tested with: the first one, and the first one it is not (options.py holds
# them, as -c triton=X is checked against them too). pyproject's dependency has the floor only: a cap
# would make pip pick an older torch (whose Triton fits) rather than install a newer Triton beside the
# user's torch (issue 47); a newer Triton runs, and irscope says once that it is untested
# (tests/test_triton_versions.py checks that the two agree).
LOWEST, FIRST_UNSUPPORTED = TRITON_RANGE
REQUIREMENT = f"triton>={LOWEST[0]}.{LOWEST[1]}"
UNTESTED_SAID = "IRSCOPE_UNTESTED_TRITON_SAID"  # set once said: the workers irscope starts say it no more


def triton_version() -> str:
    """The running Triton's version, as it says it (``triton.__version__``)."""
    import triton

    return triton.__version__


def release(version: str | None = None) -> tuple[int, int]:
    """``(major, minor)`` of ``version`` (the running Triton's when None): ``3.8.0+git1234`` is ``(3, 8)``."""
    text = triton_version() if version is None else version
    m = re.match(r"\s*(\d+)\.(\d+)", text)
    if m is None:
        raise UsageError(f"irscope cannot read Triton's version {text!r}: it supports {_range()}")
    return int(m[1]), int(m[2])


def _range() -> str:
    return f"Triton {LOWEST[0]}.{LOWEST[1]} to {FIRST_UNSUPPORTED[0]}.{FIRST_UNSUPPORTED[1] - 1} ({REQUIREMENT})"


def tested_range() -> str:
    return f"{LOWEST[0]}.{LOWEST[1]} to {FIRST_UNSUPPORTED[0]}.{FIRST_UNSUPPORTED[1] - 1}"


def untested(version: str) -> bool:
    """A release newer than those irscope is tested with (it runs, and says so once)."""
    return release(version) >= FIRST_UNSUPPORTED


def check_supported(version: str | None = None) -> str:
    """The running Triton's version (or ``version``), where irscope runs on it; else a UsageError in one line.

    An older Triton is a UsageError (exit 2), as for the other things about the environment that the
    user fixes by installing something: the line names the version found and the range. A newer one,
    not tested yet, runs: one line on stderr says so, once per command (not once per worker).
    """
    text = triton_version() if version is None else version
    if release(text) < LOWEST:
        raise UsageError(f"triton {text} is installed, but irscope supports {_range()}: pip install '{REQUIREMENT}'")
    if untested(text) and not os.environ.get(UNTESTED_SAID):
        os.environ[UNTESTED_SAID] = "1"
        print(
            f"irscope: triton {text} is newer than the releases irscope is tested with ({tested_range()}): "
            "it runs, but a stage or a finding may be missing or wrong",
            file=sys.stderr,
        )
    return text


# --- A: the options JITFunction.run adds from the knobs -----------------------------------------------

# Each knob of ``knobs.compilation`` that ``JITFunction.run`` passes as an option where the running Triton
# has it: instrumentation_mode from 3.6 on, fpsan_homomorphic_casts from 3.9 on.
_JIT_KNOBS = ("instrumentation_mode", "fpsan_homomorphic_casts")


def jit_run_kwargs() -> dict[str, Any]:
    """The options ``JITFunction.run`` adds to a launch's kwargs from ``knobs.compilation`` (``debug`` aside)."""
    from triton import knobs

    missing = object()
    values = {name: getattr(knobs.compilation, name, missing) for name in _JIT_KNOBS}
    return {name: value for name, value in values.items() if value is not missing}


# --- B: a pointer argument's type ---------------------------------------------------------------------


def ptr_type(dtype: Any, is_const: bool) -> str:
    """``*fp32`` (``*kfp32`` for a const pointer), as the JIT names a tensor argument of ``dtype``."""
    from triton import _utils

    canonicalize = getattr(_utils, "canonicalize_ptr_dtype", None)
    if canonicalize is not None:  # 3.6 on
        return canonicalize(dtype, is_const)
    # 3.5: the same rule, inlined in the JIT's create_specialize_impl
    return ("*k" if is_const else "*") + _utils.canonicalize_dtype(dtype)


# --- C: the stage-inspection hook ---------------------------------------------------------------------

StageHook = Callable[[Any, dict, Any, Any, Any], None]  # (backend, stages, options, language, capability)


@contextlib.contextmanager
def install_stage_hook(hook: StageHook) -> Iterator[None]:
    """``hook`` sees the stages of each compile in the block: ``hook(backend, stages, options, language,
    capability)`` after the backend added them, free to wrap each stage's function. One compile at a
    time per process, as irscope's compile workers run them (from 3.6 on the knob is process-wide).

    Triton 3.6 on calls ``knobs.runtime.add_stages_inspection_hook`` so; 3.7 on also calls it with
    no arguments, as ``compile`` and ``JITFunction.run`` build their cache keys, and adds the
    ``(key, hash)`` it returns to them. That pair is ``("", "")`` here: irscope's hook leaves what
    Triton compiles as it was, and ``compile._read_partial_stages`` finds a failed compile's cache
    folder by Triton's key without it. Triton 3.5 has no such knob (setting it is a silent no-op),
    so the backend's ``add_stages`` is wrapped instead while any thread is in such a block, and each
    thread's wrapper calls that thread's hook.
    """
    from triton import knobs

    if _has_stage_hook_knob():
        with knobs.runtime.scope():
            knobs.runtime.add_stages_inspection_hook = _KnobHook(hook)
            yield
        return
    with _add_stages_wrapped(hook):
        yield


@functools.cache
def _has_stage_hook_knob() -> bool:
    from triton import knobs

    return hasattr(type(knobs.runtime), "add_stages_inspection_hook")


class _KnobHook:
    """What the knob holds: the hook, and the empty pair Triton 3.7 on asks it for when called bare."""

    def __init__(self, hook: StageHook) -> None:
        self.hook = hook

    def __call__(self, *args: Any) -> tuple[str, str] | None:
        if not args:  # compile()'s and JITFunction.run's cache keys: nothing added
            return "", ""
        self.hook(*args)
        return None


_wrap_lock = threading.Lock()
_wrap_users = 0
_wrapped_originals: dict[Any, Any] = {}
_hooks = threading.local()  # this thread's hook: two threads compiling at once each see their own


def _backends() -> list[Any]:
    """The backend classes whose ``add_stages`` a 3.5 hook wraps: NVIDIA's and AMD's (HIP)."""
    from triton.backends.amd.compiler import HIPBackend
    from triton.backends.nvidia.compiler import CUDABackend

    return [CUDABackend, HIPBackend]


def _wrapped(original: Any) -> Any:
    def add_stages(self: Any, stages: dict, options: Any, *rest: Any) -> Any:
        out = original(self, stages, options, *rest)
        current = getattr(_hooks, "hook", None)
        if current is not None:
            language = rest[0] if rest else None
            # the capability 3.6's knob passes: NVIDIA's parsed arch; None for HIP, as HIPBackend passes it
            parse = getattr(self, "_parse_arch", None)
            current(self, stages, options, language, parse(options.arch) if parse else None)
        return out

    return add_stages


@contextlib.contextmanager
def _add_stages_wrapped(hook: StageHook) -> Iterator[None]:
    """Each backend's ``add_stages`` calls ``hook`` after it, while any thread is in this block (Triton 3.5)."""
    global _wrap_users
    with _wrap_lock:
        if _wrap_users == 0:
            for backend in _backends():
                _wrapped_originals[backend] = backend.add_stages
                backend.add_stages = _wrapped(backend.add_stages)
        _wrap_users += 1
    previous = getattr(_hooks, "hook", None)
    _hooks.hook = hook
    try:
        yield
    finally:
        _hooks.hook = previous
        with _wrap_lock:
            _wrap_users -= 1
            if _wrap_users == 0:
                for backend, original in _wrapped_originals.items():
                    backend.add_stages = original
                _wrapped_originals.clear()


# --- D: ptxas -----------------------------------------------------------------------------------------


def ptxas_path(capability: int) -> str:
    """The ptxas Triton runs for ``sm_<capability>``: ``get_ptxas(arch)`` (3.6 on), ``get_ptxas()`` (3.5)."""
    from triton.backends.nvidia.compiler import get_ptxas

    tool = get_ptxas(capability) if _get_ptxas_takes_arch() else get_ptxas()
    return tool.path


@functools.cache
def _get_ptxas_takes_arch() -> bool:
    from triton.backends.nvidia.compiler import get_ptxas

    return bool(inspect.signature(get_ptxas).parameters)


# --- F: the attribute the JIT gives a constexpr -------------------------------------------------------


def _one_constexpr(X):
    pass


@functools.cache
def constexpr_attr() -> list | None:
    """What ``JITFunction._pack_args`` puts in ``attrs`` for a constexpr parameter: ``[]`` from 3.7 on, where
    every constexpr gets an empty one, None (no entry) before. Asked of Triton once, on a one-constexpr
    function; the ``-S`` path adds the same, so that its ``ASTSource`` hashes as the JIT's does."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend

    fn = triton.jit(_one_constexpr)  # the specialization below says X is a constexpr, as the binder would
    backend = make_backend(GPUTarget("cuda", 90, 32))
    options = {"enable_fp_fusion": True}  # given: Triton 3.9 warns when it picks the default itself
    _, _, _, attrs = fn._pack_args(backend, options, {"X": 4}, [("constexpr", 4)], {})
    return attrs.get((0,))


# --- H: the autotuner ---------------------------------------------------------------------------------


def lone_pruned_config_is_timed() -> bool:
    """Does ``Autotuner.run`` time the one config a prune kept? Until 3.7 it does (``configs_timings`` holds
    it); from 3.8 on it takes it as it takes a lone config, untimed and with no ``configs_timings``."""
    return release() < (3, 8)


def top_k_count(top_k: Any, configs: int, kept: int) -> int:
    """How many configs ``prune_configs`` keeps by ``perf_model`` (``configs_top_k``), of ``configs`` of which
    ``early_config_prune`` ``kept`` some: a fraction of all of them until 3.8, from 3.9 on of those kept,
    and at least one. An int is itself; anything else raises TypeError as Triton does."""
    if isinstance(top_k, float) and top_k <= 1.0:
        if release() < (3, 9):
            return int(configs * top_k)
        return max(1, int(kept * top_k))
    if not isinstance(top_k, int):
        raise TypeError("top_k must be either a float <= 1.0 or an int")
    return top_k
