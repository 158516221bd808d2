"""The Python API: the calls a script or a notebook makes, on the objects the CLI uses.

``import irscope`` gives ``capture``, ``sweep``, ``diff``, ``annotate``, ``bench`` and ``open``
(docs/python-api.md). A kernel is a name as the CLI takes it (``"square_kernel"``,
``"kernels/add.py:add_kernel"``) or an object: a ``@triton.jit`` function (autotuned or with
heuristics too), a ``KernelSpec``, a Numba ``@cuda.jit`` function, or CUDA C++ source text, defined
in a script or a notebook cell (``frontends.kernel_from_object``).

In Jupyter, VS Code and IPython, variants, diffs, sessions and annotations display as the report's HTML
(their ``_repr_html_``: ``report/display.py``); the core types reach that renderer only through the slot
``types.HTML_DISPLAY``, which importing this module fills, so they never import the report.

Everything heavy is imported inside the calls: ``import irscope`` stays as quick as ``irscope --help``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .annotating import Annotation
    from .diffing.core import VariantDiff
    from .named import Named
    from .session import Session
    from .types import Variant

__all__ = ["annotate", "bench", "capture", "diff", "html", "open", "sweep"]


def capture(
    kernel: Any,
    config: Mapping[str, Any] | None = None,
    *,
    signature: str | None = None,
    arch: str | int | None = None,
    name: str | None = None,
    passes: bool = False,
) -> Variant:
    """Compile ``kernel`` with ``config`` and keep every stage: ``variant.listings["ptx"]``, ``variant.resources``.

    ``config`` maps parameter names to values (``{"BLOCK_SIZE": 256, "num_warps": 8}``); the rest take their
    defaults. ``signature``: the argument types, irscope's ``-S`` syntax, for a kernel with no ``KernelSpec``
    (``"*fp32, *fp32, i32"``). ``arch``: ``"sm_90"`` compiles ahead of time for it; by default the GPU here,
    or sm_90 without one. ``name``: which kernel of a CUDA source or file with several. ``passes``: keep every
    compiler pass (Triton). A variant that does not compile raises ``CompileFailed`` (its ``.variant`` holds
    what was produced).
    """
    from .capturing import capture as capture_one
    from .errors import CompileFailed

    named = _named(kernel, signature, name)
    variant = capture_one(
        named.require_kernel(),
        config=named.config(_values(config)),
        arch=arch,
        compile_timeout=named.compile_timeout,
        passes=passes,
    )
    if not variant.ok:
        raise CompileFailed(f"{named.name} {variant.config.label()}: failed at {variant.error}", variant)
    return variant


def sweep(
    kernel: Any,
    sweep: Mapping[str, Iterable[Any]] | None = None,
    *,
    config: Mapping[str, Any] | None = None,
    signature: str | None = None,
    arch: str | int | None = None,
    out: str | Path | None = None,
    name: str | None = None,
    executor: str = "local",
) -> Session:
    """Capture every combination of ``sweep``'s values (``{"BLOCK_SIZE": [128, 256], "num_warps": [4, 8]}``)
    into a session; ``config`` fixes other parameters. ``None``: the ranges the kernel declares.

    ``out``: the session's folder (as ``irscope sweep -o``); by default one in irscope's cache, named by the
    kernel and its source, so running the cell again reuses what was compiled. A variant that fails is kept
    in the session with its error; the others go on. ``len(session)`` is its number of variants.
    ``executor="ray"``: compile on a Ray cluster (``RAY_ADDRESS``, else a local instance; docs/ray.md).
    """
    from .named import Settings, plan
    from .session.header import SweepRequest
    from .session.sweep import run_sweep

    named = _named(kernel, signature, name)
    values = _sweep_values(sweep)
    todo = plan(named, Settings(executor=executor), fixed=_values(config), sweeps=values, whole_space=True)
    session = _new_session(named, out)
    request = SweepRequest(
        {n: [str(v) for v in vs] for n, vs in values.items()},
        {n: str(v) for n, v in (config or {}).items()},
        None if arch is None else str(arch),
    )
    session.keep_request(request)
    session.save()
    captures = run_sweep(
        todo.kernel, todo.configs, request.arch, session, compile_timeout=named.compile_timeout, executor=todo.executor
    )
    for _ in captures:
        pass
    return session


def diff(a: Variant, b: Variant, *, stage: str = "ptx") -> VariantDiff:
    """The normalised diff of two variants' ``stage`` (ttir, ttgir, llir, ptx, sass): what really changed,
    with ``removed``, ``added`` and ``summary()``."""
    from .diffing import diff_variants
    from .types import Stage

    return diff_variants(a, b, _stage(stage, Stage))


def annotate(variant: Variant, *, stage: str = "ptx") -> Annotation:
    """Every line of ``variant``'s PTX (or SASS) in plain words, and the findings about the kernel."""
    from .annotating import annotate as annotate_variant
    from .types import Stage

    return annotate_variant(variant, _stage(stage, Stage))


