"""A value never reaches a shell: what a config or a file name puts on nvcc's way runs nothing.

nvcc runs its sub-tools through a shell, so ``-DOP=fminf$(touch x)`` on its command
line runs ``touch``. Each payload below is tried where a user or a session can put
it (``-c``, ``-s``, a session's stored sweep request, the kernel file's own name);
each would create a canary file; none may. The controls run nvcc the old way
(``-D`` on its command line, the file's own path) and show every payload is live.
Real nvcc, no mocks.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from expect import one_line_error

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")

OP_CU = """// A reduction written for the tests: OP combines two values, a C identifier the file lets -c change.
#ifndef OP
#define OP fmaxf
#endif
#ifndef TILE
#define TILE 4
#endif

__global__ void combine(const float* __restrict__ x, float* __restrict__ out) {
    float acc = x[threadIdx.x];
#pragma unroll
    for (int j = 1; j < TILE; ++j) acc = OP(acc, x[threadIdx.x + j * 32]);
    out[threadIdx.x] = acc;
}
"""

# Each creates the file {C} when a shell sees it inside nvcc's double quotes (the controls prove it).
PAYLOADS = {
    "command substitution": "fminf$(touch {C})",
    "backticks": "fminf`touch {C}`",
    "substitution alone": "$(touch {C})",
    "a quote to break out": 'fminf"$(touch {C})"',
    "no spaces": "fminf$(touch${{IFS}}{C})",
    "an escaped dollar": "fminf\\$(touch {C})",
}
ONE_VARIANT = ("-c", "OP=fminf", "-c", "fast_math=false", "--arch", "sm_90")


@pytest.fixture
def op_cu(tmp_path) -> Path:
    path = tmp_path / "op.cu"
    path.write_text(OP_CU)
    return path


def payload(name: str, canary: Path) -> str:
    return PAYLOADS[name].format(C=canary)


def sweep_json(result) -> list[dict]:
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_macro_value_from_c_that_is_not_a_c_token_is_refused_in_one_line_and_runs_nothing(cli, op_cu, tmp_path, name):
    canary = tmp_path / "ran"
    result = cli("dump", f"{op_cu}:combine", "-c", f"OP={payload(name, canary)}", "--arch", "sm_90")
    one_line_error(result, 2, "OP must be a number, true/false or a C identifier")
    assert not canary.exists()


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_macro_value_in_a_sessions_stored_sweep_request_fails_its_variant_and_runs_nothing(
    cli, op_cu, tmp_path, name
):
    """The session someone sent is resumed: its stored request is data, its bad value a failed variant."""
    canary, session = tmp_path / "ran", tmp_path / "session"
    assert cli("sweep", f"{op_cu}:combine", *ONE_VARIANT, "-o", str(session)).exit_code == 0
    index = json.loads((session / "session.json").read_text())
    index["request"] = {"sweep": {"OP": ["fmaxf", payload(name, canary)]}, "fixed": {}, "arch": "sm_90"}
    (session / "session.json").write_text(json.dumps(index))
    result = cli("sweep", f"{op_cu}:combine", "-o", str(session), "--json")
    assert result.exit_code == 1, result.stderr
    rows = {row["OP"]: row for row in sweep_json(result)}
    assert rows["fmaxf"]["status"] == "ok"
    bad = rows[payload(name, canary)]
    assert bad["status"] == "failed" and "OP must be a number" in bad["note"], bad
    assert not canary.exists()


@pytest.mark.parametrize(
    "stored",
    [
        {"fixed": {"maxrregcount": "32$(touch {C})"}},
        {"fixed": {"opt": "3`touch {C}`"}},
        {"fixed": {"fast_math": "$(touch {C})"}},
        {"fixed": {"TILE": ["$(touch {C})"]}},
        {"fixed": {"OP": {"$(touch {C})": 1}}},
        {"fixed": {"maxrregcount": 1 << 40}},
    ],
)
def test_a_flag_or_a_value_of_the_wrong_kind_in_a_stored_request_is_a_failed_variant_not_a_crash(
    cli, op_cu, tmp_path, stored
):
    canary, session = tmp_path / "ran", tmp_path / "session"
    assert cli("sweep", f"{op_cu}:combine", *ONE_VARIANT, "-o", str(session)).exit_code == 0
    index = json.loads((session / "session.json").read_text())
    filled = json.loads(json.dumps(stored).replace("{C}", str(canary)))
    for name in filled["fixed"]:  # a table whose default is text takes any text: the compile is what checks it
        index["parameters"][name]["default"] = "0"
    index["request"] = {"sweep": {}, "arch": "sm_90", **filled}
    (session / "session.json").write_text(json.dumps(index))
    result = cli("sweep", f"{op_cu}:combine", "-o", str(session), "--json")
    # 5: a list or an object where sweep stores one value is a damaged request, refused before any compile
    assert result.exit_code in (1, 2, 5), (result.exit_code, result.stderr)
    if result.exit_code in (2, 5):
        one_line_error(result, result.exit_code)
    else:
        assert all(row["status"] == "failed" and " must be " in row["note"] for row in sweep_json(result))
    assert not canary.exists()


def test_a_kernel_file_whose_name_holds_a_payload_compiles_and_runs_nothing(cli, tmp_path):
    canary = tmp_path / "ran"
    path = tmp_path / f"op$(touch {canary.name}).cu"
    path.write_text(OP_CU)
    result = cli("dump", f"{path}:combine", "--arch", "sm_90", "--stage", "ptx")
    assert result.exit_code == 0, result.stderr
    assert ".entry _Z7combine" in result.stdout
    assert not canary.exists() and not (Path.cwd() / canary.name).exists()


def test_tokens_that_are_values_compile_as_the_file_means_them(cli, op_cu):
    for op, tile in (("fminf", "0x8"), ("fmaxf", "16")):
        result = cli(
            "dump", f"{op_cu}:combine", "-c", f"OP={op}", "-c", f"TILE={tile}", "--arch", "sm_90", "--stage", "ptx"
        )
        assert result.exit_code == 0, result.stderr
        assert ("min.f32" if op == "fminf" else "max.f32") in result.stdout


# ---------------------------------------------------------------- controls: the old way runs every payload


def old_nvcc(args: list[str], cwd: Path) -> None:
    """nvcc as irscope ran it before: values and the file's path on its command line."""
    subprocess.run(
        ["nvcc", "-arch=sm_90", "-cubin", "-o", "old.cubin", *args],
        cwd=cwd,
        capture_output=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_the_control_each_macro_payload_runs_when_given_to_nvcc_as_d(op_cu, tmp_path, name):
    canary = tmp_path / "ran"
    old_nvcc([f"-DOP={payload(name, canary)}", str(op_cu)], tmp_path)
    assert canary.exists()


def test_the_control_a_file_name_payload_runs_when_nvcc_is_given_the_path(tmp_path):
    canary = tmp_path / "ran"
    path = tmp_path / f"op$(touch {canary.name}).cu"
    path.write_text(OP_CU)
    old_nvcc([str(path)], tmp_path)
    assert canary.exists()


EXPRESSION_CU = """// A kernel written for the tests whose own default is an expression, not a token.
#ifndef SCALE
#define SCALE (2.0f * x[i + 1])
#endif

__global__ void scaled(const float* __restrict__ x, float* __restrict__ out) {
    int i = threadIdx.x;
    out[i] = SCALE * x[i];
}
"""


def test_a_macro_left_at_the_files_own_expression_compiles_as_written_and_a_new_value_must_be_a_token(cli, tmp_path):
    """The file's own ``#define`` is its text, compiled as it stands; irscope passes on only what it changes."""
    path = tmp_path / "expr.cu"
    path.write_text(EXPRESSION_CU)
    result = cli("dump", f"{path}:scaled", "--arch", "sm_90", "--stage", "ptx")
    assert result.exit_code == 0, result.output
    assert "mul.f32" in result.output  # 2.0f * x[i + 1] * x[i], as the file says
    canary = tmp_path / "ran"
    refused = cli("dump", f"{path}:scaled", "-c", f"SCALE=(1.0f$(touch {canary}))", "--arch", "sm_90")
    one_line_error(refused, 2, "SCALE")
    assert not canary.exists()
    assert cli("dump", f"{path}:scaled", "-c", "SCALE=3.0f", "--arch", "sm_90", "--stage", "ptx").exit_code == 0
