"""The Triton version as a config axis: ``-s triton=3.6.0,3.9.0`` compiles each variant with that Triton.

A version other than the running one compiles in workers that import a private folder of it
first (frontends/triton/environments.py). CI prepares those folders once (``.ci/run``, with
``$IRSCOPE_TRITONS``); the tests that need one skip without it, the rest run everywhere.
"""

from __future__ import annotations

import json

import pytest
import triton
from expect import one_line_error

from irscope.errors import ExitCode
from irscope.frontends.triton.environments import site_for, tritons_dir

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)

RUNNING = triton.__version__
OTHERS = [v for v in ("3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0") if v != RUNNING]
PREPARED = [v for v in OTHERS if (tritons_dir() / v / "triton" / "__init__.py").is_file()]

needs_another = pytest.mark.skipif(
    not PREPARED, reason="no other Triton prepared in $IRSCOPE_TRITONS (.ci/run makes them)"
)

REDUCE = """
import triton
import triton.language as tl

@triton.jit
def row_max(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=float("-inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))
"""


@needs_another
def test_a_sweep_over_triton_versions_compiles_each_with_its_own_triton(cli, tmp_path):
    path = tmp_path / "reduce.py"
    path.write_text(REDUCE)
    other = PREPARED[-1]
    out = tmp_path / "s"
    result = cli(
        "sweep",
        f"{path}:row_max",
        "-S",
        "*fp32, *fp32, i32, -",
        "-c",
        "BLOCK=256",
        "-s",
        f"triton={RUNNING},{other}",
        "--arch",
        "sm_90",
        "-o",
        str(out),
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["triton"], r["status"]) for r in rows] == [(RUNNING, "ok"), (other, "ok")], rows
    from irscope.session import Session

    session = Session.open(out)
    compilers = {e.config.options["triton"]: session.variant(e).compile_info.compiler for e in session.entries}
    assert compilers == {RUNNING: f"triton {RUNNING}", other: f"triton {other}"}


