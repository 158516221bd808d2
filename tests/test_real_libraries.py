"""The libraries themselves under ``irscope run`` without a GPU: Liger's rms_norm, layer_norm, swiglu, rope and
cross-entropy, FLA's chunked cumsum and chunk_h, and a Helion kernel (examples/library_kernels.py, as docs/run.md
shows it). Every kernel the program launched has a session whose PTX equals Triton's own compile of that launch:
the library's own JIT function, imported in a fresh process, ``warmup`` with the arguments the launch passed
(the Helion kernel, a Helion session under its own name since irscope run records Helion: the PTX Triton itself
cached for the launch of its generated ``_helion_matmul``).

liger-kernel 0.8.5, fla-core 0.6.0 and helion 1.5.1 are test dependencies (.ci/run installs them); without them the
test skips and says so. tests/test_library_kernels.py proves the same idioms on kernels written for the tests.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parent.parent / "examples" / "library_kernels.py"
LIBRARIES = ("liger_kernel", "fla", "helion")

# The example as it is, with one change made by the program, not by irscope: chunk_h's autotuner keeps 2 of its
# 48 configs (each compiles; 48 took ~200 s of the example's 252 s here, 2 cores).
PROGRAM = f"""
import runpy
from fla.ops.common import chunk_h

tuner = chunk_h.chunk_fwd_kernel_h.fn
tuner.configs = tuner.configs[:2]
runpy.run_path({str(EXAMPLE)!r}, run_name="__main__")
"""

# In a fresh Python: each session's variants against the library's own JIT warmup of the launch recorded for it.
WARMUPS = """
import importlib, importlib.util, json, sys
from pathlib import Path

import torch
from triton import knobs

from irscope.frontends.triton.autotune import jit_of
from irscope.frontends.triton.gpu_free import gpu_free_import
from irscope.gpu_models import parse_gpu
from irscope.session import Session

out = Path(sys.argv[1])
index = json.loads((out / "run.json").read_text())


def module_of(file):
    for root in sorted({p for p in sys.path if p}, key=len, reverse=True):
        if file.startswith(root.rstrip("/") + "/") and "site-packages" in root:
            return importlib.import_module(file[len(root.rstrip("/")) + 1 : -3].replace("/", "."))
    spec = importlib.util.spec_from_file_location("generated_by_helion", file)  # Helion's generated file
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def argument(value):
    if isinstance(value, dict) and "tensor" in value:
        assert value["aligned"], value
        dtype = getattr(torch, value["tensor"].removeprefix("torch."))
        return torch.empty_strided(value["shape"], value["stride"], dtype=dtype, device="meta")
    return value


checked = {}
with gpu_free_import(parse_gpu("H100")), knobs.compilation.scope():
    knobs.compilation.always_compile = True
    for row in index["kernels"]:
        if row.get("frontend") == "helion":  # a Helion session: against Triton's own compile of its launch, as the
            # program's JIT cached it (irscope's own compiles, in the cache's irscope/ folder, left out)
            root = Path(sys.argv[2])
            cached = {
                p.read_text() for p in root.rglob(row["launched_as"] + ".ptx") if p.relative_to(root).parts[0] != "irscope"
            }
            session = Session.open(out / row["session"])
            for entry in session.entries:
                variant = session.variant(entry)
                assert variant.ok and variant.listings["ptx"] in cached, (row["name"], len(cached))
                checked[row["name"]] = checked.get(row["name"], 0) + 1
            continue
        jit = jit_of(getattr(module_of(row["file"]), row["name"]))
        launches = {v["label"]: v["launches"][0] for v in row["variants"]}
        session = Session.open(out / row["session"])
        for entry in session.entries:
            variant = session.variant(entry)
            launch = launches[variant.config.label()]
            args = {name: argument(value) for name, value in launch["arguments"].items()}
            args.update(variant.config.constexprs)
            own = jit.warmup(**args, **variant.config.options, grid=tuple(launch["grid"]))
            assert variant.ok and variant.listings["ptx"] == own.asm["ptx"], (row["name"], variant.config.label())
            checked[row["name"]] = checked.get(row["name"], 0) + 1
print(json.dumps(checked))
"""


@pytest.mark.skipif(
    not all(importlib.util.find_spec(name) for name in LIBRARIES),
    reason="liger-kernel, fla-core and helion are not installed (.ci/run installs them)",
)
def test_every_kernel_the_libraries_launched_has_a_session_of_tritons_own_compile(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        "IRSCOPE_NO_GPU": "1",
        "TRITON_CACHE_DIR": str(tmp_path / "triton"),  # Triton keys its cache on the source, not the path
    }
    done = subprocess.run(
        [sys.executable, "-m", "irscope", "run", "-o", "out", "--", sys.executable, "program.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    index = json.loads((tmp_path / "out" / "run.json").read_text())
    assert index["stand_in"]["name"] == "NVIDIA H100 80GB HBM3"
    assert index["not_recorded"] == [] and index["errors"] == [] and index["skipped"] == []
    expected = {
        "_rms_norm_forward_kernel": 1,
        "_layer_norm_forward_kernel": 1,
        "_swiglu_forward_kernel": 1,
        "_triton_rope": 1,
        "liger_cross_entropy_kernel": 1,
        "chunk_local_cumsum_scalar_kernel": 4,  # its autotuner's 4 configs
        "chunk_fwd_kernel_h": 2,
        "matmul": 1,  # the Helion kernel, under its own name (launched as its generated _helion_matmul)
    }
    assert {row["name"]: len(row["variants"]) for row in index["kernels"]} == expected
    (helion,) = [row for row in index["kernels"] if row.get("frontend") == "helion"]
    assert (helion["name"], helion["launched_as"]) == ("matmul", "_helion_matmul")
    assert all(row["session"] and row["why"] is None for row in index["kernels"])
    warmed = subprocess.run(
        [sys.executable, "-c", WARMUPS, str(tmp_path / "out"), str(tmp_path / "triton")],
        capture_output=True,
        text=True,
        env={**env, "TRITON_CACHE_DIR": str(tmp_path / "warmups")},
        timeout=900,
    )
    assert warmed.returncode == 0, warmed.stderr
    assert json.loads(warmed.stdout.splitlines()[-1]) == expected
