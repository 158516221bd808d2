"""What a GPU worker's start-up needs that a CPU machine can check: the command's timeline across
processes, and where a worker keeps bytecode when Python would keep none (tests/perf/probe_cli_timeline.py
found both on the device: 3.1 s of a 4.3 s start-up was compiling torch's sources)."""

from __future__ import annotations

import os
import subprocess
import sys

from irscope.processes import own_python
from irscope.storage.files import private_folder


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True, timeout=120
    )


def test_the_timeline_puts_a_process_and_the_workers_it_starts_on_one_clock(tmp_path):
    log = tmp_path / "timeline"
    code = (
        "import time, subprocess, sys; from irscope.processes.timeline import mark; mark('parent starts'); time.sleep(0.3); "
        "subprocess.run([sys.executable, '-c', 'from irscope.processes.timeline import mark; mark(\"child marks\")'], "
        "check=True); mark('parent ends')"
    )
    done = _run(code, {"IRSCOPE_TIMELINE": str(log), "IRSCOPE_TIMELINE_T0": ""})
    assert done.returncode == 0, done.stderr
    lines = [line.split(None, 2) for line in log.read_text().splitlines()]
    steps = [step for _, _, step in lines]
    assert steps == ["parent starts", "child marks", "parent ends"]
    seconds = [float(t) for t, _, _ in lines]
    assert seconds == sorted(seconds) and seconds[1] - seconds[0] >= 0.3  # the child counts from the parent's start
    assert lines[0][1] == lines[2][1] != lines[1][1]  # pids tell the processes apart


def test_without_the_variable_nothing_is_written(tmp_path):
    done = _run("from irscope.processes.timeline import mark; mark('x')", {"IRSCOPE_TIMELINE": ""})
    assert done.returncode == 0 and not list(tmp_path.iterdir())


def _prefix(env: dict[str, str]) -> dict[str, str]:
    code = "import json; from irscope.processes.own_python import bytecode_prefix; print(json.dumps(bytecode_prefix()))"
    done = _run(code, env)
    assert done.returncode == 0, done.stderr
    import json

    return json.loads(done.stdout)


def _install_without_bytecode(root):
    """A ``torch`` package with no bytecode beside it, first on the path (only looked up, never imported)."""
    package = root / "site" / "torch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('a stand-in: looked up, never imported')\n")
    return {"PYTHONPATH": os.pathsep.join([str(root / "site"), *sys.path])}


def test_workers_keep_bytecode_in_the_cache_where_torch_has_none_and_none_may_be_written(tmp_path):
    env = {**_install_without_bytecode(tmp_path), "IRSCOPE_CACHE_DIR": str(tmp_path), "PYTHONPYCACHEPREFIX": ""}
    prefix = _prefix({**env, "PYTHONDONTWRITEBYTECODE": "1"})
    assert prefix == {"PYTHONPYCACHEPREFIX": str(tmp_path / "bytecode"), "PYTHONDONTWRITEBYTECODE": ""}
    assert (tmp_path / "bytecode").stat().st_mode & 0o777 == 0o700
    # A worker started with it writes a module's bytecode there, and reads it next time.
    module = tmp_path / "src" / "some_module.py"
    module.parent.mkdir()
    module.write_text("X = 1\n")
    assert _run("import some_module", {**prefix, "PYTHONPATH": str(module.parent)}).returncode == 0
    assert list((tmp_path / "bytecode").rglob("some_module.*.pyc"))
    assert not (module.parent / "__pycache__").exists()  # nothing beside the user's sources
    # Python may write it beside torch itself: no prefix (the next import reads it from there).
    assert _prefix({**env, "PYTHONDONTWRITEBYTECODE": ""}) == {}


def test_an_install_with_its_bytecode_is_left_alone_even_when_python_writes_none(tmp_path):
    # A prefix would make Python ignore torch's own bytecode and compile it all again in each fresh cache
    # (a compile worker then ran past a 4 s --compile-timeout in the hostile tests).
    assert (
        _prefix({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "", "IRSCOPE_CACHE_DIR": str(tmp_path)}) == {}
    )


def test_a_users_own_prefix_is_left_alone(tmp_path):
    env = _install_without_bytecode(tmp_path)
    assert _prefix({**env, "PYTHONPYCACHEPREFIX": str(tmp_path / "mine"), "PYTHONDONTWRITEBYTECODE": "1"}) == {}


def test_bytecode_is_never_kept_in_a_folder_others_can_write(tmp_path):
    shared = tmp_path / "bytecode"
    shared.mkdir()
    shared.chmod(0o777)
    assert not private_folder(shared)
    assert (
        _prefix({"PYTHONDONTWRITEBYTECODE": "1", "IRSCOPE_CACHE_DIR": str(tmp_path), "PYTHONPYCACHEPREFIX": ""}) == {}
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    linked = tmp_path / "linked"
    linked.symlink_to(elsewhere)
    assert not private_folder(linked)  # a link to a folder is not this folder
    assert private_folder(tmp_path / "fresh" / "deeper")
    assert own_python.environment().get(own_python.WORKER_ENV) == str(os.getpid())


def test_cuda_visible_devices_is_read_as_cuda_reads_indices_and_nothing_else_is_guessed():
    from irscope.nvidia.device import _visible_count

    assert _visible_count(None, 2) == 2
    assert _visible_count("1,0", 2) == 2
    assert _visible_count("0,3,1", 2) == 1  # CUDA's list ends at the first index that is no GPU
    assert _visible_count("3", 2) == 0
    for only_cuda_knows in ("GPU-5e2f", "MIG-1234", "0,0", "", "-1", "0,,1", "0x1", " 1 ", "0, 1", "٣", "²"):
        assert _visible_count(only_cuda_knows, 2) is None, only_cuda_knows


def test_an_irscope_imported_from_a_folder_not_installed_is_the_one_its_workers_import(tmp_path):
    # A checkout run as `python -m irscope` from its root: the working directory, which workers never get, is
    # the only place irscope is found. The workers must be given the folder holding the package (not the
    # package folder itself, as after processes/ was made: every compile worker died "No module named irscope").
    import irscope

    (tmp_path / "irscope").symlink_to(os.path.dirname(irscope.__file__))
    code = (
        "import json, os, irscope; from irscope.processes.own_python import environment; "
        "print(json.dumps([irscope.__file__, environment()['PYTHONPATH']]))"
    )
    parent = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert parent.returncode == 0, parent.stderr
    imported, workers_path = __import__("json").loads(parent.stdout)
    assert imported == str(tmp_path / "irscope" / "__init__.py")
    worker = subprocess.run(
        own_python.command("import irscope; print(irscope.__file__)"),
        cwd=tmp_path.parent,
        env={**os.environ, "PYTHONPATH": workers_path},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert worker.returncode == 0, worker.stderr
    assert worker.stdout.strip() == imported
