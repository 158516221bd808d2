"""A session of thousands of variants for the scale tests and benchmark, made without compiling thousands.

What it is: a real session of ``tests/scale_kernel.py:poly`` (a kernel written for these tests) holding
SEEDS variants compiled for real by ``run_sweep``, then each seed written again under other configs
through the session's own writer (``Session.add_many``), until the session holds ``count`` variants.
Every row is a readable variant whose facts (in the index) are one of the seeds': a copy keeps only
the seed's PTX (its other stages say they were not kept), and its listing is not its config's code. What the tests measure (opening, sorting, listing, the TUI's table)
reads the index and never the listings, so the copies stand in for compiled variants there.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config
from irscope.session import Session, run_sweep
from irscope.types import Stage

KERNEL = Path(__file__).with_name("scale_kernel.py")
ARCH = "sm_90"
# Seeds that differ in the facts the table shows (registers, vector widths, lines of PTX), and small:
# every copy writes their files again.
SEEDS = [
    {"BLOCK": 32, "num_warps": 1, "TERMS": 1},
    {"BLOCK": 64, "num_warps": 2, "TERMS": 2},
    {"BLOCK": 256, "num_warps": 1, "TERMS": 3},
    {"BLOCK": 128, "num_warps": 8, "TERMS": 1},
]


def scale_kernel():
    return resolve_kernel(f"{KERNEL}:poly")


def large_configs(kernel, count: int) -> list:
    """``count`` distinct configs: BLOCK x num_warps x TERMS (1,000), then again at other num_stages."""
    from scale_kernel import BLOCKS, TERMS, WARPS

    product = itertools.product((3, 1, 2, 4, 5, 6), BLOCKS, WARPS, TERMS)
    settings = (
        {"num_stages": stages, "BLOCK": b, "num_warps": w, "TERMS": t}
        for stages, b, w, t in itertools.islice(product, count)
    )
    return [resolve_config(kernel, s) for s in settings]


def make_large_session(path: Path, count: int = 5000) -> Session:
    """A session at ``path`` with ``count`` variants: len(SEEDS) compiled, the rest copies of them (see above)."""
    kernel = scale_kernel()
    session = Session.of_kernel(path, kernel, kernel.parameter_table())
    seeds = [resolve_config(kernel, s) for s in SEEDS]
    compiled = [r.variant for r in sorted(run_sweep(kernel, seeds, ARCH, session), key=lambda r: r.index)]
    assert all(v.ok for v in compiled), [str(v.error) for v in compiled]
    have = {c.key() for c in seeds}
    copies = [c for c in large_configs(kernel, count) if c.key() not in have][: count - len(seeds)]
    slim = [_slim(v) for v in compiled]
    session.add_many(replace(slim[n % len(slim)], config=c) for n, c in enumerate(copies))
    return Session.open(path)


def _slim(variant):
    """The seed with its PTX only (2 files a folder instead of 6: creating files is what making 5,000 costs);
    the index's facts are the seed's, taken from it whole."""
    kept = {s: text for s, text in variant.listings.items() if s in (Stage.SOURCE, Stage.PTX)}
    dropped = {s: "not kept in this copy (tests/large_session.py)" for s in variant.listings if s not in kept}
    return replace(variant, listings=kept, stage_errors={**variant.stage_errors, **dropped})
