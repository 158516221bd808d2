"""irscope runs on every Triton from 3.5 to 3.9: the supported range, and each adapter of
``frontends/triton/versions.py`` against what the installed Triton really does.

Run under each release (issue 29): the tests assert the running Triton's behaviour, whichever it is.
"""

from __future__ import annotations

import inspect
import os
import re
import textwrap
from pathlib import Path

import pytest
import triton
import triton.language as tl
from packaging.requirements import Requirement

from irscope.errors import ExitCode, UsageError
from irscope.frontends.triton import versions

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)

REPO = Path(__file__).resolve().parent.parent
SUPPORTED = ["3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0"]
OLDER = ["3.4.0", "2.3.1"]
NEWER = ["3.10.0", "4.0.0"]  # untested: installable beside a newer torch, and said so once


def _triton_requirement() -> Requirement:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return next(r for r in map(Requirement, project["dependencies"]) if r.name == "triton")


def test_pyprojects_dependency_admits_the_supported_releases_and_newer_ones():
    """No cap (issue 47): with triton<3.10, pip picked an older torch once a newer one needed Triton 3.10."""
    requirement = _triton_requirement()
    assert [v for v in OLDER + SUPPORTED + NEWER if requirement.specifier.contains(v)] == SUPPORTED + NEWER
    # the line check_supported tells the user to install, and the range it checks
    assert requirement.specifier == Requirement(versions.REQUIREMENT).specifier


@pytest.mark.parametrize("version", SUPPORTED + ["3.9.0+git1a2b3c4", "3.6.0rc1"])
def test_a_supported_release_is_accepted(version):
    assert versions.check_supported(version) == version


@pytest.mark.parametrize("version", NEWER)
def test_a_newer_untested_release_runs_and_says_so_in_one_line_once(version, monkeypatch, capsys):
    monkeypatch.delenv(versions.UNTESTED_SAID, raising=False)
    assert versions.check_supported(version) == version
    assert versions.check_supported(version) == version
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and f"triton {version} is newer" in said and "tested with (3.5 to 3.9)" in said
    assert os.environ[versions.UNTESTED_SAID] == "1"  # the workers it starts say nothing


@pytest.mark.parametrize("version", OLDER + ["nightly"])
def test_an_unsupported_release_is_refused_in_one_line_naming_it_and_the_range(version):
    with pytest.raises(UsageError) as caught:
        versions.check_supported(version)
    message = str(caught.value)
    assert "\n" not in message
    assert version in message and "3.5 to 3.9" in message and versions.REQUIREMENT in message
    assert caught.value.exit_code == ExitCode.USAGE  # as a missing optional dependency: the user installs


def test_the_running_triton_is_supported_and_its_version_is_tritons_own():
    assert versions.triton_version() == triton.__version__
    assert versions.check_supported() == triton.__version__
    assert (3, 5) <= versions.release() < (3, 10)


# --- A ----------------------------------------------------------------------------------------------------


def test_the_jit_run_options_are_those_jitfunction_run_adds_from_the_knobs():
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.runtime.jit import JITFunction

    added = re.findall(r'kwargs\["(\w+)"\] = knobs\.compilation\.(\w+)', inspect.getsource(JITFunction.run))
    ours = versions.jit_run_kwargs()
    assert sorted(ours) == sorted(name for name, knob in added if name == knob)
    assert ours == {name: getattr(knobs.compilation, name) for name in ours}
    options = make_backend(GPUTarget("cuda", 90, 32)).parse_options({**ours, "enable_fp_fusion": True})
    assert all(getattr(options, name) == value for name, value in ours.items())


# --- B ----------------------------------------------------------------------------------------------------


@triton.jit
def _pointers(x_ptr: tl.const, y_ptr):
    pass


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int8", "uint8", "float8_e4m3fn"])
def test_a_pointers_type_is_the_jit_binders(dtype):
    torch = pytest.importorskip("torch")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    fn = _pointers
    tensor = torch.empty(4, dtype=getattr(torch, dtype))
    binder = create_function_from_signature(fn.signature, fn.params, make_backend(GPUTarget("cuda", 90, 32)))
    _, specialization, _ = binder(tensor, tensor)
    assert [kind for kind, _ in specialization] == [
        versions.ptr_type(tensor.dtype, True),
        versions.ptr_type(tensor.dtype, False),
    ]
    assert specialization[0][0].startswith("*k") and not specialization[1][0].startswith("*k")


# --- C and D: a real compile through the hook -------------------------------------------------------------


