"""A Triton kernel as irscope sees it: a ``@triton.jit`` function, its file, and how to build its inputs.

A kernel either has a ``KernelSpec`` (sizes, example tensors, tunables, a torch
reference) or a ``-S`` signature (signature.py); kernel_files.py finds both in a file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ...arch import CaptureMode, Target, Vendor
from ...errors import ParameterError, UsageError
from ...records import AutotunerRun
from ...spec import KernelSpec
from ...stages import Stage
from ...types import Config, KernelId
from ..base import Compiled, Kernel, KernelHandle, Launch
from .autotune import Tuning, check_heuristics, unwrap
from .compile import STAGES, compile_aot, compile_jit, triton_cache_for
from .environments import site_for
from .inputs import example_namespace, launch_arguments
from .options import TRITON_DEFAULT_OPTIONS, TRITON_OPTION
from .replay import launch_key, replay
from .signature import SignatureArg, takes_example_value
from .specialize import launch_signature
from .tuner import run_autotuner

# Environment variables that change what Triton generates (see triton/knobs.py).
CODEGEN_ENV = (
    "TRITON_F32_DEFAULT",
    "TRITON_DEFAULT_FP_FUSION",
    "TRITON_DISABLE_LINE_INFO",
    "TRITON_OVERRIDE_ARCH",
    "TRITON_DEBUG",
    "TRITON_INSTRUMENTATION_MODE",
    "TRITON_KERNEL_OVERRIDE",
    "TRITON_OVERRIDE_DIR",
    "TRITON_ENABLE_ASAN",
    "TRITON_LIBDEVICE_PATH",
    "TRITON_PTXAS_PATH",
    "TRITON_PTXAS_BLACKWELL_PATH",
    "TRITON_MOCK_PTX_VERSION",
    "DISABLE_PTXAS_OPT",
    "PTXAS_OPTIONS",
    "LLVM_EXTRACT_DI_LOCAL_VARIABLES",
    "TRITON_NVDISASM_PATH",
    "USE_IR_LOC",
)


def _amd_knob_variables() -> tuple[str, ...]:
    """The variables behind Triton's AMD knobs (``AMDGCN_USE_BUFFER_OPS``...), from Triton's own knob table:
    the HIP backend reads them in Python, so the C++ list of cache-invalidating variables leaves them out."""
    from triton import knobs

    amd = getattr(knobs, "amd", None)
    table = vars(type(amd)) if amd is not None else {}
    return tuple(k for k in (getattr(v, "key", None) for v in table.values()) if isinstance(k, str))


class TritonKernel(Kernel):
    """A resolved Triton kernel: the JIT function, where it lives and how to build its inputs."""

    frontend = "triton"
    stages = (Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS, Stage.AMDGCN)
    vendors = (Vendor.NVIDIA, Vendor.AMD)
    # Triton's asm keys -> the stages they hold (a language built on Triton's compiler adds its own: Gluon's).
    asm_stages: dict[str, Stage] = STAGES

    def __init__(
        self,
        fn: Any,
        file: str,
        spec: KernelSpec | None = None,
        signature: tuple[SignatureArg, ...] | None = None,
        *,
        source_text: str | None = None,
        inductor: bool = False,
    ) -> None:
        # fn may be wrapped by @triton.autotune / @triton.heuristics: those are kept in ``tuning``, and ``fn`` is
        # the JITFunction inside (made to apply the heuristics when it is launched).
        self.tuning = unwrap(fn)
        self.fn = fn if self.tuning is None else self.tuning.launcher()  # triton.runtime.jit.JITFunction
        self.name = self.fn.fn.__name__
        self.file = file
        self.spec = spec
        self.signature = signature
        # Set for a kernel rebuilt from text (rebuild.py): its source is this text, not the file's.
        self.source_text = source_text
        self.inductor = inductor  # rebuilt with the modules Inductor's kernels use: Inductor generated it
        # What a program recorded the kernel reads beyond its file (closure.py), for a kernel rebuilt from text:
        # {"texts": {file: text}, "scopes": {file: {name: binding}}}.
        self.closure: dict[str, Any] | None = None
        self.module: str | None = None  # named by its module (``liger_kernel.ops.rms_norm``): imported by that name
        # The file irscope imported to find it, where that is not the kernel's own: a spec file that imports a
        # library's kernel (``file`` is then the kernel's file, its source and line numbers the kernel's own).
        self.found_in: str | None = None
        # Rebuilt with its heuristics' values taken from the configs a program ran (irscope run), not evaluated.
        self.recorded_heuristics = False
        # The launches a program made of it (irscope run), by replay.launch_key: bench reruns those.
        self.recorded_launches: dict[str, Any] = {}
        # Defaults a file's own launch gave (kernel_files.py): they replace the table's declared ones.
        self.defaults: dict[str, Any] = {}
        self._inputs: dict[tuple, Any] = {}  # filled example tensors, per size
        self._expected: tuple[tuple, Any] | None = None  # the reference's outputs for the last config asked
        self._tuned_table: dict[str, dict[str, Any]] | None = None  # prune_configs_by runs once

    def __repr__(self) -> str:
        return f"TritonKernel({self.name!r}, {self.file!r})"

    def identity(self) -> KernelId:
        return KernelId(self.name, self.file, self.fn.cache_key)

    @property
    def generated_by(self) -> str:
        return "inductor" if self.inductor else ""

    def handle(self) -> KernelHandle:
        extra: dict[str, Any] = {} if self.signature is None else {"signature": [a.to_json() for a in self.signature]}
        if self.source_text is not None:  # a worker rebuilds it from the text too, never from the file
            extra.update(source_text=self.source_text, inductor=self.inductor)
            if self.recorded_heuristics:
                extra["heuristics"] = "recorded"
            if self.closure:
                extra["closure"] = self.closure
        if self.recorded_launches:
            extra["launches"] = self.recorded_launches
        if self.module is not None:
            extra["module"] = self.module
        return KernelHandle(self.frontend, self.found_in or self.file, self.name, extra)

    def source(self) -> str:
        return self.source_text if self.source_text is not None else super().source()

    def source_type(self) -> Any:
        """The class Triton compiles this kernel's function from (``ASTSource``; Gluon's ``GluonASTSource``)."""
        from triton.compiler import ASTSource

        return ASTSource

    def constexpr_values(self, config: Config) -> dict[str, Any]:
        """The constexprs as the kernel is compiled with them (a config holds them as data: Gluon's layouts are
        text, made into layout objects here)."""
        return dict(config.constexprs)

    def constexpr_names(self) -> list[str]:
        return [p.name for p in self.fn.params if p.is_constexpr]

    def def_line(self) -> int:
        """The line of the ``def`` (Triton's own line numbers start there)."""
        offset = next((i for i, line in enumerate(self.fn.raw_src) if line.lstrip().startswith("def ")), 0)
        return self.fn.starting_line_number + offset

    def parameter_table(self) -> dict[str, dict[str, Any]]:
        if self.tuning is not None:  # the autotuner's configs and the heuristics' names (see autotune.py)
            if self._tuned_table is None:
                self._tuned_table = self.tuning.table(self, self._declared_table())
            return {n: dict(p) for n, p in self._tuned_table.items()}
        return self._declared_table()

    def _declared_table(self) -> dict[str, dict[str, Any]]:
        """Constexprs, launch options and sizes (a spec's) or example argument values (``-S``'s ``argument``).

        A constexpr named like a launch option (``num_stages``) is one name: Triton passes a
        launch's ``num_stages=K`` to the kernel's parameter and reads the compile option from the
        same keyword (``JITFunction._pack_args``), so ``-c num_stages=K`` sets both.
        """
        constexprs = set(self.constexpr_names())
        if self.spec is not None:
            table = {
                n: {"default": t.default, "sweep": list(t.values()), "kind": "constexpr"}
                for n, t in self.spec.options().items()
                if n in constexprs
            }
            table.update(
                {
                    n: {"default": t.default, "sweep": list(t.values()), "kind": "constexpr"}
                    for n, t in self.spec.constexprs.items()
                }
            )
            table.update(
                {
                    n: {"default": t.default, "sweep": list(t.values()), "kind": "option"}
                    for n, t in self.spec.options().items()
                    if n not in constexprs
                }
            )
            table.update({n: {"default": v, "sweep": [v], "kind": "size"} for n, v in self.spec.sizes.items()})
            return table
        table = {}
        sig = self.signature or ()
        for p in self.fn.params:
            arg = sig[p.num] if p.num < len(sig) else None
            if p.is_constexpr:
                given = arg.value if arg is not None and arg.type is None else None
                default = given if given is not None else (p.default if p.has_default else None)
                table[p.name] = {"default": default, "sweep": [default], "kind": "constexpr"}
                if default is None and ((arg is not None and arg.none) or (p.has_default and p.default is None)):
                    table[p.name]["none"] = True  # None is its value (-S None, or its def's default)
            elif arg is not None and takes_example_value(arg):
                # -c NAME=VALUE: the value a launch would pass, for the heuristics and the JIT's specialization
                table[p.name] = {"default": None, "sweep": [None], "kind": "argument"}
        table.update(
            {
                n: {"default": v, "sweep": [v], "kind": "option"}
                for n, v in TRITON_DEFAULT_OPTIONS.items()
                if n not in table
            }
        )
        for name, value in self.defaults.items():
            if name in table and (table[name]["kind"] != "constexpr" or table[name]["default"] is None):
                table[name].update(default=value, sweep=[value])
        return table

    def check_config(self, config: Config) -> None:
        """A -S kernel: each example argument value fits its -S type, and the heuristics have what they read."""
        if self.spec is not None:
            return
        launch_signature(self, config)
        if self.tuning is not None:
            check_heuristics(self, config)

    def cache_material(self) -> dict[str, Any]:
        import triton  # a second to import: only once a kernel is compiled or looked up in the cache
        from triton._C.libtriton import get_cache_invalidating_env_vars

        env = {k: os.environ[k] for k in CODEGEN_ENV + _amd_knob_variables() if k in os.environ}
        env.update(get_cache_invalidating_env_vars())
        return {
            "env": sorted(env.items()),
            "file_sha": _file_sha(self.file) if self.source_text is None else _text_sha(self.source_text),
            # a rebuilt kernel's helpers and globals, as recorded: another helper text is another compile
            **({"closure": _text_sha(json.dumps(self.closure, sort_keys=True))} if self.closure else {}),
            "triton_hash": self.fn.cache_key,  # Triton's dependency hash: helpers in other files count too
            "signature": None if self.signature is None else [a.to_json() for a in self.signature],
            "triton": triton.__version__,
        }

    def compile(self, config: Config, target: Target) -> Compiled:
        if target.mode is CaptureMode.JIT and self.spec is not None:
            return compile_jit(self, config)
        return compile_aot(self, config, _compile_arch(target))

    def import_first(self, config: Config, install: bool = True) -> str | None:
        version = config.options.get(TRITON_OPTION)
        return None if version is None else site_for(version, install=install)

    @property
    def records_passes(self) -> bool:
        return True

    def compile_passes(self, config: Config, target: Target) -> Compiled:
        # Ahead of time on either machine: the JIT gives the same IR (tests/gpu/test_jit_equals_aot.py).
        return compile_aot(self, config, _compile_arch(target), passes=True)

    @property
    def description(self) -> str:
        return self.spec.description if self.spec is not None else ""

    @property
    def can_launch(self) -> bool:
        return self.spec is not None or bool(self.recorded_launches)

    def example_inputs(self, config: Config, device: str = "cuda", seed: int = 0) -> tuple[Any, Any]:
        """The namespace the spec's callables see for ``config``, on filled example tensors, and the
        outputs the reference expects of them (None: no reference).

        Tensors are kept per size; the reference is worked out again for each config, since it may read
        the config too (a polynomial of degree ``k.TERMS``): one kept per size for the first config would
        be the wrong answer for the others.
        """
        if self.spec is None:
            raise ParameterError(f"{self.name} declares no KernelSpec: no example inputs to launch it with")
        spec = self.spec
        key = (tuple(sorted(config.sizes.items())), device, seed)
        if key not in self._inputs:
            if len(self._inputs) > 2:  # keep GPU memory bounded across sizes
                self._inputs.clear()
            self._inputs[key] = example_namespace(self, config, device=device, fill=True, seed=seed)
        inputs = self._inputs[key]
        ns = spec.namespace(config.values(), {n: getattr(inputs, n) for n in spec.tensors})
        if self._expected is None or self._expected[0] != (key, config.key()):
            expected = spec.reference(ns) if spec.reference is not None else None
            if expected is not None and not isinstance(expected, (tuple, list)):
                expected = (expected,)
            self._expected = ((key, config.key()), expected)  # the last config's only: a launch reads it twice
        return ns, self._expected[1]

    @property
    def launch_spec(self) -> KernelSpec:
        """The KernelSpec a kernel that launches with example inputs has (``can_launch``); UsageError for one without."""
        if self.spec is None:
            raise UsageError(self.no_launch_reason())
        return self.spec

    @property
    def tuned(self) -> Tuning:
        """The decorators around the kernel (``@triton.autotune``, ``@triton.heuristics``): only where it has them."""
        if self.tuning is None:
            raise UsageError(f"{self.name} has no @triton.autotune or @triton.heuristics")
        return self.tuning

    def launch(self, config: Config, device: str = "cuda", seed: int = 0) -> Launch:
        if self.spec is None and self.recorded_launches:  # a program's kernel (irscope run): as it launched it
            return replay(self, config, self.recorded_launches.get(launch_key(config)), device, seed)
        ns, expected = self.example_inputs(config, device, seed)
        spec = self.launch_spec
        args, kwargs = launch_arguments(self, config, ns)
        grid = spec.grid(ns)
        fn = self.fn

        def first() -> Any:
            # Compiles through the JIT, from the Triton cache folder capture filled.
            with triton_cache_for(self.file):
                return fn[grid](*args, **kwargs)

        def run() -> Any:
            return fn[grid](*args, **kwargs)

        return Launch.from_spec(spec, config, ns, expected, first, run)

    def launch_binary(self, config: Config, binary: dict[str, Any], device: str = "cuda", seed: int = 0) -> Launch:
        from .binary import launch_binary

        return launch_binary(self, config, binary, device, seed)

    @property
    def autotuned(self) -> bool:
        return self.tuning is not None and self.tuning.autotuner is not None

    def run_autotuner(self, config: Config, device: str = "cuda", seed: int = 0) -> AutotunerRun:
        return run_autotuner(self, config, device, seed)


def _file_sha(path: str) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def _text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _compile_arch(target: Target) -> int | str:
    """What ``compile_aot`` compiles for: an NVIDIA capability, or an AMD processor's name."""
    return target.gfx if target.gfx is not None else target.nvidia_capability()
