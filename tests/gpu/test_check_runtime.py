"""``irscope check --runtime-tolerance`` on a GPU: the baseline written there holds each variant's runtime,
and a check fails only when a variant is slower than the baseline's by more than the tolerance."""

from __future__ import annotations

import json

from click.testing import CliRunner


def _invoke(*args: str):
    from irscope.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_baseline_written_on_a_gpu_holds_runtimes_and_a_slower_variant_fails(tmp_path):
    baseline = tmp_path / "square.check.json"
    written = _invoke("check", "square_kernel", "-c", "BLOCK_SIZE=1024", "--runtime-tolerance", "5",
                      "--write-baseline", str(baseline))  # fmt: skip
    assert written.exit_code == 0, written.stderr
    data = json.loads(baseline.read_text())
    runtime = data["variants"][0]["facts"]["runtime_us"]
    assert isinstance(runtime, float) and runtime > 0
    same = _invoke("check", "square_kernel", "-c", "BLOCK_SIZE=1024", "--baseline", str(baseline),
                   "--runtime-tolerance", "1000", "--json")  # fmt: skip
    rows = {r["condition"]: r for r in json.loads(same.stdout)["rows"]}
    assert same.exit_code == 0 and rows["runtime"]["verdict"] == "passed", same.stdout
    data["variants"][0]["facts"]["runtime_us"] = runtime / 100  # a baseline 100x faster than this GPU gives
    baseline.write_text(json.dumps(data))
    slower = _invoke("check", "square_kernel", "-c", "BLOCK_SIZE=1024", "--baseline", str(baseline),
                     "--runtime-tolerance", "5", "--json")  # fmt: skip
    rows = {r["condition"]: r for r in json.loads(slower.stdout)["rows"]}
    assert slower.exit_code == 1 and rows["runtime"]["verdict"] == "failed", slower.stdout
