"""Kernels behind ``@triton.autotune`` and ``@triton.heuristics``, opened as Triton runs them.

Both decorators wrap the ``@triton.jit`` function in an object of their own
(``Autotuner``, ``Heuristics``) whose ``run`` adds keyword arguments and calls
the next one inward. irscope compiles the function inside with one config at a
time, so it has to do what those ``run`` methods would have done for that
config, in the same order:

- the autotuner's configs are the kernel's default sweep, exactly as listed;
  its ``prune_configs_by`` only marks configs (the parameter table's ``mark``
  kind, shown as a ``pruned`` value), because irscope compiles them all;
- heuristics are evaluated per variant from the arguments Triton would pass
  them: the example arguments, plus the config's values where the heuristic
  sits inside the autotuner (outside it, Triton evaluates it before a config
  is chosen, and so does irscope).
"""

from __future__ import annotations

import collections
import functools
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import ParameterError, exception_line
from ...types import Config
from .inputs import example_namespace
from .options import LAUNCH_OPTIONS
from .specialize import example_tensors
from .versions import top_k_count

if TYPE_CHECKING:
    from .kernel import TritonKernel

# The mark a table gives autotuned configs that prune_configs_by drops (see irscope/frontends/config.py: config_from_table).
PRUNED = "pruned"


class UnknownValue(KeyError):
    """A heuristic (or a prune function) read an argument whose value irscope does not know."""


class UnknownArgument(ParameterError):
    """A heuristic needs an argument's value that -S does not give."""


class Arguments(dict):
    """The dict a heuristic gets; reading a parameter whose value is unknown (-S gives only its type) says so."""

    def __init__(self, values: Mapping[str, Any], unknown: Iterable[str] = ()) -> None:
        super().__init__(values)
        self.unknown = frozenset(unknown) - set(values)

    def __missing__(self, key: Any) -> Any:
        raise UnknownValue(key) if key in self.unknown else KeyError(key)


def _wrapper_types() -> tuple[type, ...]:
    module = sys.modules.get("triton.runtime.autotuner")  # no kernel file imported it: nothing is wrapped
    return () if module is None else (module.Autotuner, module.Heuristics)


def _is_autotuner(layer: Any) -> bool:
    module = sys.modules.get("triton.runtime.autotuner")
    return module is not None and isinstance(layer, module.Autotuner)


def is_jit(value: Any) -> bool:
    jit = sys.modules.get("triton.runtime.jit")
    return jit is not None and isinstance(value, jit.JITFunction) and hasattr(value, "params")


def unwrap(value: Any) -> Tuning | None:
    """The decorators around a ``@triton.jit`` function, outermost first; None for a bare one, or anything else."""
    wrappers = _wrapper_types()
    layers: list[Any] = []
    while wrappers and isinstance(value, wrappers) and len(layers) < 16:
        layer: Any = value
        layers.append(layer)
        value = layer.fn
    return Tuning(value, tuple(layers)) if layers and is_jit(value) else None


def is_kernel(value: Any) -> bool:
    """A ``@triton.jit`` function, bare or under any stack of autotune/heuristics decorators."""
    return is_jit(value) or unwrap(value) is not None


def jit_of(value: Any) -> Any:
    """The ``JITFunction`` inside ``value`` (``value`` itself when bare)."""
    tuning = unwrap(value)
    return value if tuning is None else tuning.jit


