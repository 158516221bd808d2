"""bench --ncu on a GPU (issue 18): an Nsight Compute report per variant, its per-instruction counters read
with NVIDIA's ncu_report, and the hottest SASS lines joined to the kernel's Python lines."""

from __future__ import annotations

import json

import pytest

from irscope.measure.ncu import ncu_path


@pytest.mark.skipif(ncu_path() is None, reason="needs Nsight Compute")
def test_bench_ncu_writes_a_report_per_variant_and_the_hot_lines_map_to_python(cli, tmp_path):
    out = tmp_path / "square"
    result = cli("bench", "square_kernel", "-s", "BLOCK_SIZE=128,1024", "--ncu", "-o", str(out))
    assert result.exit_code == 0, result.output[-3000:]
    reports = sorted((out / "ncu").glob("*.ncu-rep"))
    counters = sorted((out / "ncu").glob("*.counters.json"))
    assert len(reports) == 2 and len(counters) == 2, sorted(p.name for p in (out / "ncu").iterdir())
    for block in (128, 1024):
        shown = cli("ncu", str(out), "-c", f"BLOCK_SIZE={block}", "--json")
        assert shown.exit_code == 0, shown.output[-2000:]
        data = json.loads(shown.stdout)
        assert data["hot_sass"] and data["metrics"]["gpu_time_us"] > 0
        lines = {h["python_line"] for h in data["hot_sass"]}
        source = (out / "kernel.py").read_text().splitlines() if (out / "kernel.py").exists() else None
        assert any(line for line in lines), data["hot_sass"][:3]
        assert abs(sum(data["python_lines"].values()) - 1.0) < 0.05 or sum(data["python_lines"].values()) > 0.5
        if source:
            hottest = max(data["python_lines"], key=data["python_lines"].get)
            assert "tl." in source[int(hottest) - 1] or "for" in source[int(hottest) - 1]
    text = cli("ncu", str(out), "-c", "BLOCK_SIZE=1024")
    assert "hottest SASS instructions" in text.stdout and "by Python line" in text.stdout
