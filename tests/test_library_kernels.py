"""Library kernels as their authors wrote them: ``irscope run``, ``pkg.module:kernel``, ``-S``/``-c``, the API, KernelSpec.

idiomlib (tests/fixtures/idiomlib) is a package written for these tests in the idioms of Liger, FLA and
Helion: module-level constexprs, helpers imported from another module (one defined in an ``if``),
libdevice by name, ``None`` arguments, a string constexpr, a runtime argument after constexprs,
heuristics on ``None``, an autotune list sized from the device, a host TensorDescriptor. A program
calling it runs under ``irscope run`` on this machine without a GPU; every kernel it launched must
have a session whose PTX equals Triton's own compile of that launch (the JIT's ``warmup`` with the
program's arguments, here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
LIBRARY = FIXTURES / "idiomlib"
PROGRAM = FIXTURES / "idiomlib_program.py"
PACKAGE = LIBRARY / "idiomlib"


def irscope(*args: str, cwd: Path, library: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    extra = {"PYTHONPATH": str(LIBRARY)} if library else {}
    return subprocess.run(
        [sys.executable, "-m", "irscope", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**base, "IRSCOPE_NO_GPU": "1", **extra, **(env or {})},
        timeout=900,
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("library-run")
    # A Triton cache of its own: Triton keys its cache on the source, not the path.
    env = {"TRITON_CACHE_DIR": str(folder / "triton")}
    result = irscope("run", "-o", "out", "--", sys.executable, str(PROGRAM), "--tma", cwd=folder, env=env)
    index = json.loads((folder / "out" / "run.json").read_text()) if (folder / "out" / "run.json").is_file() else {}
    return folder, result, index


@pytest.fixture
def fresh_library(monkeypatch):
    """idiomlib importable here, and imported afresh: it reads the device at import (its block list)."""
    monkeypatch.syspath_prepend(str(LIBRARY))
    for name in [m for m in sys.modules if m == "idiomlib" or m.startswith("idiomlib.")]:
        monkeypatch.delitem(sys.modules, name)
    yield
    for name in [m for m in sys.modules if m == "idiomlib" or m.startswith("idiomlib.")]:
        del sys.modules[name]


def _sessions(index: dict, folder: Path) -> dict[str, list]:
    from irscope.session import Session

    out: dict[str, list] = {}
    for row in index["kernels"]:
        session = Session.open(folder / "out" / row["session"])
        out.setdefault(row["name"], []).extend(session.variant(e) for e in session.entries)
    return out


def _warmups(kernel: str, variant) -> object:
    """Triton's own compile of the launch the program made with ``variant``'s config: the JIT's warmup."""
    import torch
    from idiomlib.ops import generated, loss, norm, scan, tma
    from triton.tools.tensor_descriptor import TensorDescriptor

    from irscope.frontends.triton.autotune import jit_of

    meta: dict[str, Any] = {"device": "meta"}
    constexprs = dict(variant.config.constexprs)
    options = {k: v for k, v in variant.config.options.items() if k in ("num_warps", "num_stages")}
    if kernel == "rms_norm_fwd":
        x, w = torch.empty(8, 200, **meta), torch.empty(200, **meta)
        return norm.rms_norm_fwd.warmup(x, 200, x, 200, w, 200, 1e-6, **constexprs, **options, grid=(1,))
    if kernel == "cross_entropy_fwd":
        weighted = constexprs["HAS_WEIGHT"]
        logits, target = torch.empty(8, 1000, **meta), torch.empty(8, dtype=torch.int64, **meta)
        return loss.cross_entropy_fwd.warmup(
            X_ptr=logits,
            X_stride=1000,
            Y_ptr=target,
            weight_ptr=torch.empty(1000, **meta) if weighted else None,
            loss_ptr=torch.empty(8, **meta),
            n_cols=1000,
            softcap=30.0 if constexprs["HAS_SOFTCAPPING"] else None,
            n_non_ignore=8,
            **constexprs,
            **options,
            grid=(1,),
        )
    if kernel == "chunk_cumsum_kernel":
        g = torch.empty(2, 256, 4, **meta)
        inner = jit_of(scan.chunk_cumsum_kernel)
        args = dict(s=g, o=torch.empty(2, 256, 4, **meta), scale=None, cu_seqlens=None, T=256)
        return inner.warmup(**args, **constexprs, **options, grid=(1,))
    if kernel == "_generated_add":
        a = torch.empty(64, 64, **meta)
        return generated._generated_add.warmup(a, a, a, **options, grid=(1,))
    if kernel == "desc_scale":
        x = torch.empty(128, 128, dtype=torch.float16, **meta)
        src, dst = TensorDescriptor.from_tensor(x, [64, 64]), TensorDescriptor.from_tensor(x, [64, 64])
        return tma.desc_scale.warmup(src, dst, 2.0, **constexprs, **options, grid=(1,))
    raise AssertionError(kernel)