@dataclass(frozen=True)
class Tuning:
    """A kernel's decorators: the ``JITFunction`` and the wrappers around it, outermost first."""

    jit: Any
    layers: tuple[Any, ...]

    @property
    def autotuner(self) -> Any:
        tuners = [layer for layer in self.layers if _is_autotuner(layer)]
        if len(tuners) > 1:
            raise ParameterError(
                f"{self.jit.__name__} is decorated with @triton.autotune {len(tuners)} times; irscope reads one"
            )
        return tuners[0] if tuners else None

    def heuristics(self) -> list[tuple[str, Any, bool]]:
        """``(name, function, outside the autotuner)`` for every heuristic, in the order Triton runs them."""
        out: list[tuple[str, Any, bool]] = []
        outside = True
        for layer in self.layers:
            if _is_autotuner(layer):
                outside = False
            else:
                out.extend((name, fn, outside and self.autotuner is not None) for name, fn in layer.values.items())
        return out

    def tuned_names(self) -> set[str]:
        """What the autotuner's config sets: its kwargs, and every launch option."""
        tuner = self.autotuner
        if tuner is None:
            return set()
        return {n for c in tuner.configs for n in c.kwargs} | set(LAUNCH_OPTIONS)

    # ------------------------------------------------------------------ heuristics

    def resolve(
        self, kernel: str, args: Mapping[str, Any], kwargs: Mapping[str, Any], unknown: Iterable[str] = ()
    ) -> dict[str, Any]:
        """``kwargs`` (a config's constexprs and options) with every heuristic's value added.

        As Triton's wrappers call one another: a heuristic outside the autotuner
        sees the arguments and the kwargs a caller passes, one inside it also the
        config's values; a later heuristic sees the earlier ones' values.
        """
        tuned = self.tuned_names()
        current = {k: v for k, v in kwargs.items() if k not in tuned}
        for layer in self.layers:
            if _is_autotuner(layer):
                clash = sorted(set(current) & {n for c in layer.configs for n in c.kwargs})
                if clash:  # Triton: "Conflicting meta-parameters"
                    raise ParameterError(
                        f"{clash[0]} of {kernel} is set both by @triton.heuristics (outside "
                        "@triton.autotune) and by the autotuner's configs; Triton refuses that too"
                    )
                current.update({k: v for k, v in kwargs.items() if k in tuned})
                continue
            for name, fn in layer.values.items():
                values = Arguments({**args, **current}, unknown)
                current[name] = _evaluate(kernel, name, fn, values, tuned - set(current))
        return current

    def resolve_for(
        self, kernel: TritonKernel, config: Config, kwargs: Mapping[str, Any], tensors: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """``resolve`` on ``config``'s example arguments (see example_arguments; ``tensors``: a launch's)."""
        args, unknown = example_arguments(kernel, config, tensors)
        return self.resolve(kernel.name, args, kwargs, unknown)

    def launcher(self) -> Any:
        """The ``JITFunction``, made to set its heuristics on every launch (as ``Heuristics.run`` does)."""
        if not any(not _is_autotuner(layer) for layer in self.layers):
            return self.jit
        cls = _launcher_class()
        fn = cls.__new__(cls)
        fn.__dict__.update(self.jit.__dict__)  # the same function; only ``run`` differs
        # Its own per-device caches: the copied ones would build binders (and set ``ASTSource``,
        # ``compile``...) on the original function rather than on this one.
        fn.device_caches = collections.defaultdict(fn.create_binder)
        fn.irscope_tuning = self
        return fn

    # ------------------------------------------------------------------ the parameter table

    def table(self, kernel: TritonKernel, base: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """``base`` (what the spec or signature gives) with the autotuner's configs and the heuristics' names.

        Autotuned names get a ``configs`` column (their value in each config, in
        order), which makes ``sweep_configs`` sweep exactly those configs; names a
        heuristic sets are of kind ``heuristic`` (never set with -c, as Triton
        overrides them); with ``prune_configs_by`` a ``mark`` column says which
        configs Triton would drop for the default example arguments.
        """
        table = {n: dict(p) for n, p in base.items()}
        given, where = _given(kernel)
        heuristic_names = [name for name, _, _ in self.heuristics()]
        for name in heuristic_names:
            if name in given:
                raise ParameterError(f"{name} of {kernel.name} is set by @triton.heuristics; leave it out of {where}")
            if name not in {p.name for p in self.jit.params if p.is_constexpr}:
                raise ParameterError(
                    f"@triton.heuristics of {kernel.name} sets {name!r}, which is not a tl.constexpr "
                    "parameter of the kernel"
                )
        tuner = self.autotuner
        if tuner is not None:
            columns = self._columns(kernel, table)
            for name in columns:
                if name in given:
                    raise ParameterError(
                        f"{name} of {kernel.name} is set by @triton.autotune's configs; "
                        f"leave it out of {where} (pick configs with -c/-s)"
                    )
            inner = {n for n, _, outside in self.heuristics() if not outside}
            columns = {n: c for n, c in columns.items() if n not in inner}  # the heuristic overrides the config
            flags, why = self._pruned(kernel, table)
            default = next((i for i, f in enumerate(flags) if f is False), 0) if flags else 0
            for name, (kind, column) in columns.items():
                table[name] = {
                    "default": column[default],
                    "sweep": distinct(column),
                    "kind": kind,
                    "configs": list(column),
                }
            if flags is not None:
                mark = PRUNED if PRUNED not in table else f"autotune_{PRUNED}"
                table[mark] = {
                    "default": flags[default],
                    "sweep": distinct(flags),
                    "kind": "mark",
                    "configs": flags,
                    **({"why": why} if why else {}),
                }
        for name in heuristic_names:
            table[name] = {"default": None, "sweep": [None], "kind": "heuristic"}
        return table

    def _columns(self, kernel: TritonKernel, base: Mapping[str, dict[str, Any]]) -> dict[str, tuple[str, list]]:
        """Each autotuned name's kind and value per config (a value a config leaves out: the default)."""
        configs = self.autotuner.configs
        constexprs = {p.name: p for p in self.jit.params if p.is_constexpr}
        params = {p.name for p in self.jit.params}
        out: dict[str, tuple[str, list]] = {}
        for i, c in enumerate(configs):
            if getattr(c, "ir_override", None):
                raise ParameterError(
                    f"config {i} of {kernel.name}'s @triton.autotune sets ir_override, which irscope cannot apply"
                )
            for name in c.kwargs:
                if name not in constexprs:
                    what = "not a tl.constexpr parameter" if name in params else "not a parameter"
                    raise ParameterError(
                        f"config {i} of {kernel.name}'s @triton.autotune sets {name!r}, {what} "
                        "of the kernel; irscope sweeps constexprs and launch options"
                    )
                if name not in out:
                    p = constexprs[name]
                    fallback = base[name]["default"] if name in base else p.default if p.has_default else None
                    out[name] = ("constexpr", [x.kwargs.get(name, fallback) for x in configs])
        options = {
            "num_warps": [c.num_warps for c in configs],
            "num_stages": [c.num_stages for c in configs],
            "num_ctas": [c.num_ctas for c in configs],
            "maxnreg": [c.maxnreg for c in configs],
        }
        # A triton.Config always has all four; num_ctas=1 and no maxnreg are what a launch gets anyway,
        # so those two are swept only where some config sets them otherwise.
        defaults = {"num_ctas": (None, 1), "maxnreg": (None,)}
        for name, column in options.items():
            if name not in defaults or any(v not in defaults[name] for v in column):
                # a kernel parameter of the option's name gets the config's value too (Config.all_kwargs)
                out[name] = ("constexpr" if name in constexprs else "option", column)
        return out

    def _pruned(self, kernel: TritonKernel, table: Mapping[str, dict[str, Any]]) -> tuple[list | None, str]:
        """Which configs ``prune_configs_by`` drops for the default example arguments, as Triton applies it.

        ``None`` without prune settings; ``[None, ...]`` (unknown) with the reason
        when it cannot be evaluated here (an argument -S gives only as a type, a
        prune function that wants a GPU).
        """
        tuner = self.autotuner
        if tuner.early_config_prune is None and tuner.perf_model is None:
            return None, ""
        configs = list(tuner.configs)
        first = configs[0]
        defaults = {
            kind: {n: p["default"] for n, p in table.items() if p["kind"] == kind}
            for kind in ("constexpr", "option", "size", "argument")
        }
        user = {**defaults["constexpr"], **first.kwargs}
        options = {
            n: v
            for n, v in {**defaults["option"], "num_warps": first.num_warps, "num_stages": first.num_stages}.items()
            if v is not None
        }
        try:
            given = {n: v for n, v in defaults["argument"].items() if v is not None}  # a recorded launch's
            args, unknown = example_arguments(kernel, Config(user, options, {**defaults["size"], **given}))
            # The kwargs the autotuner is called with: the caller's and those of heuristics outside it.
            outer = Tuning(self.jit, self.layers[: self.layers.index(tuner)] + (tuner,))
            kwargs = {
                k: v for k, v in outer.resolve(kernel.name, args, user, unknown).items() if k not in self.tuned_names()
            }
            nargs = Arguments(args, unknown)
            kept = configs
            if tuner.early_config_prune:
                kept = tuner.early_config_prune(configs, nargs, **kwargs)
                if not kept:
                    raise ValueError("early_config_prune kept no config (Triton's autotuner fails on that)")
            if tuner.perf_model:
                top_k = top_k_count(tuner.configs_top_k, len(configs), len(kept))
                if len(kept) > top_k:
                    est = {c: tuner.perf_model(**nargs, **kwargs, **c.all_kwargs()) for c in kept}
                    kept = sorted(est, key=lambda c: est[c])[:top_k]
        except UnknownValue as exc:
            return [None] * len(configs), (
                f"prune_configs_by reads {exc.args[0]}, whose value -S does not give (-c {exc.args[0]}=VALUE does)"
            )
        except Exception as exc:
            return [None] * len(configs), f"prune_configs_by raised {_said(exc)}"
        return [not any(_same(c, k) for k in kept) for c in configs], ""


def _same(a: Any, b: Any) -> bool:
    try:
        return a is b or a == b
    except Exception:
        return False


def distinct(values: Sequence[Any]) -> list[Any]:
    """``values`` once each, in order; 1 and True are two values (a config may set either)."""
    out: list[Any] = []
    for v in values:
        if not any(v is w or (type(v) is type(w) and v == w) for w in out):
            out.append(v)
    return out


def _given(kernel: TritonKernel) -> tuple[set[str], str]:
    """The constexprs the user's spec or signature sets, and where that is."""
    if kernel.spec is not None:
        return set(kernel.spec.constexprs), "the KernelSpec's constexprs"
    sig = kernel.signature or ()
    given = {
        p.name
        for p in kernel.fn.params
        if p.is_constexpr and p.num < len(sig) and sig[p.num].type is None and sig[p.num].value is not None
    }
    return given, "the -S signature (write - for it)"


def example_arguments(
    kernel: TritonKernel, config: Config, tensors: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], frozenset[str]]:
    """The positional arguments Triton zips with the parameter names for heuristics and pruning.

    With a KernelSpec: its arguments, on ``tensors`` (a launch's), else on CPU torch
    tensors (so a heuristic that reads ``.dtype`` sees a torch dtype), else on
    irscope's stand-ins when torch is not installed. With -S: what the signature
    fixes (constants, ``:1``) and the example values ``-c`` gives its other scalars; every
    other argument is unknown.
    """
    names = kernel.fn.arg_names
    if kernel.spec is not None:
        if tensors is None:
            try:
                ns = example_namespace(kernel, config, device="cpu")
            except ImportError:  # no torch installed
                ns = kernel.spec.namespace(config.values(), example_tensors(kernel, config))
        else:
            ns = kernel.spec.namespace(config.values(), tensors)
        return dict(zip(names, kernel.spec.args(ns))), frozenset()
    known, unknown = {}, set()
    for param, arg in zip(kernel.fn.params, kernel.signature or ()):
        if param.is_constexpr:
            continue
        if arg.hint == 1:
            known[param.name] = 1
        elif arg.type is None:
            known[param.name] = arg.value
        elif config.sizes.get(param.name) is not None:  # -c NAME=VALUE: a launch's value
            known[param.name] = config.sizes[param.name]
        else:
            unknown.add(param.name)
    return known, frozenset(unknown)


def check_heuristics(kernel: TritonKernel, config: Config) -> None:
    """Refuse, in one line, a -S config whose heuristics read an argument it gives no value for.

    Every config the autotuner lists is tried with ``config``'s example argument values
    (``-c NAME=VALUE``), as each may take another path through the heuristics.
    """
    if not any(not _is_autotuner(layer) for layer in kernel.tuned.layers):
        return
    table = kernel.parameter_table()
    columns = {n: p["configs"] for n, p in table.items() if p["kind"] in ("constexpr", "option") and "configs" in p}
    count = len(next(iter(columns.values()))) if columns else 1
    args, unknown = example_arguments(kernel, config)
    given = {**config.constexprs, **config.options}
    for i in range(count):
        kwargs = {**given, **{n: c[i] for n, c in columns.items()}}
        try:
            kernel.tuned.resolve(kernel.name, args, {k: v for k, v in kwargs.items() if v is not None}, unknown)
        except UnknownArgument:
            raise
        except ParameterError:  # another fault of the heuristic: the compile says so if it still fails
            pass


def _evaluate(kernel: str, name: str, fn: Any, args: Arguments, hidden: set[str]) -> Any:
    try:
        return fn(args)
    except UnknownValue as exc:
        raise UnknownArgument(
            f"@triton.heuristics value {name} of {kernel} reads {exc.args[0]}, whose value -S "
            f"does not give (only its type); give a launch's value with -c {exc.args[0]}=VALUE "
            "(it stays a runtime argument), or declare a KernelSpec with example arguments"
        ) from None
    except KeyError as exc:
        if exc.args and exc.args[0] in hidden:
            raise ParameterError(
                f"@triton.heuristics value {name} of {kernel} reads {exc.args[0]}, which the "
                "autotuner sets: a heuristic outside @triton.autotune runs before a config is "
                "chosen (Triton raises KeyError too)"
            ) from None
        raise ParameterError(f"@triton.heuristics value {name} of {kernel} raised {_said(exc)}") from None
    except Exception as exc:
        raise ParameterError(f"@triton.heuristics value {name} of {kernel} raised {_said(exc)}") from None


def _said(exc: BaseException) -> str:
    try:
        return exception_line(exc)
    except Exception:
        return type(exc).__name__


@functools.cache
def _launcher_class() -> Any:
    from triton.runtime.jit import JITFunction  # a second to import: only once a kernel has heuristics

    class HeuristicsJITFunction(JITFunction):
        """A ``JITFunction`` whose launches add the heuristics' values, as Triton's ``Heuristics.run`` does."""

        irscope_tuning: Tuning

        def run(self, *args, grid, warmup, **kwargs):
            tuning = self.irscope_tuning
            kwargs = tuning.resolve(self.__name__, dict(zip(self.arg_names, args)), kwargs)
            return super().run(*args, grid=grid, warmup=warmup, **kwargs)

    return HeuristicsJITFunction
