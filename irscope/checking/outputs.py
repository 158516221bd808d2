"""A gate's rows as CI reads them: JUnit XML (one test case per variant and condition) and GitHub's
workflow annotations (one ``::error`` line per broken condition). The table and JSON are the CLI's."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from .conditions import Row, Verdict

# What XML 1.0 cannot hold at all (C0 controls but tab, newline and return; lone surrogates; U+FFFE/F):
# written as escapes, so a kernel name or error with an ESC in it still gives a file CI can parse.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def junit_xml(rows: Sequence[Row], name: str = "irscope check") -> str:
    """One ``<testcase>`` per row: ``classname`` the kernel and config, ``name`` the condition."""
    failures = sum(r.verdict is Verdict.FAILED for r in rows)
    skipped = sum(r.verdict is Verdict.SKIPPED for r in rows)
    suites = ET.Element("testsuites", tests=str(len(rows)), failures=str(failures), skipped=str(skipped))
    suite = ET.SubElement(
        suites, "testsuite", name=name, tests=str(len(rows)), failures=str(failures), skipped=str(skipped)
    )
    for r in rows:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=_xml_text(f"{r.kernel} {r.config} @{r.arch}".strip()),
            name=_xml_text(r.condition),
        )
        words = _xml_text(f"{r.condition}: {r.baseline} -> {r.current}" + (f": {r.detail}" if r.detail else ""))
        if r.verdict is Verdict.FAILED:
            ET.SubElement(case, "failure", message=words, type=r.condition).text = words
        elif r.verdict is Verdict.SKIPPED:
            ET.SubElement(case, "skipped", message=words)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _escape_data(text: str) -> str:
    """A workflow command's message, as GitHub's toolkit escapes it (``%``, ``\\r``, ``\\n``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(rows: Sequence[Row], file: str | None = None) -> list[str]:
    """``::error title=...::message`` for each failed row (``file``: the kernel's file, relative to the
    checkout, where GitHub shows it beside the code)."""
    out = []
    for r in rows:
        if r.verdict is not Verdict.FAILED:
            continue
        title = _escape_property(f"irscope check: {r.condition} ({r.kernel})")
        where = f"file={_escape_property(file)}," if file else ""
        message = f"{r.kernel} {r.config} @{r.arch}: {r.condition}: {r.baseline} -> {r.current}"
        message += f": {r.detail}" if r.detail else ""
        out.append(f"::error {where}title={title}::{_escape_data(message)}")
    return out
