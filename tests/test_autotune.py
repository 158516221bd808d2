"""Kernels under ``@triton.autotune`` and ``@triton.heuristics``, opened as Triton runs them.

The kernel files are written here (not built-ins), compiled for real: the sweep is
the autotuner's own list, heuristics get their value per config from the example
arguments, prune_configs_by marks configs, and the IR is Triton's own.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from expect import one_line_error

KERNELS = """
import triton
import triton.language as tl

from irscope.spec import KernelSpec, Tensor


def blocks_within_n(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK"] <= named_args["n"]]


def few_warps_for_a_tail(configs, named_args, **kwargs):
    # TAIL comes from the heuristic outside the autotuner: Triton passes it here as a kwarg.
    return [c for c in configs if not kwargs["TAIL"] or c.num_warps <= 2]


# Autotuner outside, heuristics inside: EVEN sees each config's BLOCK.
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64}, num_warps=1),
        triton.Config({"BLOCK": 128}, num_warps=2),
        triton.Config({"BLOCK": 256}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK": 1024}, num_warps=4, maxnreg=128),
    ],
    key=["n"],
    prune_configs_by={"early_config_prune": blocks_within_n},
)
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)
    else:
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


# Heuristics outside, autotuner inside: TAIL is worked out before a config is chosen.
@triton.heuristics({"TAIL": lambda args: args["n"] % 1024 != 0})
@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 128}, num_warps=2),
        triton.Config({"BLOCK": 256}, num_warps=4),
        triton.Config({"BLOCK": 512}, num_warps=8),
    ],
    key=["n"],
    prune_configs_by={"early_config_prune": few_warps_for_a_tail},
)
@triton.jit
def shift_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, TAIL: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if TAIL:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)
    else:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1)


def _spec(kernel):
    return KernelSpec(
        kernel,
        sizes=dict(n=640),
        tensors=dict(x=Tensor("float32", "n"), y=Tensor("float32", "n", output=True)),
        args=lambda k: (k.x, k.y, k.n),
        grid=lambda k: (triton.cdiv(k.n, k.BLOCK),),
    )


scale = _spec(scale_kernel)
shift = _spec(shift_kernel)
"""

# No KernelSpec: compiled from -S. WIDE needs only constexprs; the prune needs n, which -S does not give.
SIGNATURE_ONLY = """
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64, "ROWS": 4}, num_warps=2),
        triton.Config({"BLOCK": 128, "ROWS": 1}, num_warps=4),
        triton.Config({"BLOCK": 512, "ROWS": 1}, num_warps=4, num_stages=4),
    ],
    key=["n"],
    prune_configs_by={"early_config_prune": lambda configs, named_args, **kw: configs[: named_args["n"] // 256]},
)
@triton.heuristics({"WIDE": lambda args: args["BLOCK"] * args["ROWS"] >= 256})
@triton.jit
def rows_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, ROWS: tl.constexpr, WIDE: tl.constexpr):
    for r in tl.static_range(ROWS):
        offs = (tl.program_id(0) * ROWS + r) * BLOCK + tl.arange(0, BLOCK)
        if WIDE:
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
        else:
            tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
