"""A runtime argument's example value (``-c NAME=VALUE`` with ``-S``): heuristics and the JIT's specialization.

Kernels written here. ``-S`` gives a scalar's type, ``-c`` the value a launch passes: the
heuristics read it and the JIT specializes on it (divisible by 16, equal to 1), while it stays
a runtime argument. Checked against Triton itself: the PTX of the kernel's own ``warmup`` through
Triton's JIT (binder, heuristics wrapper and all) for the same value, byte for byte.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from expect import one_line_error

KERNELS = """
import triton
import triton.language as tl


@triton.heuristics({"EVEN_N": lambda args: args["n_elements"] % args["BLOCK"] == 0})
@triton.jit
def copy_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))
    else:
        mask = offs < n_elements
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


# Autotuner outside: each config's BLOCK reaches the heuristic, with the argument's value.
@triton.autotune(
    configs=[triton.Config({"BLOCK": 128}, num_warps=2), triton.Config({"BLOCK": 1024}, num_warps=4)],
    key=["n_elements"],
)
@triton.heuristics({"EVEN_N": lambda args: args["n_elements"] % args["BLOCK"] == 0, "HALF": lambda args: args["scale"] == 0.5})
@triton.jit
def scale_kernel(x_ptr, y_ptr, n_elements, scale, BLOCK: tl.constexpr, EVEN_N: tl.constexpr, HALF: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = x * 0.5 if HALF else x * scale
    if EVEN_N:
        tl.store(y_ptr + offs, y)
    else:
        tl.store(y_ptr + offs, y, mask=mask)
"""
COPY = "*fp32:16, *fp32:16, i32"
SCALE = "*fp32:16, *fp32:16, i32, fp32"


@pytest.fixture(scope="module")
def kernels(tmp_path_factory) -> Path:
    (path := tmp_path_factory.mktemp("heuristics") / "heuristic_kernels.py").write_text(textwrap.dedent(KERNELS))
    return path


def _dump(cli, target: str, *args: str) -> dict:
    result = cli("dump", target, "--stage", "ptx", "--json", *args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _warmup_ptx(path: Path, name: str, *args, **kwargs) -> str:
    """The kernel's own ``warmup`` through Triton's JIT, for sm_90 (the stand-in driver answers for it)."""
    import torch
    from triton import knobs

    from irscope.frontends.triton.gpu_free import gpu_free_import
    from irscope.frontends.triton.kernel_files import load_module

    kernel = getattr(load_module(path), name)
    x, y = (torch.empty(4096, device="meta") for _ in range(2))  # a meta tensor's address is 0: 16-aligned
    # Triton's cache is keyed on the source, not its path: a hit could name another run's tmp_path.
    with gpu_free_import(90), knobs.compilation.scope():
        knobs.compilation.always_compile = True
        compiled = kernel.warmup(x, y, *args, grid=(1,), **kwargs)
    return compiled.asm["ptx"]


def _global_widths(ptx: str) -> set[str]:
    """The widths of the global loads: ``b32`` (4 bytes), ``v2.b32`` (8), ``v4.b32`` (16)."""
    return set(re.findall(r"ld\.global\.(\S+?)\s", ptx))


def test_an_example_value_feeds_the_heuristic_and_stays_a_runtime_argument(cli, kernels):
    data = _dump(cli, f"{kernels}:copy_kernel", "-S", COPY, "-c", "BLOCK=256", "-c", "n_elements=1000")
    info = data["compile_info"]
    assert info["heuristics"] == {"EVEN_N": False}
    assert info["signature"]["n_elements"] == "i32"  # an argument of the kernel, not a constant
    assert "n_elements" not in info["divisible_by_16"]  # 1000 is not a multiple of 16
    assert data["config"]["sizes"] == {"n_elements": 1000}
    ptx = data["listings"]["ptx"]
    assert ".param .u32 copy_kernel_param_2" in ptx
    # The real launch: Triton's JIT, with the same value. Byte for byte, and so the same 4-byte loads.
    assert ptx == _warmup_ptx(kernels, "copy_kernel", 1000, BLOCK=256)
    assert _global_widths(ptx) == {"b32"}


def test_a_multiple_of_16_is_specialized_as_the_jit_does(cli, kernels):
    data = _dump(cli, f"{kernels}:copy_kernel", "-S", COPY, "-c", "BLOCK=256", "-c", "n_elements=1024")
    assert data["compile_info"]["heuristics"] == {"EVEN_N": True}
    assert "n_elements" in data["compile_info"]["divisible_by_16"]
    ptx = data["listings"]["ptx"]
    assert ptx == _warmup_ptx(kernels, "copy_kernel", 1024, BLOCK=256)
    assert _global_widths(ptx) == {"v2.b32"}  # no mask: 256 elements on 128 threads, two each


def test_a_value_of_1_becomes_a_constant_as_the_jit_makes_it(cli, kernels):
    data = _dump(cli, f"{kernels}:copy_kernel", "-S", COPY, "-c", "BLOCK=256", "-c", "n_elements=1")
    assert data["compile_info"]["signature"]["n_elements"] == "constexpr"
    assert data["listings"]["ptx"] == _warmup_ptx(kernels, "copy_kernel", 1, BLOCK=256)


def test_a_bare_value_in_S_is_a_constant_and_says_so(cli, kernels):
    result = cli("dump", f"{kernels}:copy_kernel", "-S", "*fp32:16, *fp32:16, 1000", "-c", "BLOCK=256", "--json")
    assert result.exit_code == 0, result.stderr
    assert "-S compiles n_elements as the constant 1000" in result.stderr
    assert "-c n_elements=1000" in result.stderr
    data = json.loads(result.stdout)
    assert data["compile_info"]["signature"]["n_elements"] == "constexpr"
    # Triton's AOT reading folds the bound into the code: the loads widen where the launch's stay 4 bytes.
    assert _global_widths(data["listings"]["ptx"]) != {"b32"}


def test_the_heuristics_values_show_in_the_dump_header_the_sweep_and_the_session(cli, kernels, tmp_path):
    target, out = f"{kernels}:copy_kernel", tmp_path / "copy"
    result = cli("dump", target, "-S", COPY, "-c", "BLOCK=256", "-c", "n_elements=1000", "--stage", "ttir")
    assert result.exit_code == 0, result.stderr
    header = result.stderr.splitlines()[-1]
    assert "BLOCK=256" in header and "heuristics: EVEN_N=False" in header and "with n_elements=1000" in header
    swept = cli("sweep", target, "-S", COPY, "-c", "BLOCK=256", "-s", "n_elements=1000,1024", "-o", str(out), "--json")
    assert swept.exit_code == 0, swept.stderr
    rows = [json.loads(line) for line in swept.stdout.splitlines()]
    assert [(r["n_elements"], r["EVEN_N"], r["ldst"]) for r in rows] == [(1000, False, "4/4"), (1024, True, "8/8")]
    table = cli("sweep", target, "-S", COPY, "-c", "BLOCK=256", "-s", "n_elements=1000,1024", "-o", str(out))
    assert re.search(r"EVEN_N\s+n_elements", table.stdout) and re.search(r"True\s+1024", table.stdout)
    stored = json.loads((out / "session.json").read_text())
    entries = stored["variants"]
    assert sorted(e["facts"]["heuristics"]["EVEN_N"] for e in entries) == [False, True]
    again = cli("dump", str(out), "-c", "BLOCK=256", "-c", "n_elements=1024", "--stage", "ttir")
    assert again.exit_code == 0, again.stderr
    assert "heuristics: EVEN_N=True" in again.stderr
    from irscope.session import Session
    from irscope.tui.model import Model

    model = Model.from_session(Session.open(out))  # the TUI's variants table
    assert model.varying() == ["EVEN_N", "n_elements"]
    assert [(r.value("n_elements"), r.value("EVEN_N")) for r in model.rows] == [(1000, False), (1024, True)]


def test_autotuned_configs_each_get_the_heuristic_for_the_value(cli, kernels):
    result = cli("sweep", f"{kernels}:scale_kernel", "-S", SCALE, "-c", "n_elements=1152", "-c", "scale=0.5", "--json")
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    # 1152 is 9 blocks of 128 and one and an eighth of 1024
    assert [(r["BLOCK"], r["EVEN_N"], r["status"]) for r in rows] == [(128, True, "ok"), (1024, False, "ok")]
    assert "HALF" not in rows[0]  # the same in both: not a column that varies


@pytest.mark.parametrize(
    "args, fragments",
    [
        ((), ("reads n_elements", "-c n_elements=VALUE")),
        (("-c", "n_elements=ten"), ("n_elements expects a number",)),
        # a pointer takes None (a launch passing None), never a number
        (("-c", "n_elements=1000", "-c", "x_ptr=16"), ("-S gives x_ptr as a pointer", "-c takes None for it")),
        (("-c", "n_elements=1000", "-c", "EVEN_N=true"), ("set by @triton.heuristics",)),
        (("-c", "n_elements=2.5"), ("-S gives n_elements as i32", "makes it fp32")),
        (("-c", "n_elements=4294967296"), ("-S gives n_elements as i32", "makes it i64")),
    ],
)
def test_example_values_that_cannot_describe_a_launch_are_one_line(cli, kernels, args, fragments):
    one_line_error(cli("dump", f"{kernels}:copy_kernel", "-S", COPY, "-c", "BLOCK=256", *args), 2, *fragments)


def test_a_divisibility_hint_the_value_contradicts_is_one_line(cli, kernels):
    one_line_error(
        cli(
            "dump",
            f"{kernels}:copy_kernel",
            "-S",
            "*fp32:16, *fp32:16, i32:16",
            "-c",
            "BLOCK=256",
            "-c",
            "n_elements=1000",
        ),
        2,
        "divisible by 16 (i32:16)",
        "-c n_elements=1000",
    )


def test_a_sweep_without_the_value_is_refused_once_not_per_variant(cli, kernels):
    one_line_error(cli("sweep", f"{kernels}:scale_kernel", "-S", SCALE, "-c", "scale=2.0"), 2, "reads n_elements")


@pytest.mark.parametrize("value", [[1], "EVEN_N", {"EVEN_N": [True]}, {"EVEN_N": {"a": 1}}, {1: True}])
def test_stored_heuristic_values_are_read_as_data(value):
    from irscope.records import Facts
    from irscope.types import CompileInfo

    info = {"mode": "aot", "arch": "sm_90", "compiler": "triton 3.6.0", "compile_seconds": 1.0}
    with pytest.raises(TypeError):
        CompileInfo.from_json({**info, "heuristics": value})
    with pytest.raises(TypeError):
        Facts.from_json({"heuristics": value})
    assert CompileInfo.from_json({**info, "heuristics": {"EVEN_N": True}}).heuristics == {"EVEN_N": True}
    assert Facts.from_json({"heuristics": {"BLOCK": 64}}).heuristics == {"BLOCK": 64}