def _square_source(arch: int | str = 90):
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config
    from irscope.frontends.triton.kernel import TritonKernel
    from irscope.frontends.triton.specialize import specialize

    ref = resolve_kernel("square_kernel")
    assert isinstance(ref, TritonKernel)
    src, options, _, _ = specialize(ref, resolve_config(ref, {"BLOCK_SIZE": 256}), arch)
    return src, options


class _Watcher:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, list[str]]] = []
        self.ran: list[str] = []

    def __call__(self, backend, stages, options, language, capability):
        self.calls.append((type(backend).__name__, capability, list(stages)))
        for name, run in list(stages.items()):
            stages[name] = lambda src, metadata, name=name, run=run: (self.ran.append(name), run(src, metadata))[1]


def _hook_left_as_it_was() -> bool:
    from triton import knobs
    from triton.backends.amd.compiler import HIPBackend
    from triton.backends.nvidia.compiler import CUDABackend

    return getattr(knobs.runtime, "add_stages_inspection_hook", None) is None and all(
        backend.add_stages.__qualname__ == f"{backend.__name__}.add_stages" for backend in (CUDABackend, HIPBackend)
    )


def test_the_stage_hook_sees_every_stage_of_a_real_compile_and_is_gone_afterwards(tmp_path):
    from triton import knobs
    from triton.backends.compiler import GPUTarget

    src, options = _square_source()
    watcher = _Watcher()
    with knobs.cache.scope():
        knobs.cache.dir = str(tmp_path)  # a fresh cache: Triton compiles, and runs every stage
        with versions.install_stage_hook(watcher):
            compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options)
    assert watcher.calls == [("CUDABackend", 90, ["ttir", "ttgir", "llir", "ptx", "cubin"])]
    assert watcher.ran == ["ttir", "ttgir", "llir", "ptx", "cubin"]
    assert compiled.asm["cubin"][:4] == b"\x7fELF"
    assert _hook_left_as_it_was()


def test_the_stage_hook_sees_every_stage_of_an_amd_compile_too(tmp_path):
    """The HIP backend calls the hook as NVIDIA's does (3.6 on through the knob, with no capability; 3.5
    through its wrapped add_stages), so an AMD compile names its failing stage and records its passes."""
    from triton import knobs
    from triton.backends.compiler import GPUTarget

    src, options = _square_source("gfx942")
    watcher = _Watcher()
    with knobs.cache.scope():
        knobs.cache.dir = str(tmp_path)
        with versions.install_stage_hook(watcher):
            compiled = triton.compile(src, target=GPUTarget("hip", "gfx942", 64), options=options)
    assert watcher.calls == [("HIPBackend", None, ["ttir", "ttgir", "llir", "amdgcn", "hsaco"])]
    assert watcher.ran == ["ttir", "ttgir", "llir", "amdgcn", "hsaco"]
    assert compiled.asm["hsaco"][:4] == b"\x7fELF"
    assert _hook_left_as_it_was()


def test_the_hook_leaves_tritons_cache_key_as_it_was(tmp_path):
    """Triton 3.7 on adds what the hook returns when called bare to its cache key: nothing, here. So a
    kernel compiled without the hook is a cache hit with it (no stage runs), and a failed compile's stages
    are found in the cache folder of the key irscope computes without the hook."""
    from triton import knobs
    from triton.backends.compiler import GPUTarget

    src, options = _square_source()
    target = GPUTarget("cuda", 90, 32)
    with knobs.cache.scope():
        knobs.cache.dir = str(tmp_path)
        triton.compile(src, target=target, options=options)
        watcher = _Watcher()
        with versions.install_stage_hook(watcher):
            again = triton.compile(src, target=target, options=options)
    assert watcher.ran == [] and again.asm["ptx"]
    from irscope.frontends.triton.compile import _read_partial_stages
    from irscope.frontends.triton.kernel import TritonKernel

    with knobs.cache.scope():
        knobs.cache.dir = str(tmp_path)
        partial = _read_partial_stages(src, target, options, TritonKernel.asm_stages)
    assert sorted(partial) == ["llir", "ptx", "ttgir", "ttir"] and partial["ptx"] == again.asm["ptx"]


def test_irscopes_tracker_keeps_ptxas_log_and_ptxas_path_is_the_ptxas_triton_ran(tmp_path):
    from triton import knobs
    from triton.backends.compiler import GPUTarget

    from irscope.frontends.triton.compile import _StageTracker
    from irscope.nvidia.ptxas import parse_ptxas_log, run_ptxas_report

    src, options = _square_source()
    tracker = _StageTracker()
    with knobs.cache.scope():
        knobs.cache.dir = str(tmp_path)
        with versions.install_stage_hook(tracker):
            compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options)
    assert tracker.stage == "cubin"
    theirs = parse_ptxas_log(tracker.ptxas_log or "")
    assert theirs["registers"] > 0
    path = versions.ptxas_path(90)
    assert Path(path).is_file()
    ours = parse_ptxas_log(run_ptxas_report(compiled.asm["ptx"], 90, path))
    assert ours == theirs