"""
SIGNATURE = "*fp32:16, *fp32:16, i32:16"


@pytest.fixture(scope="module")
def kernels(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("autotune") / "tuned.py"
    path.write_text(textwrap.dedent(KERNELS))
    return path


@pytest.fixture(scope="module")
def signature_only(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("autotune_sig") / "rows.py"
    path.write_text(textwrap.dedent(SIGNATURE_ONLY))
    return path


def _sweep(cli, *args: str) -> list[dict]:
    result = cli("sweep", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_decorated_kernels_are_found_in_either_order_with_or_without_a_spec(cli, kernels, signature_only):
    from irscope.frontends import frontend_for

    assert frontend_for(kernels).kernel_names(kernels) == ["scale_kernel", "shift_kernel"]
    assert frontend_for(signature_only).kernel_names(signature_only) == ["rows_kernel"]
    for name in ("scale_kernel", "shift_kernel"):
        result = cli("dump", f"{kernels}:{name}", "--stage", "ttir")
        assert result.exit_code == 0, result.stderr
        assert f"tt.func public @{name}(" in result.stdout
    result = cli("dump", f"{signature_only}:rows_kernel", "-S", SIGNATURE, "--stage", "ttir")
    assert result.exit_code == 0, result.stderr


def test_a_sweep_without_s_is_exactly_the_autotuners_configs_with_the_pruned_one_marked(cli, kernels, tmp_path):
    rows = _sweep(cli, f"{kernels}:scale_kernel", "-o", str(tmp_path / "s"))
    assert [(r["BLOCK"], r["num_warps"], r["num_stages"]) for r in rows] == [
        (64, 1, 3),
        (128, 2, 3),
        (256, 4, 2),
        (1024, 4, 3),
    ]
    assert [r["pruned"] for r in rows] == [False, False, False, True]  # BLOCK 1024 > n = 640
    assert all(r["status"] == "ok" for r in rows)
    stored = json.loads((tmp_path / "s" / "session.json").read_text())
    maxnreg = {v["config"]["constexprs"]["BLOCK"]: v["config"]["options"].get("maxnreg") for v in stored["variants"]}
    assert maxnreg == {64: None, 128: None, 256: None, 1024: 128}
    # Resumed: the same four, not the product of their values.
    again = cli("sweep", f"{kernels}:scale_kernel", "-o", str(tmp_path / "s"), "--json")
    assert again.exit_code == 0 and len(again.stdout.splitlines()) == 4 and "4 reused" in again.stderr


def test_c_and_s_still_work_on_an_autotuned_kernel(cli, kernels, tmp_path):
    fixed = _sweep(cli, f"{kernels}:scale_kernel", "-c", "num_warps=8", "-o", str(tmp_path / "s"))
    assert [(r["BLOCK"], r["num_stages"]) for r in fixed] == [(64, 3), (128, 3), (256, 2), (1024, 3)]
    stored = json.loads((tmp_path / "s" / "session.json").read_text())
    assert {v["config"]["options"]["num_warps"] for v in stored["variants"]} == {8}
    swept = _sweep(cli, f"{kernels}:scale_kernel", "-s", "BLOCK=64,128", "-s", "num_warps=1,2")
    assert [(r["BLOCK"], r["num_warps"]) for r in swept] == [(64, 1), (64, 2), (128, 1), (128, 2)]
    # Only the autotuner's own configs are marked; (64, 2) is none of them.
    assert [r.get("pruned") for r in swept] == [False, None, None, False]


def _ttir(cli, target: str, *args: str) -> str:
    result = cli("dump", target, "--stage", "ttir", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_an_inner_heuristic_gets_its_value_from_each_configs_values(cli, kernels):
    even = _ttir(cli, f"{kernels}:scale_kernel", "-c", "BLOCK=128", "-c", "num_warps=2")  # 640 % 128 == 0
    odd = _ttir(cli, f"{kernels}:scale_kernel", "-c", "BLOCK=256", "-c", "num_warps=4", "-c", "num_stages=2")
    assert "arith.cmpi slt" not in even  # EVEN: no mask
    assert "arith.cmpi slt" in odd


def test_an_outer_heuristic_sees_the_arguments_and_the_prune_sees_its_value(cli, kernels):
    rows = _sweep(cli, f"{kernels}:shift_kernel")
    assert [(r["BLOCK"], r["num_warps"]) for r in rows] == [(128, 2), (256, 4), (512, 8)]
    assert [r["pruned"] for r in rows] == [False, True, True]  # TAIL (640 % 1024 != 0) keeps <= 2 warps
    for block in (128, 512):
        assert "arith.cmpi slt" in _ttir(cli, f"{kernels}:shift_kernel", "-c", f"BLOCK={block}")


@pytest.mark.parametrize(
    "config", [{"BLOCK": 128, "num_warps": 2, "num_stages": 3}, {"BLOCK": 256, "num_warps": 4, "num_stages": 2}]
)
def test_the_ir_of_a_config_is_what_triton_itself_compiles(kernels, config, tmp_path):
    torch = pytest.importorskip("torch")
    import triton
    from triton import knobs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend
    from triton.runtime.jit import create_function_from_signature

    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config
    from irscope.frontends.triton.versions import jit_run_kwargs

    ref = resolve_kernel(f"{kernels}:scale_kernel")
    ours = capture(ref, config=resolve_config(ref, config), arch="sm_90", use_cache=False)
    assert ours.ok, ours.error

    # Triton's own path: the JIT's binder on real tensors, the heuristic's value as Heuristics.run gives it.
    _autotuner, heuristics = ref.tuning.layers
    jit = heuristics.fn
    x, y, n = torch.empty(640), torch.empty(640), 640
    args = dict(zip(jit.arg_names, (x, y, n)))
    kwargs = {
        "BLOCK": config["BLOCK"],
        "num_warps": config["num_warps"],
        "num_stages": config["num_stages"],
        "num_ctas": 1,
    }
    kwargs["EVEN"] = heuristics.values["EVEN"]({**args, **kwargs})
    assert kwargs["EVEN"] is (config["BLOCK"] == 128)
    kwargs.update(debug=knobs.runtime.debug, **jit_run_kwargs())  # as JITFunction.run adds them
    target = GPUTarget("cuda", 90, 32)
    backend = make_backend(target)
    binder = create_function_from_signature(jit.signature, jit.params, backend)
    bound, specialization, options = binder(x, y, n, **kwargs)
    options, signature, constexprs, attrs = jit._pack_args(backend, kwargs, bound, specialization, options)
    with knobs.cache.scope():  # Triton's cache keys on the source, not its path: a fresh one
        knobs.cache.dir = str(tmp_path)
        theirs = triton.compile(ASTSource(jit, signature, constexprs, attrs), target=target, options=options.__dict__)
    assert ours.listings["ttir"] == theirs.asm["ttir"]


def test_a_kernel_given_with_S_gets_its_configs_and_heuristics_from_constexprs(cli, signature_only):
    rows = _sweep(cli, f"{signature_only}:rows_kernel", "-S", SIGNATURE)
    assert [(r["BLOCK"], r["ROWS"], r["num_warps"], r["num_stages"]) for r in rows] == [
        (64, 4, 2, 3),
        (128, 1, 4, 3),
        (512, 1, 4, 4),
    ]
    assert all(r["status"] == "ok" for r in rows)
    assert "pruned" not in rows[0]  # the prune reads n, which -S does not give: nothing is marked
    target = f"{signature_only}:rows_kernel"
    wide = _ttir(cli, target, "-S", SIGNATURE, "-c", "BLOCK=64", "-c", "ROWS=4", "-c", "num_warps=2")
    narrow = _ttir(cli, target, "-S", SIGNATURE, "-c", "BLOCK=128", "-c", "ROWS=1")
    # -x only where WIDE is false: arith.subf (0 - x) until Triton 3.7, arith.negf from 3.8 on
    negation = ("arith.subf", "arith.negf")
    assert not any(op in wide for op in negation) and any(op in narrow for op in negation)


def test_a_heuristic_that_reads_an_argument_S_gives_only_as_a_type_is_one_line(cli, kernels):
    one_line_error(
        cli("dump", f"{kernels}:scale_kernel", "-S", SIGNATURE),
        2,
        "@triton.heuristics value EVEN of scale_kernel reads n",
        "-S",
    )


@pytest.mark.parametrize(
    "assignment, fragment",
    [
        ("EVEN=1", "EVEN of scale_kernel is set by @triton.heuristics"),
        ("pruned=true", "pruned of scale_kernel is a mark"),
    ],
)
def test_heuristic_values_and_marks_are_not_set_by_hand(cli, kernels, assignment, fragment):
    one_line_error(cli("dump", f"{kernels}:scale_kernel", "-c", assignment), 2, fragment)


def test_resuming_a_session_of_a_heuristics_kernel_asks_for_its_file(cli, signature_only, tmp_path):
    # A session keeps an autotuner's configs (data), but a heuristic is Python: irscope will not run it
    # from the stored source, so resuming says so once, up front, instead of failing every variant.
    out = tmp_path / "s"
    first = cli("sweep", f"{signature_only}:rows_kernel", "-S", SIGNATURE, "-o", str(out), "--json")
    assert first.exit_code == 0, first.stderr
    again = cli("sweep", str(out), "-s", "BLOCK=256", "-c", "ROWS=1")
    assert again.exit_code == 5
    assert "@triton.heuristics are Python code" in again.stderr
    assert f"irscope sweep {signature_only}:rows_kernel -S ... -o {out}" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


def test_one_rule_picks_the_configs_for_every_face_an_autotuned_kernels_own(kernels):
    """``irscope bench`` and ``irscope.bench`` (and sweep) pick configs by ``named.configs_of``: an autotuned
    kernel's own configs unless -s is given (-c fixing some of their values); a kernel without an autotuner,
    its one config (a bench) or its declared ranges (a sweep)."""
    from irscope.named import configs_of, open_named

    tuned = open_named(f"{kernels}:scale_kernel")
    own = configs_of(tuned, {}, {}, whole_space=False)
    assert [(c.constexprs["BLOCK"], c.options["num_warps"]) for c in own] == [(64, 1), (128, 2), (256, 4), (1024, 4)]
    assert own == configs_of(tuned, {}, {}, whole_space=True)  # a bench times what a sweep compiles
    fixed = configs_of(tuned, {"num_warps": "8"}, {}, whole_space=False)
    assert [(c.constexprs["BLOCK"], c.options["num_warps"]) for c in fixed] == [(b, 8) for b in (64, 128, 256, 1024)]
    plain = open_named("square_kernel")
    assert configs_of(plain, {}, {}, whole_space=False) == [plain.config({})]
    assert len(configs_of(plain, {}, {}, whole_space=True)) > 1
    assert len(configs_of(plain, {}, {"BLOCK_SIZE": ["128", "256"]}, whole_space=False)) == 2
