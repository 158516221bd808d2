"""What Triton's autotuner left behind (interop/triton_autotune.py) is data: a record in a cache or a printed log
is shown as text, never run; a link out of the cache is not followed; odd figures and counts, a record cut short,
a name that is not one leave that record out with a line, and nothing readable is one line and exit 5."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from expect import one_line_error

from irscope.cli import main
from irscope.errors import ExitCode
from irscope.interop.triton_autotune import read_autotuning

pytestmark = pytest.mark.triton_api  # the records are written by the Triton the tests run with

CANARY = "IRSCOPE_CANARY_a81d"


def _autotune(*args):
    return CliRunner().invoke(main, ["autotune", *map(str, args)])


@pytest.fixture
def cache(triton_autotuning, tmp_path) -> Path:
    return Path(shutil.copytree(triton_autotuning.cache, tmp_path / "cache", symlinks=True))


def _records(cache: Path) -> list[Path]:
    return sorted(cache.glob("*/clamp_kernel.autotune.json"))


def test_code_and_controls_in_a_record_are_shown_as_text(cache, tmp_path):
    marker = tmp_path / "ran"
    payload = f"__import__('pathlib').Path({str(marker)!r}).write_text('ran') \x1b]0;{CANARY}\x07"
    record = _records(cache)[0]
    data = json.loads(record.read_text())
    data["key"] = [payload]
    data["configs_timings"][0][0]["kwargs"]["TILE"] = payload
    record.write_text(json.dumps(data))
    result = _autotune(cache)
    assert result.exit_code == 0 and CANARY in result.stdout and "\x1b" not in result.stdout
    assert not marker.exists()


def test_a_link_out_of_the_cache_is_not_followed(cache, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    first, record = _records(cache)  # before the link: a glob follows it
    (outside / "clamp_kernel.autotune.json").write_text(first.read_text().replace("2048", "4096"))
    (cache / "LINKED").symlink_to(outside)
    record.unlink()
    record.symlink_to(outside / "clamp_kernel.autotune.json")
    records, skipped = read_autotuning(cache)
    assert len(records) == 1 and not any("4096" in str(r.configs) for r in records)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["configs_timings"][0].__setitem__(1, [float("nan"), 1, 1]),
        lambda d: d["configs_timings"][0].__setitem__(1, "0.5"),
        lambda d: d["configs_timings"][0].__setitem__(1, [10**400]),
        lambda d: d["configs_timings"][1].__setitem__(1, [-1.0]),
    ],
)
def test_a_figure_that_is_not_one_is_a_failed_config(cache, change):
    record = _records(cache)[0]
    text = record.read_text()
    data = json.loads(text)
    change(data)
    record.write_text(json.dumps(data).replace("NaN", "NaN"))
    records, _ = read_autotuning(cache)
    changed = next(r for r in records if r.source.endswith(f"{record.parent.name}/{record.name}"))
    assert None in changed.timings and changed.picked is not None and changed.timings[changed.picked] is not None


@pytest.mark.parametrize(
    "text",
    [
        '{"key": [1], "configs_timings": [[{"kwargs": {}, "num_warps": 1e999}, [1.0]]]}',
        '{"key": [1], "configs_timings": [[{"kwargs": {}, "num_warps": 100000000000000000000000}, [1.0]]]}',
        '{"key": [1], "configs_timings": [[{"kwargs": {}, "num_warps": true}, [1.0]]]}',
        '{"key": [1], "configs_timings": [["not a config", [1.0]]]}',
        '{"key": [1], "configs_timings": {}}',
        '{"key": [1], "configs_timings": [[{"kwargs": {}, "num_w',
        "[" * 100000,
    ],
)
def test_a_record_that_does_not_read_is_left_out_with_a_line(cache, text):
    record = _records(cache)[0]
    record.write_text(text)
    records, skipped = read_autotuning(cache)
    assert len(records) == 1 and len(skipped) == 1 and record.parent.name in skipped[0]
    result = _autotune(cache)
    assert result.exit_code == 0 and "left out" in result.stderr


def test_a_name_that_is_not_a_kernels_is_left_out(cache):
    record = _records(cache)[0]
    record.rename(record.with_name("os.system('x').autotune.json"))
    records, skipped = read_autotuning(cache)
    assert len(records) == 1 and "not an identifier" in skipped[0]


def test_nothing_readable_is_one_line_and_exit_5(tmp_path, triton_autotuning):
    (tmp_path / "empty").mkdir()
    one_line_error(_autotune(tmp_path / "empty"), ExitCode.SESSION_ERROR, "no autotuning record")
    log = tmp_path / "cut.log"
    log.write_text(triton_autotuning.log.read_text()[:200])  # the first config's line, no summary
    one_line_error(_autotune(log), ExitCode.SESSION_ERROR)
    one_line_error(_autotune(tmp_path / "missing"), ExitCode.USAGE, "no such file")


def test_a_log_with_odd_lines(triton_autotuning, tmp_path):
    text = triton_autotuning.log.read_text()
    log = tmp_path / "odd.log"
    odd = "best config selected: " + "x" * 100000 + ";\n" + "Autotuning kernel \x1b[2J with config A: 1\n"
    log.write_text(odd + text.replace("TILE: 512", "TILE: 99999999999999999999999999999"))
    records, _ = read_autotuning(log)
    assert len(records) == 2
    assert records[0].configs[1]["TILE"] == "99999999999999999999999999999"  # not a count here: kept as text
