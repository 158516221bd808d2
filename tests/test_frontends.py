"""The frontend seam: languages found by entry point and described before any compiler is imported; the
frontend and source language on every Variant; options that are each language's own; two-level source maps."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from irscope.capturing import capture
from irscope.errors import ParameterError
from irscope.frontends import FRONTENDS, Frontend, frontend, frontend_info, frontend_infos, resolve_kernel
from irscope.frontends.config import resolve_config
from irscope.frontends.registry import BUILTIN, GROUP
from irscope.ir.dialects import DIALECTS
from irscope.stages import Stage

REPO = Path(__file__).resolve().parent.parent


def test_pyproject_registers_the_builtin_frontends_as_entry_points_and_the_install_lists_them():
    from importlib.metadata import entry_points

    text = (REPO / "pyproject.toml").read_text()
    section = text[text.index(f'[project.entry-points."{GROUP}"]') :].split("\n\n")[0].splitlines()[1:]
    declared = dict(line.replace('"', "").split(" = ") for line in section)
    assert declared == BUILTIN
    assert {ep.name: ep.value for ep in entry_points(group=GROUP) if ep.name in BUILTIN} == BUILTIN
    assert list(FRONTENDS)[:3] == ["triton", "cuda", "numba"]


def test_listing_and_describing_the_frontends_imports_no_compiler_and_no_frontend_module():
    code = (
        "import sys, json; from irscope.frontends import FRONTENDS, frontend_infos; names = list(FRONTENDS); "
        "infos = frontend_infos(); "
        "print(json.dumps([names, sorted(m for m in sys.modules if m.split('.')[0] in ('triton', 'torch', 'numba') "
        "or m.endswith(('.frontend', '.kernel')) and m.startswith('irscope.frontends'))]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    names, imported = json.loads(done.stdout)
    assert names[:3] == ["triton", "cuda", "numba"] and imported == [], done.stderr


@pytest.mark.parametrize("name", list(BUILTIN))
def test_each_frontend_describes_itself_completely_and_loads_as_it_says(name):
    info = frontend_info(name)
    assert info.name == name and info.display_name and info.objects
    assert info.source_language in DIALECTS, f"{name}'s source language is no registered dialect"
    loaded = frontend(name)
    assert isinstance(loaded, Frontend) and loaded.name == name and loaded.suffixes == info.suffixes
    if info.version_option:
        assert info.version_option in info.options
    for option, spec in info.all_options().items():
        assert spec.words, f"{name}'s option {option} says nothing about its values"


def test_a_language_in_a_package_of_its_own_is_one_folder_plus_its_entry_point(tmp_path):
    """A frontend shipped by another distribution: its package (one folder) and one entry point in its metadata.
    irscope lists it after its own, describes it, and loads it, with no change to irscope."""
    site = tmp_path / "site"
    package = site / "toy_lang"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from irscope.frontends.info import FrontendInfo, OptionSpec\n"
        "def _load():\n"
        "    from .frontend import ToyFrontend\n"
        "    return ToyFrontend()\n"
        "FRONTEND = FrontendInfo(name='toy', display_name='Toy', source_language='python', load=_load,\n"
        "    suffixes=('.toy',), objects='a toy kernel', options={'lanes': OptionSpec('8 or 16', (8, 16))})\n"
    )
    (package / "frontend.py").write_text(
        "from irscope.frontends.base import Frontend\n"
        "class ToyFrontend(Frontend):\n"
        "    name = 'toy'\n"
        "    suffixes = ('.toy',)\n"
        "    def kernel_names(self, path): return ['k']\n"
        "    def resolve(self, path, name, signature=None): raise NotImplementedError\n"
        "    def load(self, handle): raise NotImplementedError\n"
    )
    dist = site / "toy_lang-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-lang\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[{GROUP}]\ntoy = toy_lang:FRONTEND\n")
    code = (
        "import json, sys; from irscope.frontends import FRONTENDS, frontend, frontend_info; "
        "from irscope.frontends.config import config_from_table; "
        "before = 'toy_lang' in sys.modules; names = list(FRONTENDS); info = frontend_info('toy'); "
        "c = config_from_table({}, {'lanes': '16'}, 'k', 'toy'); "
        "print(json.dumps([names, before, info.display_name, frontend('toy').kernel_names(None), c.options]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**_env(), "PYTHONPATH": str(site)},
    )
    names, imported_early, display, kernels, options = json.loads(done.stdout)
    assert names == [*BUILTIN, "toy"] and not imported_early, done.stderr
    assert (display, kernels, options) == ("Toy", ["k"], {"lanes": 16})


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def test_a_variant_carries_its_frontend_and_source_language_through_a_session(tmp_path):
    from irscope.storage.variants import read_variant, write_variant

    variant = capture("square_kernel", {}, arch="sm_90")
    assert (variant.frontend, variant.source_language, variant.generated_by) == ("triton", "python", "")
    write_variant(tmp_path / "v", variant)
    back = read_variant(tmp_path / "v", source=variant.listings[Stage.SOURCE])
    assert (back.frontend, back.source_language) == ("triton", "python")
    # A variant written before it said so: its compiler says it, read in one place (storage/variants.py).
    meta = json.loads((tmp_path / "v" / "variant.json").read_text())
    for key in ("frontend", "source_language", "generated_by"):
        del meta[key]
    (tmp_path / "v" / "variant.json").write_text(json.dumps(meta))
    old = read_variant(tmp_path / "v", source=variant.listings[Stage.SOURCE])
    assert (old.frontend, old.source_language, old.generated_by) == ("triton", "python", "")


def test_a_cuda_variant_says_its_source_is_cuda_and_findings_name_its_lines_cpp():
    from irscope.annotating.findings import _language

    variant = capture("square_matrix_kernel", {}, arch="sm_90")
    assert (variant.frontend, variant.source_language) == ("cuda", "cuda")
    assert _language(variant) == "C++"
    assert _language(replace(variant, source_language="python")) == "Python"  # not read from the compiler's name


def test_options_are_each_languages_own():
    cuda = resolve_kernel("square_matrix_kernel")
    with pytest.raises(
        ParameterError, match="^num_warps is an option of Triton kernels; square_matrix_kernel is a cuda"
    ):
        resolve_config(cuda, {"num_warps": "8"})
    with pytest.raises(ParameterError, match="names the Triton that compiles a Triton kernel"):
        resolve_config(cuda, {"triton": "3.6.0"})
    assert resolve_config(cuda, {"block": "16x16"}).options["block"] == "16x16"
    triton = resolve_kernel("square_kernel")
    with pytest.raises(ParameterError, match="^block is an option of CUDA C\\+\\+ kernels; square_kernel is a triton"):
        resolve_config(triton, {"block": "16x16"})
    with pytest.raises(ParameterError, match="num_warps must be a power of two"):
        resolve_config(triton, {"num_warps": "3"})


def test_a_missing_extra_is_named_by_its_frontend():
    from irscope.frontends.registry import install_hint

    assert install_hint(ModuleNotFoundError("no numba", name="numba.cuda")) == "pip install irscope[numba]"
    assert install_hint(ModuleNotFoundError("no ray", name="ray")) == "pip install irscope[ray]"
    assert install_hint(ModuleNotFoundError("no foo", name="foo")) is None


def test_every_frontend_with_a_recorder_gives_one_irscope_run_can_install(tmp_path):
    recorders = {info.name: info.recorder for info in frontend_infos() if info.recorder is not None}
    assert set(recorders) == {"triton", "cuda", "cute", "tilelang", "helion"}
    made = recorders["helion"](tmp_path, None)  # Helion's waits for helion.runtime.kernel's import (listen.py)
    assert callable(made.install) and callable(made.finish)


# An Inductor-written kernel as Inductor writes one, with the origin comments it leaves above the code made
# from each line of the user's model (the second level of the map).
GENERATED = """import triton
import triton.language as tl


