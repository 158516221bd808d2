"""What a program ``irscope run`` ran wrote about its Helion kernels is data (interop/run/helion.py,
frontends/helion/recorded.py): a record's kernel name, file, arguments and config never run code, never lead a
read out of the run, and reach the terminal only through the output choke point. The Helion file's and the
generated module's copies hold module-level code that would create a canary if they were imported; the config
values hold payloads that would if they were evaluated (each is live under ``eval``:
test_helion_configs_from_data.py's control).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from irscope.frontends.helion.listen import FORMAT

HELION_FILE = """import helion, torch
open({canary!r}, "w").close()  # module-level code: nothing of a run's data is imported


@helion.kernel
def k(x: torch.Tensor) -> torch.Tensor:
    return x
"""
GENERATED = """import triton
import triton.language as tl
open({canary!r}, "w").close()


@triton.jit
def _helion_k(x, out, BLOCK: tl.constexpr):
    # src[hk.py:7]: return x
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.load(x + offs))
"""
ESC = "\x1b"


def write_run(root: Path, canary: Path, **changes: object) -> Path:
    """A run whose program compiled one Helion config of ``k``: Triton's record of the generated module's compile
    and Helion's record of the config, ``changes`` made to the latter."""
    raw = root / "run" / "raw"
    folder = raw / "compiles" / "00000"
    folder.mkdir(parents=True)
    (raw / "sources").mkdir()
    (raw / "sources" / "hk.py").write_text(HELION_FILE.format(canary=str(canary)))
    (raw / "sources" / "gen.py").write_text(GENERATED.format(canary=str(canary)))
    module = str(root / "gen.py")
    compile_record = {
        "format": "irscope.triton-compile/1",
        "frontend": "triton",
        "kernel": "_helion_k",
        "file": module,
        "source": "sources/gen.py",
        "params": ["x", "out", "BLOCK"],
        "constexprs": ["BLOCK"],
        "signature": {"x": "*fp32", "out": "*fp32", "BLOCK": "constexpr"},
        "constants": {"BLOCK": 8},
        "divisible": ["x", "out"],
        "options": {"num_warps": 4},
        "hash": "h",
        "name": "_helion_k",
        "arch": 90,
        "stages": {},
    }
    (folder / "compile.json").write_text(json.dumps(compile_record))
    helion = {
        "format": FORMAT,
        "kernel": "k",
        "file": str(root / "hk.py"),
        "source": "sources/hk.py",
        "generated": "sources/gen.py",
        "arguments": "float32[8]",
        "config": {"block_sizes": [8], "num_warps": 4, "pid_type": "flat"},
        "module": module,
        **changes,
    }
    (raw / "helion").mkdir()
    (raw / "helion" / "0001.json").write_text(json.dumps(helion))
    return root / "run"


def collected(run: Path) -> dict:
    from irscope.interop.run.collect import collect

    return collect(run, command=["x"], exit_code=0, wall_s=0.1)


def irscope(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "IRSCOPE_NO_GPU": "1"}
    return subprocess.run(
        [sys.executable, "-m", "irscope", *args], capture_output=True, text=True, env=env, timeout=300
    )  # fmt: skip


CRAFTED = {
    "pid_type": "__import__('os').system('touch {C}')",
    "indexing": ["pointer", "[open('{C}', 'w')]"],
    "range_flattens": f"{ESC}]0;pwned\a{ESC}[2J",
}


def test_a_crafted_config_and_file_are_kept_as_text_and_run_nothing(tmp_path):
    canary = tmp_path / "canary"
    config = {"block_sizes": [8], "num_warps": 4}
    config.update({k: json.loads(json.dumps(v).replace("{C}", str(canary))) for k, v in CRAFTED.items()})
    file = f"/../../etc/{ESC}[31mhk.py"
    run = write_run(tmp_path, canary, config=config, file=file)
    index = collected(run)
    (kernel,) = index["kernels"]
    assert kernel["name"] == "k" and kernel["frontend"] == "helion" and kernel["file"] == file
    recorded = kernel["variants"][0]["config"]
    assert recorded["pid_type"] == config["pid_type"]  # the payload kept as the text it is
    assert recorded["indexing"] == repr(config["indexing"])
    session = run / kernel["session"]
    assert session.resolve().is_relative_to(run.resolve())
    shown = irscope("dump", str(session), "--stage", "helion_triton")
    assert shown.returncode == 0, shown.stderr
    assert "_helion_k" in shown.stdout and ESC not in shown.stdout + shown.stderr and "Traceback" not in shown.stderr
    more = irscope("sweep", str(session), "-s", "num_warps=2")  # compiles only from a file the user names
    assert more.returncode != 0 and "irscope does not import a kernel file" in more.stderr
    assert ESC not in more.stderr and "Traceback" not in more.stderr
    assert not canary.exists()


@pytest.mark.parametrize(
    "changes",
    [
        {"kernel": "../k"},
        {"kernel": f"k{ESC}[2J"},
        {"source": "../../outside.py"},
        {"generated": "/etc/passwd"},
        {"arguments": "float32[8]; __import__('os')"},
        {"config": {"block_sizes": {"repr": "x"}}},
        {"config": {"bad name": 1}},
        {"config": "Config(block_sizes=[8])"},
        {"module": 7},
        {"format": "irscope.helion-config/0"},
    ],
    ids=[
        "a path for a name",
        "terminal controls in the name",
        "a source outside the run",
        "a generated text outside the run",
        "arguments that are not -S",
        "an object for a value",
        "a field that is not a name",
        "a config as text",
        "a module that is not a path",
        "another format",
    ],
)
def test_a_record_that_is_not_one_is_skipped_with_why_and_the_compile_kept(tmp_path, changes):
    canary = tmp_path / "canary"
    (tmp_path / "outside.py").write_text("secret")
    index = collected(write_run(tmp_path, canary, **changes))
    assert len(index["skipped"]) == 1 and index["skipped"][0].startswith("helion/0001.json")
    (kernel,) = index["kernels"]  # the generated Triton kernel, kept as Triton's recorder saw it
    assert kernel["name"] == "_helion_k" and kernel["frontend"] == "triton"
    assert not canary.exists()