def bench(
    kernel: Any,
    config: Mapping[str, Any] | None = None,
    *,
    sweep: Mapping[str, Iterable[Any]] | None = None,
    signature: str | None = None,
    out: str | Path | None = None,
    name: str | None = None,
    method: str = "cupti",
    executor: str = "local",
    gpu_type: str | None = None,
) -> Session:
    """Check, then time ``config`` (or every combination of ``sweep``) on this machine's GPU, as ``irscope bench``.

    The configs are picked as ``irscope bench`` picks them (``named.configs_of``): a kernel with an autotuner of
    its own (``@triton.autotune``) is timed over the autotuner's configs (``config`` fixing some of their values),
    any other over the one config ``config`` names.

    The session keeps every variant of the kernel; ``session.measured()`` pairs each measured one with its
    ``Measurement``. Without a CUDA GPU
    this raises ``NoGpu``. A kernel defined in a notebook cell is measured in this process (irscope's own
    workers cannot import a cell); a crash of the GPU there needs a restart of the kernel, as any CUDA fault does.
    ``executor="ray"``: compile and measure on a Ray cluster's GPUs (``gpu_type``: only those of Ray's
    accelerator type, ``"H100"``), which need not include this machine's.
    """
    from .measure.bench import bench as run_bench
    from .measure.bench import require_gpu
    from .named import Settings, plan

    if executor == "local":
        require_gpu()
    named = _named(kernel, signature, name)
    todo = plan(
        named, Settings(executor=executor, gpu_type=gpu_type), fixed=_values(config), sweeps=_sweep_values(sweep)
    )
    if not todo.kernel.can_launch:
        from .errors import UsageError

        raise UsageError(todo.kernel.no_launch_reason())
    session = _new_session(named, out)
    runs = run_bench(
        todo.kernel, todo.configs, session, method=method, compile_timeout=named.compile_timeout, executor=todo.executor
    )
    for _ in runs:
        pass
    return session


def open(path: str | Path) -> Session | list[Session]:  # irscope.open: shadows the builtin only in this module
    """What irscope wrote or read, from disk: a session (``irscope sweep -o``) as a ``Session``; a run
    (``irscope run``), an Inductor capture or a tritonparse trace as the list of their kernels' sessions."""
    from .named import open_named

    named = open_named(str(path), several=True)
    if named.session is not None:
        return named.session
    return list(named.sessions)


def html(obj: Any) -> str:
    """The self-contained HTML page irscope's report draws for a variant, a diff, a session or an annotation:
    what a notebook shows, to save and share (``Path("v.html").write_text(irscope.html(v))``)."""
    from .report.display import page

    return page(obj)


# --------------------------------------------------------------------------- helpers


def _named(kernel: Any, signature: str | None, name: str | None) -> Named:
    """A name as the CLI takes it, or an object (a function, a spec, CUDA source) resolved in this process."""
    from .named import Named, open_named

    if isinstance(kernel, str) and "__global__" not in kernel:
        text = kernel if name is None else f"{kernel}:{name}"
        named = open_named(text, signature=signature, need_kernel=True)
        if named.kernel is None:
            from .errors import UsageError

            raise UsageError(f"{text} holds several kernels' sessions: open it with irscope.open")
        return named
    from .frontends import kernel_from_object

    resolved = kernel_from_object(kernel, signature=signature, name=name)
    return Named(resolved.name, resolved.parameter_table(), resolved, compile_timeout=None)


def _new_session(named: Named, out: str | Path | None) -> Session:
    from .capturing.housekeeping import mark_used
    from .paths import SESSIONS, cache_dir
    from .session import Session

    kernel = named.kernel
    assert kernel is not None
    if out is None:
        identity = kernel.identity()
        out = cache_dir() / SESSIONS / f"{kernel.name}-{identity.source_hash[:16]}"
        if out.is_dir():
            mark_used(out)  # irscope cache --trim keeps the most recently used
    return Session.of_kernel(out, kernel, named.table)


def _sweep_values(sweep: Mapping[str, Iterable[Any]] | None) -> dict[str, list[Any]]:
    """Parameter -> its values as a list; a lone string is one value, not its characters; None is None given."""
    from .spec import NONE

    lists = {n: [v] if isinstance(v, str) else list(v) for n, v in (sweep or {}).items()}
    return {n: [NONE if v is None else v for v in values] for n, values in lists.items()}


def _values(config: Mapping[str, Any] | None) -> dict[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        from .errors import UsageError

        raise UsageError(f"config must be a mapping of parameter names to values, got {type(config).__name__}")
    from .spec import NONE

    return {k: NONE if v is None else v for k, v in config.items()}  # None given: the value None (softcap=None)


def _stage(name: Any, stage_type: Any) -> Any:
    try:
        return stage_type(name)
    except ValueError as exc:
        from .errors import UsageError

        raise UsageError(str(exc)) from None


# --------------------------------------------------------------------------- display in notebooks


def _notebook_html(obj: Any) -> str:
    from .report.display import html as notebook_html

    return notebook_html(obj)


def _install_display() -> None:
    """Give ``_repr_html_`` of variants, diffs, sessions and annotations (types.HtmlDisplay) the report's renderer."""
    from .types import HTML_DISPLAY

    if not HTML_DISPLAY:
        HTML_DISPLAY.append(_notebook_html)


_install_display()
