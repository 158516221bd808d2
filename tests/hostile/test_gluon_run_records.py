"""What a program ``irscope run`` ran wrote about its Gluon kernels is data (interop/run/collect.py): a record naming
a layout, a frontend or Gluon source text never runs code. Each payload would create a canary file if Python
evaluated it: the layout text is read only by gluon/layouts.py (literal calls of Triton's layout classes), the
source text only rebuilt (frontends/triton/rebuild.py: a bare signature, the body held to the allowlist).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("triton.experimental.gluon", reason="needs a Triton with Gluon")

SOURCE = """from triton.experimental import gluon
from triton.experimental.gluon import language as gl

open({canary!r}, "w").close()  # module-level code: a rebuild never runs it


@gluon.jit
def k(x_ptr, BLOCK: gl.constexpr, layout: gl.constexpr):
    offs = gl.arange(0, BLOCK, layout=layout)
    gl.store(x_ptr + offs, gl.load(x_ptr + offs){body})
"""


def write_run(root: Path, canary: Path, layout: object, frontend: object = "gluon", body: str = "") -> Path:
    raw = root / "run" / "raw"
    folder = raw / "compiles" / "00000"
    folder.mkdir(parents=True)
    (raw / "sources").mkdir()
    (raw / "sources" / "k.py").write_text(SOURCE.format(canary=str(canary), body=body))
    record = {
        "format": "irscope.triton-compile/1",
        "frontend": frontend,
        "kernel": "k",
        "file": str(root / "k.py"),
        "source": "sources/k.py",
        "params": ["x_ptr", "BLOCK", "layout"],
        "constexprs": ["BLOCK", "layout"],
        "signature": {"x_ptr": "*fp32", "BLOCK": "constexpr", "layout": "constexpr"},
        "constants": {"BLOCK": 128, "layout": layout},
        "divisible": ["x_ptr"],
        "options": {"num_warps": 4},
        "hash": "h",
        "name": "k",
        "arch": 90,
        "stages": {},
    }
    (folder / "compile.json").write_text(json.dumps(record))
    return root / "run"


def collected(run: Path) -> dict:
    from irscope.interop.run.collect import collect

    return collect(run, command=["x"], exit_code=0, wall_s=0.1)


PAYLOADS = [
    "BlockedLayout(__import__('os').system('touch {C}'), [32], [4], [0])",
    "BlockedLayout([4], [32], [4], order=open('{C}', 'w'))",
    "BlockedLayout.__init__.__globals__['__builtins__']['open']('{C}', 'w')",
]


@pytest.mark.parametrize("payload", PAYLOADS, ids=["import", "keyword", "globals"])
def test_a_recorded_layout_is_text_and_a_sweep_of_it_runs_nothing(tmp_path, payload):
    canary = tmp_path / "canary"
    layout = payload.format(C=canary)
    run = write_run(tmp_path, tmp_path / "module-canary", {"layout": layout})
    index = collected(run)
    (kernel,) = index["kernels"]
    assert kernel["why"] is None and kernel["variants"][0]["config"]["layout"] == layout  # kept as the text it is
    env = {**os.environ, "IRSCOPE_NO_GPU": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "irscope", "sweep", str(run / kernel["session"]), "--json"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert all(r["status"] != "ok" for r in rows), done.stdout
    # its one config refused before anything compiles: one line naming the constexpr, exit 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("irscope: error:")]
    assert rows or (done.returncode == 2 and len(errors) == 1 and "layout:" in errors[0]), done.stderr
    assert "Traceback" not in done.stderr
    assert not canary.exists() and not (tmp_path / "module-canary").exists()


def test_the_control_each_payload_is_live_under_eval(tmp_path):
    from triton.experimental.gluon import language as gl

    for i, payload in enumerate(PAYLOADS):
        canary = tmp_path / f"control{i}"
        try:
            eval(payload.format(C=canary), {"__builtins__": __builtins__}, {"BlockedLayout": gl.BlockedLayout})
        except Exception:
            pass
        assert canary.exists(), payload


def test_gluon_source_text_reaching_past_the_allowlist_is_refused(tmp_path):
    canary = tmp_path / "canary"
    body = f"); gl.static_print(gl.__dict__['__builtins__']['open']({str(canary)!r}, 'w')"
    run = write_run(tmp_path, tmp_path / "module-canary", {"layout": "BlockedLayout([4], [32], [4], [0])"}, body=body)
    (kernel,) = collected(run)["kernels"]
    assert "refused" in kernel["why"] and "'__dict__'" in kernel["why"]
    assert not canary.exists() and not (tmp_path / "module-canary").exists()


@pytest.mark.parametrize(
    ("layout", "frontend"),
    [({"layout": 7}, "gluon"), ({"layout": "B(" + "[1]," * 2000 + ")"}, "gluon"), ({"layout": "x"}, "os.system")],
    ids=["not text", "too long", "a frontend that is not one"],
)
def test_a_record_that_is_not_one_is_skipped_with_why(tmp_path, layout, frontend):
    run = write_run(tmp_path, tmp_path / "module-canary", layout, frontend=frontend)
    index = collected(run)
    assert index["kernels"] == [] and len(index["skipped"]) == 1
    assert not (tmp_path / "module-canary").exists()
