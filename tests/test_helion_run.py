"""``irscope run`` on a program that calls a ``@helion.kernel``, without a GPU (the stand-in card): the Helion
kernel is recorded under its own name with each config Helion compiled for the call (every field, as Helion
normalized it), its stages the generated Triton (``helion_triton``) then the JIT's own, byte-equal to ``irscope
dump`` of the same Helion file, arguments and config, and a PTX line lights the Helion line it came from. A plain
Triton kernel in the same program is recorded beside it as before. The kernel and program are written for this
test: the first call is Helion's idiom (a config in the decorator, the kernel called), the second binds the kernel
and sets another config.
"""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from test_run import irscope  # `python -m irscope` as irscope run records without a GPU

pytest.importorskip("helion", reason="needs helion (pip install irscope[helion])")

KERNEL = textwrap.dedent("""
    import helion
    import helion.language as hl
    import torch


    @helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4), static_shapes=True)
    def centred_exp(x: torch.Tensor, scale: float) -> torch.Tensor:
        n, _ = x.size()
        out = torch.empty_like(x)
        for tile_n in hl.tile(n):
            row = x[tile_n, :].to(torch.float32) * scale
            peak = torch.amax(row, dim=1, keepdim=True)
            out[tile_n, :] = torch.exp(row - peak).to(x.dtype)
        return out
""")
PROGRAM = textwrap.dedent("""
    import helion
    import torch
    import triton
    import triton.language as tl
    from centred import centred_exp

    DEVICE = triton.runtime.driver.active.get_active_torch_device()


    @triton.jit
    def plain_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


    x = torch.rand(64, 256, device=DEVICE, dtype=torch.float16)
    centred_exp(x, 2.0)
    bound = centred_exp.bind((x, 2.0))
    bound.set_config(helion.Config(block_sizes=[16], num_warps=8))
    bound(x, 2.0)
    a = torch.rand(4096, device=DEVICE)
    plain_add[(4,)](a, a, torch.empty_like(a), 4096, BLOCK=1024)
    print("program finished")
""")
ARGUMENTS = "float16[64,256], float32"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("helion_run")
    (folder / "centred.py").write_text(KERNEL)
    (folder / "prog.py").write_text(PROGRAM)
    result = irscope("run", "-o", "out", "--", sys.executable, "prog.py", cwd=folder)
    index = json.loads((folder / "out" / "run.json").read_text())
    return folder, result, {k["name"]: k for k in index["kernels"]}, index


def test_the_helion_kernel_is_recorded_under_its_name_with_each_config(recorded):
    folder, result, kernels, index = recorded
    assert result.returncode == 0, result.stderr
    assert "program finished" in result.stdout and "centred_exp" in result.stdout
    assert set(kernels) == {"centred_exp", "plain_add"} and index["not_recorded"] == [] and index["skipped"] == []
    helion = kernels["centred_exp"]
    assert helion["frontend"] == "helion" and helion["file"] == str(folder / "centred.py")
    assert helion["arguments"] == ARGUMENTS and helion["launched_as"] == "_helion_centred_exp"
    assert helion["session"] == "kernels/centred_exp"
    configs = [v["config"] for v in helion["variants"]]
    # every field, as Helion normalized each config (the rest at its defaults), kept as the text -c takes
    assert [(c["block_sizes"], c["num_warps"]) for c in configs] == [("[4]", "4"), ("[16]", "8")]
    assert all(c["pid_type"] == "flat" and c["indexing"].startswith("['pointer'") for c in configs)
    assert kernels["plain_add"]["variants"][0]["config"]["BLOCK"] == 1024 and "frontend" not in kernels["plain_add"]


@pytest.fixture(scope="module")
def compared(recorded):
    """Each recorded variant beside irscope's own compile of the same Helion file, arguments and config."""
    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel
    from irscope.session import Session

    folder = recorded[0]
    session = Session.open(folder / "out" / "kernels" / "centred_exp")
    kernel = resolve_kernel(f"{folder / 'centred.py'}:centred_exp", ARGUMENTS)
    pairs = [(session.variant(e), capture(kernel, dict(e.config.options), "sm_90")) for e in session.entries]
    return session, kernel, pairs


def test_the_recorded_stages_equal_irscope_dump_of_the_helion_kernel(compared):
    from irscope.types import Stage

    session, kernel, pairs = compared
    assert session.frontend == "helion" and session.kernel == kernel.identity() and len(pairs) == 2
    for variant, own in pairs:
        assert variant.frontend == "helion" and variant.generated_by == "helion" and own.ok
        assert variant.listings[Stage.SOURCE] == kernel.source()
        for stage in (Stage.HELION_TRITON, Stage.TTIR, Stage.TTGIR, Stage.LLIR, Stage.PTX, Stage.SASS):
            assert variant.listings[stage] == own.listings[stage], (variant.config.label(), stage)
        assert "# src[centred.py:" in variant.listings[Stage.HELION_TRITON]


def test_a_ptx_line_maps_to_its_helion_line(compared):
    from irscope.ir.sourcemap import SourceMap
    from irscope.types import Stage

    _, kernel, pairs = compared
    lines = kernel.source().splitlines()
    exp_line = next(i for i, t in enumerate(lines, 1) if "torch.exp" in t)
    peak_line = next(i for i, t in enumerate(lines, 1) if "torch.amax" in t)
    for variant, _ in pairs:
        where = SourceMap(variant)
        ptx = variant.listings[Stage.PTX].splitlines()
        exps = [i for i, t in enumerate(ptx) if "ex2.approx" in t]
        maxes = [i for i, t in enumerate(ptx) if t.strip().startswith("max.")]
        assert exps and maxes
        assert {where.source_line(Stage.PTX, i) for i in exps} == {exp_line}
        assert {where.source_line(Stage.PTX, i) for i in maxes} == {peak_line}
        assert set(where.lines_for(Stage.PTX, exp_line)) >= set(exps)


def test_the_session_says_how_to_compile_more_configs(recorded):
    """A run's data never imports the Helion file it names: new configs are compiled from the file, named."""
    folder = recorded[0]
    done = irscope("sweep", "out/kernels/centred_exp", "-s", "num_warps=2", cwd=folder)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "centred.py:centred_exp" in done.stderr and "irscope does not import a kernel file" in done.stderr