def test_every_kernel_the_program_launched_has_a_session_of_tritons_own_compile(
    recorded, fresh_library, monkeypatch, tmp_path
):
    from triton import knobs

    from irscope.frontends.triton.gpu_free import gpu_free_import

    folder, result, index = recorded
    assert result.returncode == 0, result.stderr
    assert "idiomlib program finished" in result.stdout
    assert index["mode"] == "stand-in (no GPU)" and index["stand_in"]["name"] == "NVIDIA H100 80GB HBM3"
    assert index["not_recorded"] == [] and index["errors"] == [] and index["skipped"] == []
    names = sorted(row["name"] for row in index["kernels"])
    assert names == [
        "_generated_add",
        "chunk_cumsum_kernel",
        "cross_entropy_fwd",
        "cross_entropy_fwd",
        "desc_scale",
        "rms_norm_fwd",
    ]
    assert all(row["session"] and row["why"] is None for row in index["kernels"])  # each rebuilds from its record
    sessions = _sessions(index, folder)
    # The autotune list sized from the stand-in H100's shared memory: FLA's larger list, every config compiled.
    blocks = sorted((v.config.constexprs["BS"], v.config.options["num_warps"]) for v in sessions["chunk_cumsum_kernel"])
    assert blocks == [(32, 2), (32, 4), (64, 2), (64, 4)]
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    with gpu_free_import(90), knobs.compilation.scope():
        knobs.compilation.always_compile = True
        for name, variants in sessions.items():
            for variant in variants:
                own = _warmups(name, variant)
                assert variant.ok and variant.listings["ptx"] == own.asm["ptx"], (name, variant.config.label())


def test_on_an_rtx_5090_the_library_picks_that_cards_configs(recorded, tmp_path):
    """The same program on a stand-in RTX 5090 (99 KB of shared memory per block): the smaller block list, as
    idiomlib's rule (FLA's) gives for that card's figure, compiled for sm_120; the H100 run got the larger."""
    from irscope.gpu_models import MODELS
    from irscope.session import Session

    env = {"TRITON_CACHE_DIR": str(tmp_path / "triton")}
    result = irscope(
        "run", "--gpu", "RTX5090", "-o", "out", "--", sys.executable, str(PROGRAM), "--only-scan", cwd=tmp_path, env=env
    )
    assert result.returncode == 0, result.stderr
    index = json.loads((tmp_path / "out" / "run.json").read_text())
    assert index["stand_in"]["name"] == "NVIDIA GeForce RTX 5090" and index["arch"] == "sm_120"
    # The program asks torch.cuda.is_available(), which only a real device answers: listed, in run.json and on stderr.
    assert "torch.cuda.is_available()" in index["stand_in"]["unanswered"]
    assert "irscope:   torch.cuda.is_available(): answered False" in result.stderr
    (row,) = index["kernels"]
    session = Session.open(tmp_path / "out" / row["session"])
    variants = [session.variant(e) for e in session.entries]
    shared = MODELS["RTX5090"].triton_properties()["max_shared_mem"]
    assert shared == 101376 < 102400  # so the rule picks [16, 32]; the H100's 232448 picks [32, 64]
    assert sorted({v.config.constexprs["BS"] for v in variants}) == [16, 32]
    assert all(".target sm_120a" in v.listings["ptx"] or ".target sm_120" in v.listings["ptx"] for v in variants)
    _, _, h100 = recorded
    assert h100["stand_in"]["gpu"] == "H100"


SWEEP_FROM_DISK = """
import sys
from irscope.capturing import capture_many
from irscope.named import open_named

for folder in sys.argv[1:]:
    named = open_named(folder, need_kernel=True)
    stored = [named.session.variant(e) for e in named.session.entries[:2]]
    again = sorted(capture_many(named.kernel, [v.config for v in stored], "sm_90", use_cache=False),
                   key=lambda c: c.index)  # they come as they finish
    for old, new in zip(stored, again):
        if old.listings["ptx"] != new.variant.listings.get("ptx"):
            import difflib
            diff = difflib.unified_diff(old.listings["ptx"].splitlines(), new.variant.listings.get("ptx", "").splitlines())
            raise AssertionError((folder, old.config.label(), new.variant.error, chr(10).join(list(diff)[:30])))
assert not any(m == "idiomlib" or m.startswith("idiomlib.") for m in sys.modules), "the library was imported"
print("rebuilt", len(sys.argv) - 1)
"""


