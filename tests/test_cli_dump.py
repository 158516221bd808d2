"""``irscope list`` and ``irscope dump``: output and every kind of bad input."""

from __future__ import annotations

import json
import textwrap

import pytest
from expect import one_line_error


def _listed(cli) -> dict:
    result = cli("list", "--json")
    assert result.exit_code == 0
    return {k["name"]: k for k in map(json.loads, result.stdout.splitlines())}


def test_list_json_is_what_its_help_says_one_object_per_kernel_a_line(cli):
    help_text = " ".join(cli("list", "--help").stdout.split())
    assert "one JSON object per kernel, one a line: name, file, frontend, description and parameters" in help_text
    lines = cli("list", "--json").stdout.splitlines()
    kernels = [json.loads(line) for line in lines]
    assert len(kernels) == len(lines) > 1
    for kernel in kernels:
        assert list(kernel) == ["name", "file", "frontend", "description", "parameters"]
        assert all(isinstance(kernel[k], str) for k in ("name", "file", "frontend", "description"))
        assert kernel["parameters"] and all(list(p) == ["default", "sweep"] for p in kernel["parameters"].values())
        assert all(isinstance(p["sweep"], list) for p in kernel["parameters"].values())


def test_list_shows_each_builtin_kernel_with_defaults_and_sweeps(cli):
    kernels = _listed(cli)
    square = kernels["square_kernel"]["parameters"]
    assert square["BLOCK_SIZE"] == {"default": 1024, "sweep": [128, 256, 512, 1024, 2048, 4096, 8192]}
    assert square["num_warps"]["sweep"] == [1, 4, 8]
    assert square["n_cols"]["default"] == 781
    assert set(kernels) == {
        "square_kernel",
        "add_kernel",
        "gelu_kernel",
        "softmax_kernel",
        "matmul_kernel",
        "square_matrix_kernel",
        "gelu_tanh_kernel",
        "gelu_numba_kernel",
        "square_numba_kernel",
    }
    # A CUDA kernel's spec gives its launch shape as a sweepable option
    assert kernels["square_matrix_kernel"]["parameters"]["block"]["sweep"] == ["16x16", "32x8", "256x1"]


def test_dump_prints_ptx_by_default_and_a_summary_on_stderr(cli):
    result = cli("dump", "square_kernel", "-c", "BLOCK_SIZE=256", "-c", "num_warps=8")
    assert result.exit_code == 0
    assert ".visible .entry square_kernel(" in result.stdout
    assert ".reqntid 256" in result.stdout
    assert "square_kernel" in result.stderr and "sm_90" in result.stderr and "registers" in result.stderr


def test_dump_source_interleaves_python_lines_as_comments(cli):
    result = cli("dump", "square_kernel", "--stage", "ttir", "--source")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    i = next(n for n, line in enumerate(lines) if "// square.py:" in line and "row * row" in line)
    assert "arith.mulf" in lines[i + 1]


def test_dump_json_is_one_object_with_listing_and_source_map(cli):
    result = cli("dump", "add_kernel", "--stage", "sass", "--json")
    data = json.loads(result.stdout)
    assert data["kernel"]["name"] == "add_kernel" and data["arch"] == "sm_90"
    assert "LDG.E.128" in data["listings"]["sass"]
    assert len(data["source_map"]["sass"]) == len(data["listings"]["sass"].splitlines())
    assert data["resources"]["registers"] > 0 and data["compile_info"]["options"]["num_warps"] == 4


def test_dump_to_a_directory_writes_every_stage_and_the_metadata(cli, tmp_path):
    result = cli("dump", "softmax_kernel", "--arch", "sm_80", "--stage", "all", "-o", str(tmp_path / "out"))
    assert result.exit_code == 0
    names = {p.name for p in (tmp_path / "out").iterdir()}
    assert {f"softmax_kernel.{ext}" for ext in ("py", "ttir", "ttgir", "ll", "ptx", "sass", "cubin", "json")} <= names
    meta = json.loads((tmp_path / "out" / "softmax_kernel.json").read_text())
    assert meta["arch"] == "sm_80" and meta["status"] == "ok"


