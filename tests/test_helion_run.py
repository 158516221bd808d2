"""``irscope run`` on a program that calls a ``@helion.kernel``, without a GPU (the stand-in card): the Helion
kernel is recorded under its own name with each config Helion compiled for the call (every field, as Helion
normalized it), its stages the generated Triton (``helion_triton``) then the JIT's own, byte-equal to ``irscope
dump`` of the same Helion file, arguments and config, and a PTX line lights the Helion line it came from. A plain
Triton kernel in the same program is recorded beside it as before. The kernel and program are written for this
test (examples/helion_centred.py, examples/helion_run.py): the first call is Helion's idiom (a config in the
decorator, the kernel called), the second binds the kernel and sets another config.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_run import irscope  # `python -m irscope` as irscope run records without a GPU

pytest.importorskip("helion", reason="needs helion (pip install irscope[helion])")

# Written for this test and shown in docs/helion.md: the kernel's file, and the program that calls it beside it.
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KERNEL_FILE = EXAMPLES / "helion_centred.py"
PROGRAM = EXAMPLES / "helion_run.py"
ARGUMENTS = "float16[64,256], float32"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("helion_run")
    result = irscope("run", "-o", "out", "--", sys.executable, str(PROGRAM), cwd=folder)
    index = json.loads((folder / "out" / "run.json").read_text())
    return folder, result, {k["name"]: k for k in index["kernels"]}, index


def test_the_helion_kernel_is_recorded_under_its_name_with_each_config(recorded):
    folder, result, kernels, index = recorded
    assert result.returncode == 0, result.stderr
    assert "done" in result.stdout and "centred_exp" in result.stdout
    assert set(kernels) == {"centred_exp", "plain_add"} and index["not_recorded"] == [] and index["skipped"] == []
    helion = kernels["centred_exp"]
    assert helion["frontend"] == "helion" and helion["file"] == str(KERNEL_FILE)
    assert helion["arguments"] == ARGUMENTS and helion["launched_as"] == "_helion_centred_exp"
    assert helion["session"] == "kernels/centred_exp"
    configs = [v["config"] for v in helion["variants"]]
    # every field, as Helion normalized each config (the rest at its defaults), kept as the text -c takes
    assert [(c["block_sizes"], c["num_warps"]) for c in configs] == [("[4]", "4"), ("[16]", "8")]
    assert all(c["pid_type"] == "flat" and c["indexing"].startswith("['pointer'") for c in configs)
    assert (
        kernels["plain_add"]["variants"][0]["config"]["BLOCK"] == 1024 and kernels["plain_add"]["frontend"] == "triton"
    )
    # counted by language: before, the Helion kernel was one of "2 Triton kernels"
    assert "1 Helion kernel, 1 Triton kernel, " in result.stdout


@pytest.fixture(scope="module")
def compared(recorded):
    """Each recorded variant beside irscope's own compile of the same Helion file, arguments and config, compiled
    in this process, which resolving the kernel made import Helion: a worker would import torch and Helion again
    for each (~9 s of CPU here; this fixture took 24 s here before, 3.4 s now)."""
    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel
    from irscope.session import Session

    folder = recorded[0]
    session = Session.open(folder / "out" / "kernels" / "centred_exp")
    kernel = resolve_kernel(f"{KERNEL_FILE}:centred_exp", ARGUMENTS)
    pairs = [
        (session.variant(e), capture(kernel, dict(e.config.options), "sm_90", compile_timeout=None))
        for e in session.entries
    ]
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
        assert "# src[helion_centred.py:" in variant.listings[Stage.HELION_TRITON]


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
    assert "helion_centred.py:centred_exp" in done.stderr and "irscope does not import a kernel file" in done.stderr


@pytest.mark.parametrize("name", ["centred_exp", "_helion_centred_exp"], ids=["its own name", "its Triton name"])
def test_k_keeps_the_helion_kernel_by_its_own_name_or_its_triton_name(tmp_path, name):
    """-k centred_exp kept nothing before (the child matched the Triton name alone); the name a profiler shows
    still selects it, and the plain Triton kernel beside it is left out either way."""
    result = irscope("run", "-k", name, "-o", "out", "--", sys.executable, str(PROGRAM), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    index = json.loads((tmp_path / "out" / "run.json").read_text())
    (kernel,) = index["kernels"]
    assert kernel["name"] == "centred_exp" and kernel["frontend"] == "helion" and len(kernel["variants"]) == 2


def test_a_users_triton_kernel_named_as_helion_names_its_own_is_not_taken_for_helions(tmp_path):
    """-k foo keeps a Helion kernel foo's ``_helion_foo``, not a plain Triton kernel the user named ``_helion_foo``
    (no Helion runtime in its module)."""
    import importlib.util

    from irscope.frontends.triton.listen import Window, _is_helion

    (tmp_path / "own.py").write_text("import triton\n\n\n@triton.jit\ndef _helion_foo(x):\n    pass\n")
    spec = importlib.util.spec_from_file_location("own", tmp_path / "own.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert not _is_helion(module._helion_foo)
    window = Window("foo")
    assert not window.wants("_helion_foo")
    window.helion_names.add("_helion_foo")  # as the listener marks a kernel Helion generated
    assert window.wants("_helion_foo") and Window("regex:^foo$", 0).wants("foo")
