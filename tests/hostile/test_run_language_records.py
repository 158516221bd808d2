"""What a program under ``irscope run`` writes about its CuTe DSL and TileLang compiles is data
(interop/run/compiles.py): the program itself writes crafted records into its run's raw/ folder, as any
program may. A kernel named by a path stays a folder inside kernels/; terminal controls in a name or a
reason reach the terminal escaped; a payload in a parameter stays text, and the session that holds it,
naming a kernel file whose import would run a payload, is read, shown and refused a sweep without
running anything; a stage file outside the record's folder, a stage the language does not make, a language
that is not one: each record skipped with one note. Real ``irscope run``, ``report``, ``dump``, ``sweep``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PTX = ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n"

# The program: writes the records where irscope's recorder would, then ends. {RECORDS} is a JSON list of
# (stem, record, {file name: text}).
PROGRAM = textwrap.dedent("""
    import json, os, pathlib
    folder = pathlib.Path(os.environ["IRSCOPE_RUN_DIR"]) / "language_compiles"
    folder.mkdir(parents=True, exist_ok=True)
    for stem, record, files in json.loads({RECORDS!r}):
        (folder / stem).mkdir()
        for name, text in files.items():
            (folder / stem / name).write_text(text)
        (folder / f"{stem}.json").write_text(json.dumps(record))
    print("wrote")
""")


def compiled_record(name: str, frontend: str, file: str, payload: str, stages: dict[str, str]) -> dict:
    return {
        "format": "irscope.run.compile/1",
        "frontend": frontend,
        "name": name,
        "file": file,
        "called_at": {"file": file, "line": 3},
        "arch": "sm_90a",
        "source": Path(file).read_text(),
        "source_hash": "0" * 64,
        "table": {"tile": {"default": payload, "sweep": [payload], "kind": "constexpr"}},
        "signature": "float32[128]",
        "config": {"constexprs": {"tile": payload}},
        "compiled": {
            "stages": stages,
            "cubin": None,
            "shared": 0,
            "options": {"entry": "k", "gpu_arch": "sm_90a"},
            "threads_per_block": 128,
            "compiler": "nvidia-cutlass-dsl 4.8.1",
            "seconds": 0.5,
            "cubin_resources": {},
            "error": None,
        },
    }


def test_crafted_cute_and_tilelang_records_open_safely_and_run_nothing(tmp_path):
    canary, module_canary = tmp_path / "ran", tmp_path / "module-ran"
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    kernel_file = theirs / "k.py"
    kernel_file.write_text(
        f"__import__('pathlib').Path({str(module_canary)!r}).touch()\nimport cutlass.cute as cute\n\n\n"
        "@cute.jit\ndef k(a, tile: cutlass.Constexpr = 128):\n    pass\n"
    )
    payload = f"__import__('os').system('touch {canary}')"
    controls = "k\x1b]0;pwned\x07\x1b[31mred"
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    records = [
        ("0001", compiled_record("../../escape", "cute", str(kernel_file), payload, {"ptx": "ptx.txt"}), {"ptx.txt": PTX}),
        ("0002", {"format": "irscope.run.compile/1", "frontend": "tilelang", "name": controls, "file": "f.py",
                  "error": "its compile failed in the program: \x1b[2J\x1b[31mboom"}, {}),
        ("0003", compiled_record("reach", "cute", str(kernel_file), "1", {"ptx": f"../../../../{outside}"}), {}),
        ("0004", compiled_record("wrong", "cute", str(kernel_file), "1", {"ttir": "ttir.txt"}), {"ttir.txt": "x"}),
        ("0005", compiled_record("what", "os.system", str(kernel_file), "1", {"ptx": "ptx.txt"}), {"ptx.txt": PTX}),
    ]  # fmt: skip
    (tmp_path / "prog.py").write_text(PROGRAM.replace("{RECORDS!r}", repr(json.dumps(records))))
    env = {**os.environ, "IRSCOPE_NO_GPU": "1"}

    def irscope(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "irscope", *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
        )

    done = irscope("run", "-o", "out", "--", sys.executable, "prog.py")
    assert "wrote" in done.stdout
    # The failed compile is listed, so the run says so; no terminal control reaches the terminal as it is.
    assert done.returncode == 1 and "was launched but not recorded" in done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    for skipped in ("reach", "wrong", "what"):
        assert f"language_compiles/000{3 + ('reach', 'wrong', 'what').index(skipped)}.json" in done.stderr
    index = json.loads((tmp_path / "out" / "run.json").read_text())
    (row,) = index["kernels"]
    assert row["name"] == "../../escape" and row["session"] == "kernels/escape" and row["frontend"] == "cute"
    assert row["variants"][0]["config"] == {"tile": payload}  # the payload is kept as the text it is
    assert [lost["kernel"] for lost in index["not_recorded"]] == [controls]
    assert sorted(os.listdir(tmp_path / "out" / "kernels")) == ["escape"]
    assert not (tmp_path / "escape").exists() and outside.read_text() == "secret"
    # Opened, shown and swept: nothing runs, the kernel file is never imported.
    report = irscope("report", "out", "-o", "page.html")
    assert report.returncode == 0, report.stderr
    shown = irscope("dump", "out/kernels/escape", "--stage", "ptx", "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["listings"]["ptx"] == PTX
    swept = irscope("sweep", "out/kernels/escape", "--json")
    assert swept.returncode == 2 and "irscope does not import a kernel file a session names" in swept.stderr
    assert not canary.exists() and not module_canary.exists()


def test_the_control_the_kernel_files_import_runs_its_payload(tmp_path):
    """Not vacuous: importing the crafted record's kernel file, as a compile begins, runs its payload."""
    module_canary = tmp_path / "module-ran"
    path = tmp_path / "k.py"
    path.write_text(f"__import__('pathlib').Path({str(module_canary)!r}).touch()\n")
    subprocess.run([sys.executable, str(path)], check=True, timeout=60)
    assert module_canary.exists()


