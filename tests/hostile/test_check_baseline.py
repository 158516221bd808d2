"""``irscope check --baseline FILE``: a baseline file is data. Every field is checked before a kernel
compiles; what is wrong is one line naming the field and exit 5, nothing in it is run or opened, and the
files check writes (--write-baseline, --junit) never follow a link or replace a folder."""

from __future__ import annotations

import json
import os
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from expect import one_line_error

from irscope.checking.conditions import Row, Verdict
from irscope.checking.outputs import github_annotations, junit_xml

KERNEL = """
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2.0)
"""
SIGNATURE = "*fp32:16, *fp32:16, i32:16, 1024"
CANARY = "__import__('pathlib').Path('CANARY').touch()"
GOOD_FACTS = {
    "ok": True,
    "error": "",
    "compiler": "triton 3.6.0",
    "registers": 18,
    "spills": 0,
    "shared": 0,
    "warps_per_sm": 64,
    "load_widths": [16],
    "store_widths": [16],
    "listings": {"ptx": "0" * 64},
    "findings": [],
    "runtime_us": None,
}


def _baseline(**facts) -> dict:
    return {
        "format": "irscope-check-baseline/1",
        "kernel": "scale",
        "variants": [
            {
                "key": "BLOCK=1024,num_stages=3,num_warps=4@sm_90",
                "config": {"constexprs": {"BLOCK": 1024}, "options": {"num_warps": 4, "num_stages": 3}, "sizes": {}},
                "arch": "sm_90",
                "facts": {**GOOD_FACTS, **facts},
            }
        ],
    }


def _check(tmp_path: Path, baseline: Path | str, *more: str):
    kernel = tmp_path / "k.py"
    kernel.write_text(textwrap.dedent(KERNEL))
    from irscope.cli import main

    return CliRunner().invoke(
        main, ["check", f"{kernel}:scale", "-S", SIGNATURE, "--baseline", str(baseline), *more], catch_exceptions=False
    )


def _written(tmp_path: Path, data, raw: str | None = None) -> Path:
    path = tmp_path / "base.json"
    path.write_text(raw if raw is not None else json.dumps(data))
    return path


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"registers": "18"}, "facts.registers must be a whole number"),
        ({"registers": 10**40}, "facts.registers must be a whole number"),
        ({"spills": -1}, "facts.spills must be a whole number"),
        ({"shared": True}, "facts.shared must be a whole number"),
        ({"load_widths": [3]}, "facts.load_widths must be a list of access widths"),
        ({"load_widths": "16"}, "facts.load_widths must be a list of access widths"),
        ({"ok": "yes"}, "facts.ok must be true or false"),
        ({"runtime_us": 1e300}, "facts.runtime_us must be a number"),
        ({"listings": {"../../etc/passwd": "0" * 64}}, "facts.listings names no stage"),
        ({"listings": {"ptx": "/etc/passwd"}}, "facts.listings.ptx must be a SHA-256"),
        ({"findings": [{"kind": "spills"}]}, "facts.findings[0] must be a string"),
        ({"error": "x" * 5000}, "facts.error must be a string of at most"),
        ({"file": "/etc/passwd"}, "has a field irscope does not know: 'file'"),
    ],
)
def test_a_wrong_field_is_one_line_naming_it_and_exit_5(tmp_path, change, fragment):
    result = _check(tmp_path, _written(tmp_path, _baseline(**change)))
    one_line_error(result, 5, "variants[0]", fragment)


@pytest.mark.parametrize(
    "raw, fragment",
    [
        ('{"format": "irscope-check-baseline/1", "kernel": "scale", "variants": [' + "1" * 5000 + "]}", "corrupted"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"format": "irscope-check-baseline/1", "variants": {"a": 1}}', "variants must be a list"),
        ('{"format": "something else", "variants": []}', "not an irscope check baseline"),
        ("\x00\x01\xff", "corrupted"),
        ('{"format": "irscope-check-baseline/1", "variants": [], "session": "../../elsewhere"}', "does not know"),
    ],
)
def test_a_file_that_is_no_baseline_is_one_line_and_exit_5(tmp_path, raw, fragment):
    one_line_error(_check(tmp_path, _written(tmp_path, None, raw)), 5, fragment)


def test_a_variant_with_a_foreign_arch_or_key_is_refused(tmp_path):
    data = _baseline()
    data["variants"][0]["arch"] = "sm_90; rm -rf ~"
    one_line_error(_check(tmp_path, _written(tmp_path, data)), 5, "arch is no GPU architecture")
    data = _baseline()
    data["variants"][0]["config"]["constexprs"] = {"__class__.__init__": CANARY}
    one_line_error(_check(tmp_path, _written(tmp_path, data)), 5, "names no parameter")


def test_a_fifo_in_place_of_the_baseline_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "base.json"
    os.mkfifo(fifo)
    one_line_error(_check(tmp_path, fifo), 5, "not a regular file")


def test_a_baseline_that_links_outside_is_read_as_the_file_named_and_no_further(tmp_path):
    # the user names the file: a link they name is theirs; nothing in its content names another file
    outside = tmp_path / "outside"
    outside.mkdir()
    target = _written(outside, _baseline(registers="lots"))
    link = tmp_path / "base.json"
    link.symlink_to(target)
    one_line_error(_check(tmp_path, link), 5, "facts.registers")


def test_code_in_a_baseline_is_never_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = _baseline(compiler=CANARY, findings=[CANARY])
    data["kernel"] = CANARY
    data["variants"][0]["config"]["constexprs"]["BLOCK"] = CANARY
    result = _check(tmp_path, _written(tmp_path, data))
    assert result.exit_code == 0, result.stdout + result.stderr  # the facts match: only labels held the payload
    assert not (tmp_path / "CANARY").exists()


@pytest.mark.parametrize("option", ["--write-baseline", "--junit"])
def test_an_output_that_is_a_link_or_a_folder_is_refused_before_anything_compiles(tmp_path, option):
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    from irscope.cli import main

    kernel = tmp_path / "k.py"
    kernel.write_text(textwrap.dedent(KERNEL))
    args = ["check", f"{kernel}:scale", "-S", SIGNATURE, "--max-spills", "0", option, str(link)]
    one_line_error(CliRunner().invoke(main, args), 2, "out.json")
    assert victim.read_text() == "keep me" and link.is_symlink()
    (tmp_path / "folder").mkdir()
    args[-1] = str(tmp_path / "folder")
    one_line_error(CliRunner().invoke(main, args), 2)


def test_control_characters_stay_escaped_in_junit_and_annotations():
    row = Row("k\x1b]0;owned\x07", "BLOCK=1\x00", "sm_90", "findings", Verdict.FAILED, "0", "1", "new:\r\n::error::x%")
    xml = junit_xml([row])
    case = ET.fromstring(xml).find(".//testcase")
    assert case is not None and case.get("classname") == "k\\x1b]0;owned\\x07 BLOCK=1\\x00 @sm_90"
    (line,) = github_annotations([row], "a,b:c.py")
    assert "\n" not in line and "\r" not in line and line.endswith("new:%0D%0A::error::x%25")
    assert line.startswith("::error file=a%2Cb%3Ac.py,title=")


def test_a_variant_twice_in_a_baseline_is_damage(tmp_path):
    data = _baseline()
    data["variants"].append(data["variants"][0])
    one_line_error(_check(tmp_path, _written(tmp_path, data)), 5, "variants[1].key", "is there twice")