def test_a_kernel_file_without_a_spec_compiles_from_a_signature(cli, tmp_path):
    path = tmp_path / "copy.py"
    path.write_text(
        textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
    """)
    )
    aligned = cli("dump", f"{path}:copy_kernel", "-S", "*fp32:16, *fp32:16, i32:16", "-c", "BLOCK=1024")
    assert aligned.exit_code == 0, aligned.stderr
    assert "ld.global.v4.b32" in aligned.stdout
    plain = cli("dump", f"{path}:copy_kernel", "-S", "*fp32, *fp32, i32, 1024")
    assert plain.exit_code == 0 and "ld.global.v4" not in plain.stdout


# ---------------------------------------------------------------- bad input: one line, non-zero, no traceback


def test_unknown_kernel_lists_the_known_ones(cli):
    one_line_error(cli("dump", "cube_kernel"), 2, "unknown kernel 'cube_kernel'", "square_kernel", "matmul_kernel")


def test_unknown_parameter_lists_the_kernels_parameters(cli):
    one_line_error(
        cli("dump", "square_kernel", "-c", "BLOCK=64"), 2, "unknown parameter 'BLOCK'", "BLOCK_SIZE, num_warps"
    )


@pytest.mark.parametrize(
    "assignment, fragment",
    [
        ("BLOCK_SIZE=big", "BLOCK_SIZE expects an integer, got 'big'"),
        ("BLOCK_SIZE", "expected NAME=VALUE"),
        ("num_warps=3", "num_warps must be a power of two"),
        ("n_cols=-5", "n_cols must be a non-negative integer"),
    ],
)
def test_malformed_values_are_rejected_before_compiling(cli, assignment, fragment):
    one_line_error(cli("dump", "square_kernel", "-c", assignment), 2, fragment)


def test_missing_kernel_file(cli, tmp_path):
    one_line_error(cli("dump", f"{tmp_path}/nope.py:k"), 2, "no such kernel file")


def test_syntax_error_in_kernel_file_names_file_and_line(cli, tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("import triton\n\n@triton.jit\ndef k(x):\n    y = (1 +\n")
    one_line_error(cli("dump", f"{path}:k"), 2, f"{path}:5", "syntax error")


def test_kernel_file_that_raises_on_import_names_the_line(cli, tmp_path):
    path = tmp_path / "raises.py"
    path.write_text("import triton\n\nvalue = 1 / 0\n")
    one_line_error(cli("dump", f"{path}:k"), 2, f"{path}:3", "ZeroDivisionError")


def test_block_size_not_a_power_of_two_names_the_stage_and_tritons_message(cli):
    one_line_error(
        cli("dump", "square_kernel", "-c", "BLOCK_SIZE=1000"),
        3,
        "ttir (frontend)",
        "arange's range must be a power of 2",
        "square.py:",
    )


def _asserted_copy(tmp_path):
    from written_kernels import ASSERTED_COPY, ASSERTED_COPY_SIGNATURE

    path = tmp_path / "asserted.py"
    path.write_text(ASSERTED_COPY)
    lines = ASSERTED_COPY.splitlines()
    return path, ASSERTED_COPY_SIGNATURE, lambda text: lines.index(next(ln for ln in lines if text in ln)) + 1


def test_a_static_assert_without_a_message_shows_the_line_that_failed(cli, tmp_path):
    path, signature, line_of = _asserted_copy(tmp_path)
    line = line_of("tl.static_assert(BLOCK_SIZE % 64 == 0)")
    one_line_error(
        cli("dump", f"{path}:asserted_copy", "-S", signature, "-c", "BLOCK_SIZE=32", "-c", "FLOOR=32"),
        3,
        f"asserted.py:{line}:4: static assertion failed in `tl.static_assert(BLOCK_SIZE % 64 == 0)`",
    )


def test_a_static_assert_in_a_called_function_shows_its_message_and_the_call(cli, tmp_path):
    path, signature, line_of = _asserted_copy(tmp_path)
    result = cli("dump", f"{path}:asserted_copy", "-S", signature, "-c", "BLOCK_SIZE=64", "-c", "FLOOR=128")
    one_line_error(
        result,
        3,
        f"asserted.py:{line_of('at_least(BLOCK_SIZE, FLOOR)')}:4: "
        "static assertion failed: the block is too small for one warp's loads in "
        '`at_least(BLOCK_SIZE, FLOOR) -> tl.static_assert(B >= LOWEST, "the block is too small',
    )


def test_the_static_assert_named_is_the_one_triton_raises(tmp_path):
    """Triton's own exception, from triton.compile on the same source, points at the same line."""
    import importlib.util

    import triton
    from triton.compiler.errors import CompileTimeAssertionFailure

    path, signature, line_of = _asserted_copy(tmp_path)
    spec = importlib.util.spec_from_file_location("asserted", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = module.asserted_copy
    types = [t.strip().split(":")[0] for t in signature.split(",")]
    src = triton.compiler.ASTSource(
        kernel,
        signature={**dict(zip(["x_ptr", "out_ptr", "n"], types)), "BLOCK_SIZE": "constexpr", "FLOOR": "constexpr"},
        constexprs={"BLOCK_SIZE": 32, "FLOOR": 32},
    )
    with pytest.raises(CompileTimeAssertionFailure) as raised:
        triton.compile(src, target=triton.backends.compiler.GPUTarget("cuda", 90, 32))
    failed = raised.value
    assert failed.error_message == ""  # nothing but the line says why
    # Triton counts lines from the def: the line irscope names in the file, and the code it quotes.
    assert line_of("def asserted_copy") + failed.node.lineno - 1 == line_of("tl.static_assert(BLOCK_SIZE % 64")
    assert failed.src.splitlines()[failed.node.lineno - 1].strip() == "tl.static_assert(BLOCK_SIZE % 64 == 0)"


def test_out_of_shared_memory_is_a_compile_failure(cli):
    one_line_error(
        cli("dump", "matmul_kernel", "-c", "BLOCK_SIZE_M=256", "-c", "BLOCK_SIZE_N=256", "-c", "num_stages=5"),
        3,
        "shared memory",
        "Hardware limit: 232448",
    )


def test_unknown_arch(cli):
    one_line_error(cli("dump", "square_kernel", "--arch", "sm_xx"), 2, "unknown arch 'sm_xx'")


def test_file_kernel_without_spec_or_signature_says_how_to_give_one(cli, tmp_path):
    path = tmp_path / "bare.py"
    path.write_text("import triton\n\n@triton.jit\ndef bare(x):\n    pass\n")
    one_line_error(cli("dump", f"{path}:bare"), 2, "declares no KernelSpec", "--signature")


def test_the_real_console_script_prints_no_traceback_and_debug_shows_one(run_irscope):
    plain = run_irscope("dump", "nope_kernel")
    assert plain.returncode == 2 and "Traceback" not in plain.stderr
    assert plain.stderr.strip().startswith("irscope: error: unknown kernel")
    debug = run_irscope("--debug", "dump", "nope_kernel")
    assert debug.returncode != 0 and "Traceback" in debug.stderr