def test_records_behind_a_link_out_of_the_run_are_not_read(tmp_path):
    """``raw/language_compiles`` a link to a folder outside the run (holding a record that would name a session),
    and a record that is itself a link to a file outside: neither is read; the run's index holds nothing of them."""
    from irscope.interop.run.collect import collect

    outside = tmp_path / "outside"
    outside.mkdir()
    kernel_file = tmp_path / "k.py"
    kernel_file.write_text("x = 1\n")
    (outside / "0001").mkdir()
    (outside / "0001" / "ptx.txt").write_text(PTX)
    record = compiled_record("linked", "cute", str(kernel_file), "1", {"ptx": "ptx.txt"})
    (outside / "0001.json").write_text(json.dumps(record))
    run = tmp_path / "run"
    (run / "raw").mkdir(parents=True)
    (run / "raw" / "language_compiles").symlink_to(outside)
    notes: list[str] = []
    index = collect(run, command=["x"], exit_code=0, wall_s=0.1, on_note=notes.append)
    assert index["kernels"] == [] and index["not_recorded"] == []
    (run / "raw" / "language_compiles").unlink()
    (run / "raw" / "language_compiles").mkdir()
    (run / "raw" / "language_compiles" / "0001").mkdir()
    (run / "raw" / "language_compiles" / "0001.json").symlink_to(outside / "0001.json")
    index = collect(run, command=["x"], exit_code=0, wall_s=0.1, on_note=notes.append)
    assert index["kernels"] == [] and not (run / "kernels" / "linked").exists()
    assert any("0001.json" in n for n in notes), notes


@pytest.mark.parametrize(
    "table",
    [
        {"tile": {"default": 1, "sweep": "abc", "kind": "constexpr"}},
        {"a\x1b[2J": {"default": 1}},
        {"tile": {"default": 1, "sweep": [1], "kind": 7}},
    ],
    ids=["a sweep that is not a list", "a parameter with only a default", "a kind that is not text"],
)
def test_a_record_whose_parameter_table_a_session_would_refuse_is_skipped_not_written(tmp_path, table):
    """Written into a session, such a table made a session irscope then refused to open (exit 5), the
    compile lost without a word; now the record is skipped with why, and a sound one beside it is kept."""
    from irscope.interop.run.collect import collect

    kernel_file = tmp_path / "k.py"
    kernel_file.write_text("x = 1\n")
    run = tmp_path / "run"
    folder = run / "raw" / "language_compiles"
    for stem, name, bad in (("0001", "bad", True), ("0002", "good", False)):
        (folder / stem).mkdir(parents=True)
        (folder / stem / "ptx.txt").write_text(PTX)
        record = compiled_record(name, "cute", str(kernel_file), "1", {"ptx": "ptx.txt"})
        if bad:
            record["table"] = table
        (folder / f"{stem}.json").write_text(json.dumps(record))
    notes: list[str] = []
    index = collect(run, command=["x"], exit_code=0, wall_s=0.1, on_note=notes.append)
    assert [row["name"] for row in index["kernels"]] == ["good"]
    assert any("0001.json" in n and "parameter" in n for n in notes), notes
    assert not (run / "kernels" / "bad").exists()