def test_a_recorded_library_kernel_compiles_again_and_anew_without_its_package(recorded):
    """From the sessions alone (idiomlib not on the import path): each recorded config compiles to the JIT's PTX
    again, rebuilt from the recorded text and names without importing anything, and new variants sweep."""
    folder, _, index = recorded
    out = folder / "out"
    folders = [str(out / row["session"]) for row in index["kernels"]]
    done = subprocess.run(
        [sys.executable, "-c", SWEEP_FROM_DISK, *folders],
        capture_output=True,
        text=True,
        env={**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "IRSCOPE_NO_GPU": "1"},
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    swept = irscope("sweep", str(out / "kernels" / "rms_norm_fwd"), "-s", "num_warps=2,8", "--json", cwd=folder)
    assert swept.returncode == 0, swept.stderr
    rows = [json.loads(line) for line in swept.stdout.splitlines() if line.strip()]
    assert sorted(r["num_warps"] for r in rows) == [2, 8] and all(r["status"] == "ok" for r in rows)


def _ptx(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["listings"]["ptx"]


def _recorded_ptx(recorded, name: str, **constexprs) -> str:
    folder, _, index = recorded
    for variant in _sessions(index, folder)[name]:
        if all(variant.config.values().get(k) == v for k, v in constexprs.items()):
            return variant.listings["ptx"]
    raise AssertionError(f"no recorded {name} with {constexprs}")


LOSS = "idiomlib.ops.loss:cross_entropy_fwd"
# cross_entropy_fwd as the program's first launch made it: weight_ptr and softcap None, reduction "mean".
LOSS_NONE = (
    "X_ptr=*fp32:16, X_stride=i32, Y_ptr=*i64:16, weight_ptr=None, loss_ptr=*fp32:16, n_cols=i32, "
    "softcap=None, n_non_ignore=i32"
)
LOSS_SET = ("-c", "HAS_WEIGHT=False", "-c", "HAS_SOFTCAPPING=False", "-c", "BLOCK_SIZE=1024", "-c", "num_warps=8")


def test_a_package_kernel_named_the_python_way_with_none_and_a_string_in_s_and_c(recorded, tmp_path):
    """``idiomlib.ops.loss:cross_entropy_fwd`` is imported by its name (its relative imports resolve); None and a
    string given in -S, in -c, or the two mixed give the program's own compile of each launch."""
    first = _recorded_ptx(recorded, "cross_entropy_fwd", reduction="mean")
    dump = ("dump", LOSS, "--json", "--arch", "sm_90")
    in_s = irscope(*dump, "-S", LOSS_NONE + ", reduction='mean'", *LOSS_SET, cwd=tmp_path)
    assert _ptx(in_s) == first
    typed = LOSS_NONE.replace("weight_ptr=None", "weight_ptr=*fp32:16").replace("softcap=None", "softcap=fp32")
    in_c = irscope(
        *dump,
        "-S",
        typed,
        "-c",
        "weight_ptr=None",
        "-c",
        "softcap=None",
        "-c",
        "reduction=mean",
        *LOSS_SET,
        cwd=tmp_path,
    )
    assert _ptx(in_c) == first
    second = _recorded_ptx(recorded, "cross_entropy_fwd", reduction="sum")
    weighted = irscope(
        *dump,
        "-S",
        typed,
        "-c",
        "reduction='sum'",
        "-c",
        "HAS_WEIGHT=True",
        "-c",
        "HAS_SOFTCAPPING=True",
        "-c",
        "BLOCK_SIZE=1024",
        "-c",
        "num_warps=8",
        cwd=tmp_path,
    )
    assert _ptx(weighted) == second


def test_a_host_tensor_descriptor_in_s_and_a_heuristic_reading_none(recorded, tmp_path):
    desc = irscope(
        "dump",
        "idiomlib.ops.tma:desc_scale",
        "--json",
        "--arch",
        "sm_90",
        "-S",
        "tensordesc<fp16[64,64]>, tensordesc<fp16[64, 64]>, fp32",
        "-c",
        "BLOCK_M=64",
        "-c",
        "BLOCK_N=64",
        cwd=tmp_path,
    )
    assert _ptx(desc) == _recorded_ptx(recorded, "desc_scale")
    scan = ("dump", "idiomlib.ops.scan:chunk_cumsum_kernel", "--json", "--arch", "sm_90")
    values = ("-c", "B=2", "-c", "H=4", "-c", "BT=64", "-c", "BS=64", "-c", "num_warps=4")
    none = irscope(*scan, "-S", "s=*fp32:16, o=*fp32:16, scale=None, cu_seqlens=None, T=i32", *values, cwd=tmp_path)
    assert _ptx(none) == _recorded_ptx(recorded, "chunk_cumsum_kernel", BS=64, num_warps=4, HAS_SCALE=False)
    # Given only its type, the heuristic cannot be evaluated: the line says what value means None.
    typed = irscope(*scan, "-S", "s=*fp32:16, o=*fp32:16, scale=fp32, cu_seqlens=*i32, T=i32", *values, cwd=tmp_path)
    assert typed.returncode == 2 and typed.stderr.count("\n") == 1
    assert "-c scale=None" in typed.stderr or "-c cu_seqlens=None" in typed.stderr


def test_without_a_signature_the_template_names_the_kernels_own_parameters(tmp_path):
    done = irscope("dump", LOSS, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "X_ptr=?, X_stride=?, Y_ptr=?, weight_ptr=?" in done.stderr and "reduction=-" in done.stderr
    missing = irscope("dump", "idiomlib.ops.no_such_module:k", cwd=tmp_path)
    assert missing.returncode == 2 and "no module named 'idiomlib.ops.no_such_module'" in missing.stderr
    elsewhere = irscope("dump", LOSS, cwd=tmp_path, library=False)
    assert elsewhere.returncode == 2 and "is its package installed" in elsewhere.stderr


# Each way a parameter can imply its type: an annotation (Triton's string form or tl's dtype), a default
# (float, int, bool, None), a constexpr's default (a number, a string, None) or none (``-``: set it with -c).
ANNOTATED = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def annotated(FREE: tl.constexpr, x_ptr: "*fp16", out, n: tl.int32, m: "i64", scale=1.5, count=3, flag=False,
                  bias=None, BLOCK: tl.constexpr = 128, mode: tl.constexpr = "mean", LAST: tl.constexpr = None):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
""")
ANNOTATED_TEMPLATE = (
    "FREE=-, x_ptr=*fp16, out=?, n=i32, m=i64, scale=fp32, count=i32, flag=u1, bias=None, BLOCK=128, "
    "mode='mean', LAST=None"
)


def test_the_template_gives_the_types_annotations_and_defaults_imply(tmp_path, cli, no_gpu, monkeypatch):
    """The template filled in where it says ``?`` (and ``-`` set with -c) is the JIT's own compile of a launch
    with those defaults: unaligned fp16 pointers, ints that are not 1 nor a multiple of 16."""
    import torch
    from triton import knobs

    from irscope.frontends.triton.gpu_free import gpu_free_import
    from irscope.frontends.triton.kernel_files import load_module

    path = tmp_path / "annotated.py"
    path.write_text(ANNOTATED)
    asked = cli("dump", f"{path}:annotated")
    assert asked.exit_code == 2 and asked.stderr.count("\n") == 1
    assert f'--signature "{ANNOTATED_TEMPLATE}" (fill in each ?)' in asked.stderr
    filled = ANNOTATED_TEMPLATE.replace("out=?", "out=*fp16")
    result = cli("dump", f"{path}:annotated", "-S", filled, "-c", "FREE=1", "--arch", "sm_90", "--json")
    assert result.exit_code == 0, result.stderr
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    with gpu_free_import(90), knobs.compilation.scope():
        knobs.compilation.always_compile = True
        x, out = torch.empty(65, dtype=torch.float16)[1:], torch.empty(65, dtype=torch.float16)[1:]
        assert x.data_ptr() % 16 and out.data_ptr() % 16  # *fp16, no :16
        own = load_module(path).annotated.warmup(1, x, out, 17, 19, 1.5, 3, False, None, grid=(1,))
    assert json.loads(result.stdout)["listings"]["ptx"] == own.asm["ptx"]


def test_the_python_api_takes_none_strings_and_descriptors(recorded, fresh_library, no_gpu):
    import irscope

    typed = LOSS_NONE.replace("softcap=None", "softcap=fp32")
    config = {
        "reduction": "mean",
        "softcap": None,
        "HAS_WEIGHT": False,
        "HAS_SOFTCAPPING": False,
        "BLOCK_SIZE": 1024,
        "num_warps": 8,
    }
    variant = irscope.capture(LOSS, config, signature=typed, arch="sm_90")
    assert variant.listings["ptx"] == _recorded_ptx(recorded, "cross_entropy_fwd", reduction="mean")
    desc = irscope.capture(
        "idiomlib.ops.tma:desc_scale",
        {"BLOCK_M": 64, "BLOCK_N": 64},
        signature="tensordesc<fp16[64, 64]>, tensordesc<fp16[64, 64]>, fp32",
        arch="sm_90",
    )
    assert desc.listings["ptx"] == _recorded_ptx(recorded, "desc_scale")


# A spec file for library kernels, the last resort: it imports them (and not torch: idiomlib does), gives plain
# constexpr values, passes None and a runtime argument after constexprs, and host descriptors.
SPECS = textwrap.dedent("""\
    import triton
    from triton.tools.tensor_descriptor import TensorDescriptor

    from idiomlib.ops.loss import cross_entropy_fwd
    from idiomlib.ops.scan import chunk_cumsum_kernel
    from idiomlib.ops.tma import desc_scale
    from irscope.spec import KernelSpec, Tensor

    loss_spec = KernelSpec(
        cross_entropy_fwd,
        sizes=dict(rows=8, n_cols=1000),
        tensors=dict(logits=Tensor("float32", "rows, n_cols"), target=Tensor("int64", "rows"),
                     loss=Tensor("float32", "rows", output=True)),
        # the runtime arguments in order: softcap (None) comes after the constexpr reduction
        args=lambda k: (k.logits, k.n_cols, k.target, None, k.loss, k.n_cols, None, k.rows),
        grid=lambda k: (k.rows,),
        constexprs=dict(reduction="mean", HAS_WEIGHT=False, HAS_SOFTCAPPING=False, BLOCK_SIZE=1024),
        num_warps=8,
    )
    desc_spec = KernelSpec(
        desc_scale,
        sizes=dict(M=128, N=128),
        tensors=dict(x=Tensor("float16", "M, N"), y=Tensor("float16", "M, N", output=True)),
        args=lambda k: (TensorDescriptor.from_tensor(k.x, [k.BLOCK_M, k.BLOCK_N]),
                        TensorDescriptor.from_tensor(k.y, [k.BLOCK_M, k.BLOCK_N]), 2.0),
        grid=lambda k: (triton.cdiv(k.M, k.BLOCK_M), triton.cdiv(k.N, k.BLOCK_N)),
        constexprs=dict(BLOCK_M=64, BLOCK_N=64),
    )
    scan_spec = KernelSpec(
        chunk_cumsum_kernel,
        sizes=dict(B=2, T=256, H=4),
        tensors=dict(g=Tensor("float32", "B, T, H"), o=Tensor("float32", "B, T, H", output=True)),
        args=lambda k: dict(s=k.g, o=k.o, scale=None, cu_seqlens=None, T=k.T),  # by name
        grid=lambda k: (triton.cdiv(k.T, 64) * k.B * k.H,),
        constexprs=dict(B=2, H=4, BT=64),
    )
""")


def test_a_spec_file_for_library_kernels(recorded, tmp_path, cli, no_gpu, fresh_library):
    from irscope.frontends.triton.kernel_files import kernel_in_file

    spec = tmp_path / "library_specs.py"
    spec.write_text(SPECS)
    loss = kernel_in_file(spec, "cross_entropy_fwd", None)
    # The kernel's own file is its source (its line numbers, --source); the spec file is only where it was found.
    assert loss.file == str(PACKAGE / "ops" / "loss.py") and loss.source() == (PACKAGE / "ops" / "loss.py").read_text()
    assert loss.handle().file == str(spec)
    for name, constexprs in (("cross_entropy_fwd", {"reduction": "mean"}), ("desc_scale", {})):
        result = cli("dump", f"{spec}:{name}", "--json", "--arch", "sm_90")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout)["listings"]["ptx"] == _recorded_ptx(recorded, name, **constexprs)
    # The spec has no `import torch`, but idiomlib asks torch.cuda at import: answered as the stand-in H100.
    table = kernel_in_file(spec, "chunk_cumsum_kernel", None).parameter_table()
    assert sorted(set(table["BS"]["configs"])) == [32, 64]
