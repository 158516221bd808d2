"""A notebook's view of irscope's objects: short reprs, and report/display.py's one page per object.

Real captures of a kernel written for the tests (tests/test_report.py's scale_rows, for sm_90, in process).
"""

from __future__ import annotations

import pytest
from test_report import SESSION, scale_variants  # noqa: F401 (a fixture)

from irscope.annotating import annotate
from irscope.diffing import diff_variants
from irscope.report import display
from irscope.session import Session


def _one_short_line(text: str) -> None:
    assert "\n" not in text and len(text) < 200, (len(text), text[:300])


def test_each_object_has_a_one_line_repr_that_says_what_it_is(scale_variants):  # noqa: F811
    small, large = scale_variants
    text = repr(small)
    _one_short_line(text)
    ptx_lines = len(small.listings["ptx"].splitlines())
    assert text.startswith("<Variant scale_rows BLOCK=256") and "sm_90 ok" in text
    assert f"{ptx_lines} PTX lines" in text and f"{small.resources.registers} registers" in text
    d = diff_variants(small, large)
    removed, added = d.counts()
    _one_short_line(repr(d))
    assert repr(d) == f"<VariantDiff {small.config.label()} vs {large.config.label()} ptx -{removed} +{added} lines>"
    session = Session.open(SESSION)
    _one_short_line(repr(session))
    assert repr(session) == f"<Session square_kernel {SESSION} {len(session.entries)} variants>"
    assert len(session) == len(session.entries) and bool(session)
    a = annotate(small)
    _one_short_line(repr(a))
    assert f"ptx {ptx_lines} lines {len(a.findings)} findings" in repr(a)


def test_a_repr_stays_short_whatever_the_names(scale_variants):  # noqa: F811
    from dataclasses import replace

    from irscope.types import KernelId

    small, _ = scale_variants
    long = replace(
        small, kernel=KernelId("k" * 5000, "f.py", "h"), config=replace(small.config, constexprs={"X": "y\n" * 900})
    )
    _one_short_line(repr(long))


def test_each_kind_is_displayed_and_anything_else_is_a_type_error(scale_variants):  # noqa: F811
    small, large = scale_variants
    for obj in (small, diff_variants(small, large), annotate(small), annotate(small).findings, Session.open(SESSION)):
        fragment = display.html(obj)
        assert fragment.startswith('<iframe sandbox="allow-scripts" srcdoc="&lt;!doctype html&gt;')
        assert display.page(obj).count("<script") == 2
    with pytest.raises(TypeError, match="not str"):
        display.html("square_kernel")
    with pytest.raises(TypeError):
        display.page([1, 2])


def test_a_variants_page_embeds_its_source_map_as_the_report_does(scale_variants):  # noqa: F811
    import json
    import re

    small, _ = scale_variants
    page = display.page(small)
    data = json.loads(re.search(r'id="irscope-data">(.*?)</script>', page, re.S).group(1))
    (variant,) = data["variants"]
    runs = variant["own"]["ptx"]
    assert sum(count for _, count in runs) == len(small.listings["ptx"].splitlines())
    assert len(runs) < len(small.listings["ptx"].splitlines()) / 2  # run-length coded, not a line each
    # the page is the listings and little else: under 1.5x the stages' text
    assert len(page) < 1.5 * sum(len(variant["listings"][s]) for s in variant["listings"]) + 30_000