# --- F ----------------------------------------------------------------------------------------------------


def test_a_constexprs_attr_is_what_the_jit_gives_one():
    torch = pytest.importorskip("torch")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    from irscope.frontends import resolve_kernel

    fn = resolve_kernel("square_kernel").fn
    backend = make_backend(GPUTarget("cuda", 90, 32))
    x = torch.empty(64, 64)
    bound, specialization, _ = create_function_from_signature(fn.signature, fn.params, backend)(
        x, x, 64, 64, 64, BLOCK_SIZE=64
    )
    _, _, _, attrs = fn._pack_args(backend, {"BLOCK_SIZE": 64}, bound, specialization, {})
    block_size = (fn.arg_names.index("BLOCK_SIZE"),)
    assert attrs.get(block_size) == versions.constexpr_attr()


# --- H: the autotuner, run for real on the stand-in driver (no GPU: its benchmarker times nothing) --------

TUNED = textwrap.dedent("""\
    import triton
    import triton.language as tl

    from irscope.spec import KernelSpec, Tensor


    def keep_two(configs, named_args, **kwargs):
        return configs[:2]


    def keep_one(configs, named_args, **kwargs):
        return configs[:1]


    def by_block(BLOCK, **kwargs):
        return BLOCK


    CONFIGS = [triton.Config({"BLOCK": b}, num_warps=4) for b in (64, 128, 256, 512)]


    # A fraction of all four configs (3.5 to 3.8: 2) or of the two the early prune kept (3.9: 1).
    @triton.autotune(configs=CONFIGS, key=["n"],
                     prune_configs_by={"early_config_prune": keep_two, "perf_model": by_block, "top_k": 0.5})
    @triton.jit
    def top_k_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


    @triton.autotune(configs=CONFIGS[:2], key=["n"], prune_configs_by={"early_config_prune": keep_one})
    @triton.jit
    def one_left_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


    def _spec(kernel):
        return KernelSpec(
            kernel,
            sizes=dict(n=640),
            tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True)),
            args=lambda k: (k.x, k.y, k.n),
            grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
        )


    top_k = _spec(top_k_kernel)
    one_left = _spec(one_left_kernel)
""")


@pytest.fixture(scope="module")
def tuned(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("versions") / "tuned.py"
    path.write_text(TUNED)
    return path


def test_top_k_marks_the_configs_tritons_own_prune_drops(tuned):
    from irscope.frontends import resolve_kernel

    ref = resolve_kernel(f"{tuned}:top_k_kernel")
    tuner = ref.tuning.autotuner
    tuner.nargs = {"x_ptr": None, "y_ptr": None, "n": 640}
    try:
        kept = tuner.prune_configs({})  # Triton's own rule
    finally:
        tuner.nargs = None
    assert len(kept) == versions.top_k_count(0.5, 4, 2) == (2 if versions.release() < (3, 9) else 1)
    marks, why = ref.tuning._pruned(ref, ref.parameter_table())
    assert why == "" and marks == [not any(c is k for k in kept) for c in tuner.configs]


def test_a_prune_that_keeps_one_config_is_timed_as_the_running_triton_does(tuned):
    torch = pytest.importorskip("torch")
    from irscope.frontends import resolve_kernel
    from irscope.frontends.triton.gpu_free import gpu_free_import
    from irscope.frontends.triton.tuner import read_run

    ref = resolve_kernel(f"{tuned}:one_left_kernel")
    tuner = ref.tuning.autotuner
    tuner.cache.clear()
    tuner.__dict__.pop("configs_timings", None)
    x = torch.empty(640, device="meta")
    with gpu_free_import(90) as launches:
        ref.tuning.layers[0][lambda meta: (triton.cdiv(640, meta["BLOCK"]),)](x, x, 640)
    assert [launch.constants["BLOCK"] for launch in launches] == [64]  # the kept config, launched once
    timed = isinstance(getattr(tuner, "configs_timings", None), dict)
    assert timed == versions.lone_pruned_config_is_timed() == (versions.release() < (3, 8))
    run = read_run(tuner, {"n": 640})
    assert run.picked == 0 and [c.pruned for c in run.configs] == [False, True]
    assert run.benchmarked == timed
    assert (run.configs[0].ms is not None) == timed  # the stand-in driver's benchmarker gives 0.0
