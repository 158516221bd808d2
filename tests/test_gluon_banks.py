"""Gluon's own ``bank_conflicts`` (frontends/gluon/banks.py) held to irscope's bank analysis (annotating/smem_banks.py)
on a kernel written for it: a 32x32 float tile stored to shared memory and read back (gluon_kernels.py's
gluon_tile_store), its register layout one thread per row or one per column, its shared layout plain or swizzled.

Gluon counts "the excess accesses each wavefront needs" from the two layouts alone; irscope proves, from the
addresses the compiled PTX computes, how many wavefronts each shared access's busiest bank forces against the
fewest it could take. The same conflict is Gluon's N and irscope's N+1-way; none is 0 and no conflict found.
Runs under each Triton CI prepares (``triton_api``): 3.6 to 3.9 answer, 3.5's Gluon has no bank_conflicts.
"""

from __future__ import annotations

import json
import re

import pytest
from gluon_kernels import BY_COLUMN, BY_ROW, GLUON_KERNELS, PLAIN_TILE, SWIZZLED_TILE, TILE_SIGNATURE

pytest.importorskip("triton.experimental.gluon", reason="needs a Triton with Gluon")
from irscope.annotating.smem_banks import bank_patterns
from irscope.arch import Target
from irscope.capturing import capture
from irscope.errors import ParameterError
from irscope.frontends import resolve_kernel
from irscope.frontends.gluon.banks import gluon_bank_conflicts, has_bank_conflicts
from irscope.types import Status

if not has_bank_conflicts():
    pytest.skip("this Triton's Gluon has no bank_conflicts (3.6 and later have it)", allow_module_level=True)
pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)
PAIRS = [(BY_COLUMN, PLAIN_TILE), (BY_COLUMN, SWIZZLED_TILE), (BY_ROW, PLAIN_TILE), (BY_ROW, SWIZZLED_TILE)]


@pytest.fixture(scope="module")
def tile_variants(tmp_path_factory):
    path = tmp_path_factory.mktemp("gluon_banks") / "bank_kernels.py"
    path.write_text(GLUON_KERNELS)
    kernel = resolve_kernel(f"{path}:gluon_tile_store", TILE_SIGNATURE)
    return {pair: capture(kernel, {"layout": pair[0], "shared": pair[1], "num_warps": 1}, "sm_90") for pair in PAIRS}


@pytest.mark.parametrize("pair", PAIRS, ids=["column-plain", "column-swizzled", "row-plain", "row-swizzled"])
def test_gluons_count_is_irscopes_proven_pattern(tile_variants, pair):
    variant = tile_variants[pair]
    assert variant.status is Status.OK, variant.error
    patterns, accesses = bank_patterns(variant)
    assert accesses and len(patterns) == accesses  # every shared access of the tile is proven
    worst = max(p.ways for p in patterns)
    gluon = gluon_bank_conflicts(pair[0], pair[1], (32, 32), "float32", Target.for_arch("sm_90"))
    assert gluon + 1 == worst, (pair, gluon, worst)
    assert (gluon == 0) == (not any(p.conflict for p in patterns))


def test_the_conflicted_tile_is_the_one_written_to_conflict():
    """Present and absent: one thread per row into an unswizzled tile is the only conflicted pair (7 excess: the
    st.shared.v4 of 32 rows, each row's word 0 in bank 0); the swizzle removes it."""
    target = Target.for_arch("sm_90")
    counts = {pair: gluon_bank_conflicts(*pair, (32, 32), "float32", target) for pair in PAIRS}
    assert counts == {(BY_COLUMN, PLAIN_TILE): 7, (BY_COLUMN, SWIZZLED_TILE): 0, (BY_ROW, PLAIN_TILE): 0,
                      (BY_ROW, SWIZZLED_TILE): 0}  # fmt: skip


def test_a_pair_gluon_refuses_is_one_line():
    with pytest.raises(ParameterError, match="refused the layouts") as caught:  # a 1-D layout for a 2-D tile
        gluon_bank_conflicts(
            "BlockedLayout([1], [32], [1], [0])", PLAIN_TILE, (32, 32), "float32", Target.for_arch("sm_90")
        )
    assert "\n" not in str(caught.value) and "Traceback" not in str(caught.value)
    with pytest.raises(ParameterError, match="not a Gluon dtype"):
        gluon_bank_conflicts(BY_COLUMN, PLAIN_TILE, (32, 32), "__class__", Target.for_arch("sm_90"))


def _annotate(cli, path, pair, *more: str):
    layout, shared = pair
    args = ["annotate", f"{path}:gluon_tile_store", "-S", TILE_SIGNATURE, "-c", f"layout={layout}"]
    return cli(*args, "-c", f"shared={shared}", "-c", "num_warps=1", "--findings", *more)


@pytest.fixture(scope="module")
def kernel_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("gluon_banks_cli") / "bank_kernels.py"
    path.write_text(GLUON_KERNELS)
    return path


def test_annotate_prints_gluons_count_beside_irscopes_bank_finding(cli, kernel_file):
    """Present: the conflicted pair (Gluon's 7 under irscope's 8-way finding) and a clean one (0, no conflict)."""
    conflicted = _annotate(cli, kernel_file, (BY_COLUMN, PLAIN_TILE))
    assert conflicted.exit_code == 0, conflicted.output
    text = conflicted.stdout
    bank = text.index("! shared-memory bank conflicts:")
    gluon = text.index("Gluon's bank_conflicts(layout, shared) for 32x32 float32: 7 excess accesses a wavefront")
    following = [m.start() for m in re.finditer(r"\n  [!·] ", text) if m.start() > bank]  # the next findings' titles
    assert "(8-way)" in text[bank:gluon] and (not following or gluon < following[0])  # inside the bank finding
    clean = _annotate(cli, kernel_file, (BY_COLUMN, SWIZZLED_TILE))
    assert "shared-memory accesses force no bank conflict" in clean.stdout
    assert "Gluon's bank_conflicts(layout, shared) for 32x32 float32: no conflict" in clean.stdout
    as_json = _annotate(cli, kernel_file, (BY_COLUMN, PLAIN_TILE), "--json")
    answers = json.loads(as_json.stdout)["gluon_bank_conflicts"]
    assert answers == [
        {"register": "layout", "shared": "shared", "shape": [32, 32], "dtype": "float32", "conflicts": 7}
    ]


def test_annotate_prints_no_gluon_count_where_no_layout_pair_moves_through_shared_memory(cli, kernel_file):
    """Absent: a Gluon kernel with no shared memory (gluon_add), and a Triton kernel."""
    from gluon_kernels import ADD_SIGNATURE, BLOCKED_1D

    add = cli("annotate", f"{kernel_file}:gluon_add", "-S", ADD_SIGNATURE, "-c", "BLOCK=1024", "-c",
              f"layout={BLOCKED_1D}", "--findings")  # fmt: skip
    assert add.exit_code == 0, add.output
    assert "Gluon's bank_conflicts" not in add.stdout and "findings for gluon_add" in add.stdout
    triton = cli("annotate", "square_kernel", "--findings", "--json")
    assert triton.exit_code == 0 and "gluon_bank_conflicts" not in triton.stdout
