"""Diff and session speed (issue 3).

1. A normalised diff with its structural summary of two ~10,000-line PTX listings
   (softmax_kernel, BLOCK_SIZE=16384 on one warp against 32768 on two: 512 elements
   per thread either way, plus a cross-warp reduction in B), target <= 250 ms cold; and of
   the same pair's ~19,000-line SASS, target <= 600 ms cold (issue 28: pure Python). Each with the size
   of the diff against the opcode floor (a diff of opcodes alone, which no renaming beats).
2. Opening a 21-variant session and reading every variant in it, target <= 0.2 s.

Listings are captured (or taken from the cache) first; only the diff and the load are timed.
Median and min of --repeat runs. Each diff is timed cold (what irscope keeps per listing between
diffs is dropped first: tokens, statistics, source lines) and warm (a listing diffed again, as the
TUI does when it steps through a sweep). The cases take turns, one run of each per round, with a
fixed difflib workload among them that says how fast the machine ran meanwhile.

    python tests/perf/bench_diff.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()

    from irscope.capture import capture
    from irscope.config import sweep_configs
    from irscope.diff import diff_variants
    from irscope.diff.render import summary_lines, unified_lines
    from irscope.frontends import resolve_kernel
    from irscope.session import Session, run_sweep
    from irscope.types import Stage

    a = capture("softmax_kernel", {"BLOCK_SIZE": 16384, "num_warps": 1}, arch="sm_90")
    b = capture("softmax_kernel", {"BLOCK_SIZE": 32768, "num_warps": 2}, arch="sm_90")
    lines = [len(v.listings[Stage.PTX].splitlines()) for v in (a, b)]

    def ptx_diff():
        d = diff_variants(a, b, Stage.PTX, summary_stages=(Stage.PTX,))
        return summary_lines(d) + unified_lines(d)

    def full_diff():
        d = diff_variants(a, b, Stage.PTX)
        return summary_lines(d) + unified_lines(d)

    from irscope.diff.canonical import listing_tokens
    from irscope.ir.sourcemap import _own_lines_of
    from irscope.ir.stats import stage_stats

    def forget() -> None:
        """Drop what irscope keeps per listing between diffs: each cold run starts from the texts."""
        for cached in (listing_tokens, stage_stats, _own_lines_of):
            cached.cache_clear()

    def timed(fn, cold: bool = True):
        times = []
        for _ in range(args.repeat):
            if cold:
                forget()
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return statistics.median(times), min(times)

    def sass_diff():
        d = diff_variants(a, b, Stage.SASS, summary_stages=(Stage.SASS,))
        return summary_lines(d) + unified_lines(d)

    def reference():
        """A fixed pure-Python workload (difflib over the same listings' first 1,500 lines): its time says
        how fast the machine ran while the diffs were timed."""
        import difflib

        difflib.SequenceMatcher(None, reference_a, reference_b, autojunk=False).get_opcodes()

    reference_a = a.listings[Stage.PTX].splitlines()[:1500]
    reference_b = b.listings[Stage.PTX].splitlines()[:1500]

    # The machine's speed drifts within a run (a shared virtual machine): the cases take turns, one
    # repetition of each per round, so that each median and min are taken over the same stretch of time.
    cases = {
        "ptx cold": (ptx_diff, True),
        "ptx warm": (ptx_diff, False),
        "full": (full_diff, True),
        "sass cold": (sass_diff, True),
        "sass warm": (sass_diff, False),
        "reference": (reference, False),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeat):
        for name, (fn, cold) in cases.items():
            if cold:
                forget()
            elif name.endswith("warm"):
                fn()  # the listings of this stage parsed, as the warm case means
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(t) for name, t in times.items()}
    least = {name: min(t) for name, t in times.items()}
    from irscope.diff.canonical import listing_lines, opcode_floor

    sizes = {}
    for stage in (Stage.PTX, Stage.SASS):
        d = diff_variants(a, b, stage, summary_stages=())
        floor = opcode_floor(stage, listing_lines(stage, a.listings[stage]), listing_lines(stage, b.listings[stage]))
        sizes[stage] = (d.counts(), d.changed_instructions(), floor, len(b.listings[stage].splitlines()))
    removed, added = sizes[Stage.PTX][0]

    ref = resolve_kernel("square_kernel")
    configs = sweep_configs(ref.parameter_table(), ref.name, {}, {})
    with tempfile.TemporaryDirectory() as tmp:
        session = Session.create(Path(tmp) / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
        list(run_sweep(ref, configs, "sm_90", session))

        def load():
            s = Session.open(Path(tmp) / "s")
            return [s.variant(e) for e in s.entries]

        assert len(load()) == 21
        load_median, load_min = timed(load)
        size = sum(f.stat().st_size for f in (Path(tmp) / "s").rglob("*") if f.is_file())

    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    print(
        f"machine speed: a fixed difflib workload took median {median['reference'] * 1e3:.1f} ms, "
        f"min {least['reference'] * 1e3:.1f} ms"
    )
    print(f"PTX listings: {lines[0]} and {lines[1]} lines; normalised diff: -{removed} +{added}")
    print(
        f"normalised PTX diff + summary + unified text: median {median['ptx cold'] * 1e3:.1f} ms, "
        f"min {least['ptx cold'] * 1e3:.1f} ms   (target <= 250 ms)"
    )
    print(
        f"  again, each listing's tokens and statistics kept from the last diff: median {median['ptx warm'] * 1e3:.1f} ms, "
        f"min {least['ptx warm'] * 1e3:.1f} ms"
    )
    print(f"  with the summary of all five stages:       median {median['full'] * 1e3:.1f} ms")
    for stage, ((r, ad), changed, floor, _n) in sizes.items():
        print(
            f"{stage.value} diff size: -{r} +{ad} lines; {changed} instructions changed against an opcode-only floor "
            f"of {floor} ({changed / max(floor, 1):.2f}x)"
        )
    print(
        f"normalised SASS diff ({sizes[Stage.SASS][3]} lines) + summary + unified text: median {median['sass cold'] * 1e3:.1f} ms, "
        f"min {least['sass cold'] * 1e3:.1f} ms   (target <= 600 ms)"
    )
    print(
        f"  again, each listing's tokens and statistics kept from the last diff: median {median['sass warm'] * 1e3:.1f} ms, "
        f"min {least['sass warm'] * 1e3:.1f} ms"
    )
    print(
        f"open a 21-variant session, read every variant: median {load_median * 1e3:.1f} ms, min {load_min * 1e3:.1f} ms"
        f"   (target <= 200 ms; session is {size / 1e6:.1f} MB)"
    )


if __name__ == "__main__":
    main()