@triton.jit
def triton_poi_fused_add_mul_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    # File: /work/model.py:12 in forward, code: y = x * 2
    tmp0 = tl.load(in_ptr0 + (xindex), xmask)
    tmp1 = tmp0 * 2.0
    # File: /work/model.py:13 in forward, code: return y + 1
    tmp2 = tmp1 + 1.0
    tl.store(out_ptr0 + (xindex), tmp2, xmask)
"""


def test_a_generated_kernel_maps_each_stage_line_through_its_source_to_the_users_line(tmp_path):
    pytest.importorskip("torch")  # an Inductor kernel is rebuilt with the modules Inductor's kernels import
    from irscope.frontends.triton.rebuild import rebuilt_kernel
    from irscope.frontends.triton.signature import SignatureArg
    from irscope.ir.interleave import interleave_source
    from irscope.ir.sourcemap import SourceMap

    file = str(tmp_path / "c4abc.py")
    signature = (SignatureArg("*fp32", 16), SignatureArg("*fp32", 16), SignatureArg("i32", 16), SignatureArg(None))
    kernel = rebuilt_kernel(GENERATED, file, "triton_poi_fused_add_mul_0", signature, inductor=True)
    variant = capture(kernel, config=resolve_config(kernel, {"XBLOCK": 1024}), arch="sm_90", use_cache=False)
    assert variant.ok and variant.generated_by == "inductor"
    smap = SourceMap(variant)
    ptx = variant.listings[Stage.PTX].splitlines()
    load = next(i for i, line in enumerate(ptx) if "ld.global" in line)
    store = next(i for i, line in enumerate(ptx) if "st.global" in line)
    lines = GENERATED.splitlines()
    assert lines[smap.source_line(Stage.PTX, load) - 1].strip().startswith("tmp0 = tl.load")
    assert (smap.user_loc(Stage.PTX, load).file, smap.user_loc(Stage.PTX, load).line) == ("/work/model.py", 12)
    # The store is line 15 of the generated file, made from line 13 of the model.
    assert smap.source_line(Stage.PTX, store) == 15 and smap.user_loc(Stage.PTX, store).line == 13
    assert "tl.store(out_ptr0 + (xindex), tmp2, xmask)  <- model.py:13" in interleave_source(variant, Stage.PTX)
    # A kernel the user wrote maps to its own lines: one level.
    own = capture("square_kernel", {}, arch="sm_90")
    i = next(i for i, line in enumerate(own.listings[Stage.PTX].splitlines()) if "ld.global" in line)
    mine = SourceMap(own)
    assert mine.user_loc(Stage.PTX, i).line == mine.source_line(Stage.PTX, i)


@pytest.mark.parametrize(
    "module, file, said",
    [
        ("numba.cuda", "kernels/numba/gelu_numba.py", None),
        ("cutlass.cute", "examples/cute_add.py", "takes tensors"),  # the CuTe DSL's own question: its -S
        ("tilelang", "examples/tilelang_kernels.py", "holds 3 TileLang kernels (add, row_max, matmul)"),
    ],
)
def test_a_file_of_one_languages_kernels_named_without_a_kernel_is_that_languages(module, file, said):
    # Gluon and Helion files were already theirs without :NAME; a Numba, CuTe DSL or TileLang file fell to
    # Triton, which said it "holds 0 kernels (none)" about a file defining `add`.
    pytest.importorskip(module)
    from irscope.errors import UsageError

    path = str(Path(__file__).resolve().parents[1] / file)
    if said is None:
        assert resolve_kernel(path).frontend == "numba"
        return
    with pytest.raises(UsageError, match=re.escape(said)):
        resolve_kernel(path)
