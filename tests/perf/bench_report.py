"""The shareable HTML report (issue 18): the 21-variant square session as one file, opened in headless Chromium.

Targets: the page opens (its script has rendered the table, the chart and a stage) in under 2 s, and weighs
at most 5 MB. The session is swept first (compiles cached or not, not timed); then the report is written,
and Chromium is timed as a whole process from start to the dumped DOM (browser start-up included), with
the page's own render time read from the DOM. Median of --repeat runs.

    python tests/perf/bench_report.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium is None:
        sys.exit("needs Chromium (apt-get install chromium)")
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import sweep_configs
    from irscope.report.html import DiffRequest, build
    from irscope.session import Session, run_sweep
    from irscope.types import Stage

    with tempfile.TemporaryDirectory() as tmp:
        ref = resolve_kernel("square_kernel")
        configs = sweep_configs(ref.parameter_table(), ref.name, {}, {})
        session = Session.create(Path(tmp) / "s", ref.identity(), Path(ref.file).read_text(), ref.parameter_table())
        list(run_sweep(ref, configs, "sm_90", session))
        entries = session.entries
        builds, opens, renders = [], [], []
        page = Path(tmp) / "report.html"
        for _ in range(args.repeat):
            start = time.perf_counter()
            text = build(session, [DiffRequest(entries[0].id, entries[-1].id, Stage.PTX)])
            page.write_text(text)
            builds.append(time.perf_counter() - start)
            start = time.perf_counter()
            dom = subprocess.run(
                [
                    chromium,
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--dump-dom",
                    f"{page.as_uri()}#variant={len(entries) - 1}&stage=sass",
                ],
                capture_output=True,
                text=True,
                timeout=120,
            ).stdout
            opens.append(time.perf_counter() - start)
            rendered = re.search(r'data-render-ms="([\d.]+)"', dom)
            assert rendered is not None, "the page said no render time"
            renders.append(float(rendered[1]))
        size = page.stat().st_size
    print(
        f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, "
        f"{subprocess.run([chromium, '--version'], capture_output=True, text=True).stdout.strip()}"
    )
    print(f"session: {len(entries)} variants of square_kernel (sm_90), with samples' runtimes where recorded")
    print(
        f"write the report (table, chart, 5 stages x {len(entries)} variants, one PTX diff): "
        f"median {statistics.median(builds) * 1e3:.0f} ms"
    )
    print(f"report size: {size / 1e6:.2f} MB   (target <= 5 MB)")
    print(
        f"headless Chromium, start to rendered DOM (browser start-up included): median "
        f"{statistics.median(opens):.2f} s, max {max(opens):.2f} s   (target < 2 s)"
    )
    print(
        f"  of which the page's own script (table, chart, the SASS of one variant): median "
        f"{statistics.median(renders):.0f} ms"
    )


if __name__ == "__main__":
    main()
