"""A TileLang session's kernel file and stored listings are data: nothing in them runs, nothing they name is read.

A session names its kernel's file; a TileLang kernel file is Python that only running it compiles (its
factory makes the PrimFunc). Resuming, reading or diffing the session never imports it: each payload would
create its canary, and none may. The control imports the file as a compile does and shows the payload runs.
A stored TileLang variant's generated CUDA names, in its ``#line`` directives, whatever file the data says:
a FIFO there would block whoever opened it, and reading the session never does. Real commands, no mocks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from expect import one_line_error

KERNEL_PY = """{P}
import tilelang
import tilelang.language as T


@tilelang.jit
def k(N=1024, block=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                A[bx * block + i] = A[bx * block + i] * 2

    return main
"""


def hostile_file(tmp_path: Path, canary: Path) -> Path:
    folder = tmp_path / "theirs"
    folder.mkdir(exist_ok=True)
    path = folder / "k.py"
    path.write_text(KERNEL_PY.format(P=f'__import__("pathlib").Path("{canary}").touch()'))
    return path


def crafted_session(tmp_path: Path, canary: Path, listings: dict[str, str] | None = None, passes=None) -> Path:
    """A TileLang session written by irscope's own writer, naming the hostile file (and, given ``listings``,
    holding one variant of them, with ``passes``, a PassLog, where given)."""
    from irscope.session import Session
    from irscope.types import Config, KernelId, Stage, Status, Variant

    file = hostile_file(tmp_path, canary)
    table = {"block": {"default": 128, "sweep": [128], "kind": "constexpr"}}
    out = tmp_path / "session"
    kernel = KernelId("k", str(file), "0" * 64)
    session = Session.create(out, kernel, file.read_text(), table, frontend="tilelang")
    session.data["request"] = {"sweep": {}, "fixed": {}, "arch": "sm_90"}
    if listings is not None:
        from irscope.frontends.registry import register_stages

        register_stages("tilelang")
        stages = {Stage(name): text for name, text in listings.items()}
        variant = Variant(
            kernel,
            Config(constexprs={"block": 128}),
            "sm_90",
            Status.OK,
            stages,
            frontend="tilelang",
            source_language="python",
            passes=passes,
        )
        session.add(variant)
    session.save()
    return out


@pytest.mark.parametrize("command", ["sweep", "dump", "annotate", "diff"])
def test_a_tilelang_sessions_kernel_file_is_never_imported(cli, tmp_path, command):
    canary = tmp_path / "ran"
    session = crafted_session(tmp_path, canary)
    args = ["-a", "block=128", "-b", "block=64"] if command == "diff" else []
    result = cli(command, str(session), *args, *(["--json"] if command == "sweep" else []))
    if command == "sweep":
        one_line_error(result, 2, "irscope does not import a kernel file a session names")
    else:
        one_line_error(result, 5, "has no variant")
    assert not canary.exists()


def test_the_control_compiling_the_file_runs_its_payload(tmp_path):
    """Not vacuous: the file's import, which a compile begins with, runs the payload (before it imports TileLang,
    so this needs none; an import error past it is no matter here)."""
    from irscope import frontends

    canary = tmp_path / "ran"
    file = hostile_file(tmp_path, canary)
    kernel = frontends.load(frontends.KernelHandle("tilelang", str(file), "k", {}))
    try:
        kernel.python_object()
    except Exception:  # tilelang missing: the payload ran first all the same
        pass
    assert canary.exists()


def test_line_directives_in_a_stored_cuda_listing_open_nothing_they_name(run_irscope, tmp_path):
    """The FIFO stands where a ``#line`` directive points (outside the session): opening it would hang the
    command past its timeout. The listing is shown as stored, and its lines map to no file irscope reads."""
    canary = tmp_path / "ran"
    fifo = tmp_path / "outside" / "fifo.py"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    cuda = f'extern "C" __global__ void k(float* A) {{\n#line 2 "{fifo}"\n  A[threadIdx.x] *= 2.0f;\n}}\n'
    session = crafted_session(tmp_path, canary, {"tilelang_cuda": cuda, "ptx": ".version 9.0\n.target sm_90a\n"})
    done = run_irscope("dump", str(session), "--stage", "all", "--json", timeout=120)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["listings"]["tilelang_cuda"] == cuda
    assert shown["source_map"]["tilelang_cuda"] == [None] * 4
    assert not canary.exists()


TIR = '# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((1024,), "float32")):\n    T.evaluate(0)\n'


def tilelang_passes(name: str, arg: str, initial: str = TIR):
    """A TileLang PassLog of two passes: the first named ``name`` (``arg``), the second changing the TIR."""
    from irscope.frontends.registry import register_stages
    from irscope.ir.passes import PassDump, chained_log

    register_stages("tilelang")
    from irscope.frontends.tilelang.stages import LOWERED_TIR

    after = initial.replace("T.evaluate(0)", "T.evaluate(1)")
    chain = [
        (PassDump(name, arg, "", ""), LOWERED_TIR, None, initial),
        (PassDump("Simplify", "tl.Simplify", "", ""), LOWERED_TIR, None, after),
    ]
    return chained_log(initial, chain)


@pytest.mark.parametrize("name", ["window title", "clear screen", "bidi override", "carriage return"])
def test_a_stored_tilelang_pass_name_with_controls_and_a_path_is_shown_as_escapes_and_opens_nothing(
    cli, tmp_path, name
):
    """The pass table and --after print a stored pass's name and argument through the one choke point (as
    Triton's, tests/hostile/test_terminal_controls.py): controls as escapes; the path in it is only text."""
    from .test_terminal_controls import PAYLOADS, assert_shown_not_obeyed, canary

    payload = PAYLOADS[name]
    outside = tmp_path / "outside" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text("never shown\n")
    passes = tilelang_passes(canary(payload[0]), f"../../outside/secret.txt{payload[0]}")
    session = crafted_session(tmp_path, tmp_path / "ran", {"tilelang_cuda": "// k\n"}, passes)
    for args in ((), ("--after", "1"), ("--json",)):
        result = cli("passes", str(session), "-c", "block=128", *args)
        assert result.exit_code == 0, result.stderr
        assert "never shown" not in result.stdout + result.stderr
        if args != ("--json",):  # JSON escapes them its own way (\u001b)
            assert_shown_not_obeyed(result, payload[1])
    assert not (tmp_path / "ran").exists()


def test_a_stored_tilelang_pass_log_too_large_is_refused_in_one_line(cli, tmp_path, monkeypatch):
    """Pass data that unpacks past the limit (``MAX_PASSES_BYTES``, lowered here to 1 MiB so that the test writes
    2 MB, not 512) is refused before it is parsed: exit 5, one line; the variant's other stages still read."""
    from irscope.storage import variants

    big = TIR + "".join(f"# {'x' * 90} {n}\n" for n in range(22_000))  # about 2 MB of TIR
    session = crafted_session(tmp_path, tmp_path / "ran", {"tilelang_cuda": "// k\n"}, tilelang_passes("P", "p", big))
    monkeypatch.setattr(variants, "MAX_PASSES_BYTES", 1 << 20)
    result = cli("passes", str(session), "-c", "block=128")
    one_line_error(result, 5, "unpacks to more than 1 MB")
    monkeypatch.undo()
    assert cli("passes", str(session), "-c", "block=128").exit_code == 0
    assert not (tmp_path / "ran").exists()
