"""Triton's cache and dump folders are someone else's data (interop/triton_cache.py): each case starts from a
real cache (tests/triton_folders.py) and damages one compile folder of it. Reading never runs what the files
hold, never follows a path or link out of a compile folder (the group file's absolute paths included), and a
compile that does not read is left out with one note while the others open; a folder with nothing readable
is one line and exit 5."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from expect import one_line_error

from irscope.cli import main
from irscope.errors import ExitCode
from irscope.interop.triton_cache import folder_sessions, read_folder
from irscope.stages import Stage

pytestmark = pytest.mark.triton_api  # the folders are written by the Triton the tests run with

CANARY = "IRSCOPE_CANARY_7f3a"


@pytest.fixture
def cache(triton_folders, tmp_path) -> Path:
    """A copy of the real cache, to damage."""
    return Path(shutil.copytree(triton_folders.cache, tmp_path / "cache", symlinks=True))


def _folder(cache: Path, kernel: str = "add_kernel", warps: int = 8) -> Path:
    return next(p.parent for p in cache.glob(f"*/{kernel}.json") if f'"num_warps": {warps},' in p.read_text())


def _notes(cache: Path, kernel: str | None = None) -> tuple[list, list[str]]:
    notes: list[str] = []
    return folder_sessions(cache, kernel, note=notes.append), notes


def _payload(marker: Path) -> str:
    return f"__import__('pathlib').Path({str(marker)!r}).write_text('ran')  # {CANARY}"


def test_code_in_any_file_is_never_run(cache, tmp_path):
    marker = tmp_path / "ran"
    folder = _folder(cache)
    for name in ("add_kernel.source", "add_kernel.ttir", "__grp__add_kernel.json"):
        with open(folder / name, "a") as f:
            f.write(f"\n{_payload(marker)}\n")
    (folder / "add_kernel.py").write_text(_payload(marker))  # a file Triton never writes: not a stage, not read
    (folder / "sitecustomize.py").write_text(_payload(marker))
    meta = json.loads((folder / "add_kernel.json").read_text())
    meta["triton_version"] = _payload(marker)
    (folder / "add_kernel.json").write_text(json.dumps(meta))
    sessions, _ = _notes(cache)
    result = CliRunner().invoke(main, ["dump", f"{cache}:add_kernel", "-c", "num_warps=8", "--stage", "ttir"])
    assert result.exit_code == 0 and CANARY in result.stdout  # shown as text, exactly as the file holds it
    assert not marker.exists()
    assert {s.kernel.name for s in sessions} == {"add_kernel", "scale_kernel"}


def test_a_link_out_of_a_compile_folder_is_refused_and_its_compile_left_out(cache, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.ptx").write_text(f"// {CANARY}\n")
    folder = _folder(cache)
    (folder / "add_kernel.ptx").unlink()
    (folder / "add_kernel.ptx").symlink_to(outside / "secret.ptx")
    # a whole compile folder that is a link out of the cache is not one of its compiles
    shutil.copytree(_folder(cache, warps=4), outside / "linked")
    (cache / "LINKEDFOLDER").symlink_to(outside / "linked")
    sessions, notes = _notes(cache, "add_kernel")
    (session,) = sessions
    assert len(session) == 1 and all(CANARY not in v.listings[Stage.PTX] for v in session)
    assert any(folder.name in n and "outside" in n for n in notes), notes
    assert not any("LINKEDFOLDER" in n for n in notes)


def test_the_group_files_paths_are_never_followed(cache, tmp_path):
    outside = tmp_path / "elsewhere.ptx"
    outside.write_text(f"// {CANARY}\n")
    folder = _folder(cache)
    group = folder / "__grp__add_kernel.json"
    paths = {name: str(outside) for name in json.loads(group.read_text())["child_paths"]}
    paths["add_kernel.ttir"] = "../../../../etc/passwd"
    group.write_text(json.dumps({"child_paths": paths}))
    (session,) = folder_sessions(cache, "add_kernel")
    assert all(CANARY not in v.listings[Stage.PTX] and "root:" not in v.listings[Stage.TTIR] for v in session)
    assert sorted(v.config.options["num_warps"] for v in session) == [4, 8]


@pytest.mark.parametrize(
    "key, value",
    [
        ("num_warps", 10**30),
        ("num_warps", -4),
        ("num_warps", "8"),
        ("num_warps", True),
        ("num_stages", 1e308),
        ("target", {"backend": "cuda", "arch": 10**40, "warp_size": 32}),
        ("target", {"backend": "hip", "arch": 90, "warp_size": 32}),  # a vendor's word against its arch
        ("shared", 2**70),
        ("name", "scale_kernel"),  # the metadata names another kernel than its files
    ],
)
def test_odd_numbers_and_names_in_metadata_leave_that_compile_out(cache, key, value):
    folder = _folder(cache)
    meta = json.loads((folder / "add_kernel.json").read_text())
    meta[key] = value
    (folder / "add_kernel.json").write_text(json.dumps(meta))
    notes: list[str] = []
    (session,) = folder_sessions(cache, "add_kernel", note=notes.append)
    assert [v.config.options["num_warps"] for v in session] == [4]
    assert any(line.startswith(folder.name) for line in notes), notes


def test_truncated_and_odd_files(cache):
    folder = _folder(cache)
    text = (folder / "add_kernel.json").read_text()
    (folder / "add_kernel.json").write_text(text[: len(text) // 2])  # cut short: not JSON
    other = _folder(cache, "add_kernel", 4)
    cubin = (other / "add_kernel.cubin").read_bytes()
    (other / "add_kernel.cubin").write_bytes(cubin[:100])  # cut short: nvdisasm cannot read it
    scale = next(cache.glob("*/scale_kernel.ptx")).parent
    (scale / "scale_kernel.ttgir").unlink()
    os.mkfifo(scale / "scale_kernel.ttgir")  # a FIFO is refused, never waited on
    (cache / "notes.txt").write_text("not a compile")
    (cache / "empty").mkdir()
    notes: list[str] = []
    sessions = {s.kernel.name: s for s in folder_sessions(cache, note=notes.append)}
    assert [v.config.options["num_warps"] for v in sessions["add_kernel"]] == [4]
    (kept,) = sessions["add_kernel"]
    assert Stage.SASS not in kept.listings and kept.stage_errors.get(Stage.SASS)  # said why, the rest kept
    assert len(sessions["scale_kernel"]) == 1
    assert any(folder.name in n and "corrupted" in n for n in notes), notes
    assert any(scale.name in n for n in notes), notes


def test_names_that_are_not_kernels(cache):
    folder = _folder(cache)
    for path in folder.iterdir():
        if path.name.startswith("add_kernel."):
            path.rename(folder / path.name.replace("add_kernel", "add kernel;rm"))
    (session,) = folder_sessions(cache, "add_kernel", note=lambda line: None)
    assert len(session) == 1
    assert any("not an identifier" in line for line in read_folder(cache).skipped)


def test_a_folder_with_nothing_readable_is_one_line_and_exit_5(tmp_path):
    folder = tmp_path / "cache" / "ABCDEF"
    folder.mkdir(parents=True)
    (folder / "k.ttir").write_text("")
    (folder / "k.json").write_text("{")
    result = CliRunner().invoke(main, ["dump", str(tmp_path / "cache")])
    one_line_error(result, ExitCode.SESSION_ERROR, "no compile of a Triton kernel irscope can read")
    missing = CliRunner().invoke(main, ["dump", f"{tmp_path / 'cache'}:other_kernel"])
    one_line_error(missing, ExitCode.SESSION_ERROR)