def test_a_cluster_shape_that_is_not_one_skips_its_record(tmp_path):
    """A record's cluster is the launch's x, y, z CTAs, each 1 to 9999: anything else is not read."""
    kernel_file = tmp_path / "k.py"
    kernel_file.write_text(
        "import cutlass.cute as cute\n\n\n@cute.jit\ndef k(a, tile: cutlass.Constexpr = 1):\n    pass\n"
    )
    shapes = [[0, 1, 1], [2, 1], ["2", 1, 1], [True, 1, 1], [2, 1, 10_000], "2x1x1", {"x": 2}]
    records = []
    for n, cluster in enumerate(shapes, 1):
        record = compiled_record(f"k{n}", "cute", str(kernel_file), "1", {"ptx": "ptx.txt"})
        record["compiled"]["cluster"] = cluster
        records.append((f"{n:04d}", record, {"ptx.txt": PTX}))
    (tmp_path / "prog.py").write_text(PROGRAM.replace("{RECORDS!r}", repr(json.dumps(records))))
    done = subprocess.run(
        [sys.executable, "-m", "irscope", "run", "-o", "out", "--", sys.executable, "prog.py"],
        capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "IRSCOPE_NO_GPU": "1"}, timeout=300,
    )  # fmt: skip
    assert "wrote" in done.stdout and "Traceback" not in done.stderr
    for n in range(1, len(shapes) + 1):
        assert f"language_compiles/{n:04d}.json" in done.stderr, done.stderr
    assert done.stderr.count("compiled.cluster") == len(shapes)
    assert not (tmp_path / "out" / "kernels").exists() or not os.listdir(tmp_path / "out" / "kernels")


def test_a_recorded_cluster_is_shown_and_a_stored_one_that_is_not_a_shape_is_exit_5(tmp_path):
    """A well-formed cluster reaches the session (dump's summary says it); a variant.json whose
    resources.cluster is anything but ``AxBxC`` (terminal controls, a payload) is refused in one line."""
    kernel_file = tmp_path / "k.py"
    kernel_file.write_text(
        "import cutlass.cute as cute\n\n\n@cute.jit\ndef k(a, tile: cutlass.Constexpr = 1):\n    pass\n"
    )
    record = compiled_record("k", "cute", str(kernel_file), "1", {"ptx": "ptx.txt"})
    record["compiled"]["cluster"] = [2, 1, 1]
    (tmp_path / "prog.py").write_text(
        PROGRAM.replace("{RECORDS!r}", repr(json.dumps([("0001", record, {"ptx.txt": PTX})])))
    )
    env = {**os.environ, "IRSCOPE_NO_GPU": "1"}

    def irscope(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "irscope", *args], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
        )

    done = irscope("run", "-o", "out", "--", sys.executable, "prog.py")
    assert done.returncode == 0, done.stderr
    shown = irscope("dump", "out/kernels/k", "--stage", "ptx")
    assert shown.returncode == 0 and " · cluster 2x1x1 · " in shown.stderr, shown.stderr
    (variant_json,) = (tmp_path / "out" / "kernels" / "k").glob("variants/*/variant.json")
    for bad in ("\x1b[31m2x1x1", "2x1x1\n", "0x1x1", "2x1", 2, ["2", 1, 1], "__import__('os')"):
        data = json.loads(variant_json.read_text())
        data["resources"]["cluster"] = bad
        variant_json.write_text(json.dumps(data))
        refused = irscope("dump", "out/kernels/k", "--stage", "ptx")
        assert refused.returncode == 5, (bad, refused.stderr)
        assert refused.stderr.count("\n") == 1 and "cluster" in refused.stderr and "Traceback" not in refused.stderr
        assert "\x1b" not in refused.stderr + refused.stdout