@needs_another
def test_a_diff_across_versions_shows_changes_but_no_version_noise(cli, tmp_path):
    path = tmp_path / "reduce.py"
    path.write_text(REDUCE)
    other = PREPARED[-1]
    result = cli(
        "diff",
        f"{path}:row_max",
        "-S",
        "*fp32, *fp32, i32, -",
        "-c",
        "BLOCK=256",
        "--arch",
        "sm_90",
        "-a",
        f"triton={RUNNING}",
        "-b",
        f"triton={other}",
        "--stage",
        "ttgir",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    diff = json.loads(result.stdout)
    changed = [line for hunk in diff.get("hunks", []) for line in hunk.get("lines", [])]
    text = json.dumps(changed)
    assert str(tmp_path) not in text  # a path is never a change
    assert RUNNING not in text and other not in text  # nor the version's own name


def test_a_version_outside_the_range_or_not_a_version_is_one_line_before_any_compile(cli, tmp_path):
    for value, says in (
        ("3.4.0", "outside the range"),
        ("3.10.0", "outside the range"),
        ("latest", "a release such as"),
        ("3.8.0;rm -rf ~", "a release such as"),
        ("../../etc", "a release such as"),
        ("３.８.０", "a release such as"),
        ("3.08.0", "a release such as"),
        ("03.8.0", "a release such as"),
        ("3.8." + "0" * 300, "a release such as"),
    ):
        one_line_error(cli("dump", "square_kernel", "--arch", "sm_90", "-c", f"triton={value}"), ExitCode.USAGE, says)
    assert not (tmp_path / "etc").exists()


def test_only_a_triton_kernel_takes_a_triton_version(cli):
    one_line_error(
        cli("dump", "square_matrix_kernel", "--arch", "sm_90", "-c", f"triton={RUNNING}"),
        ExitCode.USAGE,
        "names the Triton that compiles a Triton kernel",
    )


def test_the_running_triton_needs_no_private_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCOPE_TRITONS", str(tmp_path / "none"))
    assert site_for(RUNNING) is None
    assert not (tmp_path / "none").exists()


def test_a_half_made_folder_is_not_taken_for_a_triton(tmp_path, monkeypatch):
    """A folder is complete (the package and pip's dist-info) or it is made again, never used half made."""
    from irscope.frontends.triton.environments import _complete

    folder = tmp_path / OTHERS[0]
    (folder / "triton").mkdir(parents=True)
    (folder / "triton" / "__init__.py").write_text("")
    assert not _complete(folder, OTHERS[0])
    (folder / f"triton-{OTHERS[0]}.dist-info").mkdir()
    assert _complete(folder, OTHERS[0])


@needs_another
def test_a_session_resumed_with_a_version_compiles_only_what_is_missing(cli, tmp_path):
    out = tmp_path / "s"
    other = PREPARED[0]
    first = cli(
        "sweep", "square_kernel", "-c", "BLOCK_SIZE=1024", "-s", f"triton={other}", "--arch", "sm_90", "-o", str(out)
    )
    assert first.exit_code == 0, first.stderr
    again = cli(
        "sweep",
        "square_kernel",
        "-c",
        "BLOCK_SIZE=1024",
        "-s",
        f"triton={other},{RUNNING}",
        "--arch",
        "sm_90",
        "-o",
        str(out),
    )
    assert again.exit_code == 0, again.stderr
    assert "1 reused" in again.stderr + again.stdout


def test_a_triton_cubins_parameters_are_read_from_its_ptx_scratch_pointers_included():
    """Triton's PTX declares pointers as `.param .u64 .ptr .global .align 1 NAME`: each is a parameter of the
    launch (the runtime arguments the compile kept, then the scratch pointers it appends)."""
    import re

    from irscope.capturing import capture
    from irscope.nvidia.launch import entry_params
    from irscope.types import Stage

    variant = capture("softmax_kernel", {}, arch="sm_90")
    ptx = variant.listings[Stage.PTX]
    declared = re.search(r"\.entry\s+softmax_kernel\s*\((.*?)\)", ptx, re.S)[1].count(".param")
    types = entry_params(ptx, "softmax_kernel")
    kept = [n for n, t in variant.compile_info.signature.items() if t != "constexpr"]
    assert len(types) == declared == len(kept) + 2
    assert types[: len(kept)] == ["u64", "u64", "u32", "u32", "u32"] and types[len(kept) :] == ["u64", "u64"]


@needs_another
async def test_the_tui_shows_the_triton_version_like_any_other_parameter(cli, tmp_path):
    from irscope.tui.factory import make_app

    out = tmp_path / "s"
    other = PREPARED[-1]
    swept = cli(
        "sweep",
        "square_kernel",
        "-c",
        "BLOCK_SIZE=1024",
        "-s",
        f"triton={RUNNING},{other}",
        "--arch",
        "sm_90",
        "-o",
        str(out),
    )
    assert swept.exit_code == 0, swept.stderr
    app = make_app(str(out))
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.pause(0.5)
        table = app.query_one("#variants")
        labels = [str(column.label) for column in table.columns.values()]
        assert "triton" in labels, labels
        cells = [str(table.get_row_at(i)[labels.index("triton")]) for i in range(table.row_count)]
        assert sorted(cells) == sorted([RUNNING, other])


def test_a_half_made_folder_is_refused_and_left_as_it_is(tmp_path, monkeypatch):
    """irscope's installs are renamed into place whole: a folder without pip's record is someone else's."""
    from irscope.errors import UsageError

    monkeypatch.setenv("IRSCOPE_TRITONS", str(tmp_path))
    folder = tmp_path / OTHERS[0]
    (folder / "triton").mkdir(parents=True)
    (folder / "triton" / "__init__.py").write_text("# a user's own copy\n")
    with pytest.raises(UsageError, match="no complete triton"):
        site_for(OTHERS[0])
    assert (folder / "triton" / "__init__.py").read_text() == "# a user's own copy\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([OTHERS[0], f".{OTHERS[0]}.lock"])


@pytest.mark.parametrize("version", PREPARED or [None])
def test_an_amd_target_compiles_with_another_triton_as_that_triton_compiles_it(run_irscope, tmp_path, version):
    """``-c triton=X --arch gfx942``: the AMDGCN is the bytes X's own triton.compile makes, in a process that
    imports X; and the stage hook reaches X's HIP backend too (3.5 has no hook knob: its backends'
    add_stages are wrapped), so ``passes`` records X's MLIR passes."""
    if version is None:
        pytest.skip("no other Triton prepared in $IRSCOPE_TRITONS (.ci/run makes them)")
    from amd_reference import triton_compiles
    from written_kernels import SCALED_ADD

    path = tmp_path / "scaled_add.py"
    path.write_text(SCALED_ADD)
    kernel = [f"{path}:scaled_add", "-S", "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32", "-c", "BLOCK=1024"]
    target = ["-c", f"triton={version}", "-c", "num_stages=2", "--arch", "gfx942"]
    dumped = run_irscope("dump", *kernel, *target, "--stage", "amdgcn")
    assert dumped.returncode == 0, dumped.stderr
    assert f"triton={version} · gfx942 (aot)" in dumped.stderr
    types = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "alpha": "fp32", "BLOCK": "constexpr"}
    job = (
        "scaled_add",
        str(path),
        types,
        {"BLOCK": 1024},
        [0, 1, 2, 3],
        {"num_warps": 4, "num_stages": 2},
        "gfx942",
        64,
    )
    reference = triton_compiles([job], tmp_path, site=str(tritons_dir() / version))
    assert dumped.stdout.rstrip("\n") == reference["scaled_add@gfx942"]["amdgcn"].rstrip("\n")
    passes = run_irscope("passes", *kernel, *target, "--json")
    assert passes.returncode == 0, passes.stderr
    recorded = json.loads(passes.stdout)
    assert recorded["passes"] and {p["stage"] for p in recorded["passes"]} >= {"ttir", "ttgir"}
