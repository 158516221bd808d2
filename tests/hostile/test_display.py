"""A notebook's display of irscope's objects (report/display.py) keeps text from data as text.

The page sits in one ``srcdoc`` attribute of one sandboxed iframe: whatever a kernel's name, a config's
value, a listing or a finding holds (quotes, ``</script>``, ``<!--<script>``, an ``<img onerror>``), the
fragment parses as exactly one iframe and nothing else, and the page inside renders the text verbatim in
headless Chromium, running none of it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from html.parser import HTMLParser

import pytest
from test_report import SESSION, _render, needs_chromium, scale_variants  # noqa: F401 (a fixture)

from irscope.annotating import annotate
from irscope.annotating.findings import Finding
from irscope.diffing import diff_variants
from irscope.report import display
from irscope.session import Session
from irscope.types import KernelId, Stage

PAYLOADS = [
    "</script><script>document.title='pwned'</script>",
    "<!--<script>",
    "\"' > &amp; &",
    '"><img src=x onerror=document.title="pwned">',
]
HOSTILE = " ".join(PAYLOADS)


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def hostile_variant(variant):
    """``variant`` with the payloads in its kernel's name, a config value and a PTX comment line."""
    kernel = KernelId(f"k{HOSTILE}", variant.kernel.file, variant.kernel.source_hash)
    ptx = f"// {HOSTILE}\n" + variant.listings[Stage.PTX]
    config = replace(variant.config, constexprs={**variant.config.constexprs, "NOTE": HOSTILE})
    return replace(variant, kernel=kernel, config=config, listings={**variant.listings, Stage.PTX: ptx})


def hostile_objects(small, large):
    a, b = hostile_variant(small), hostile_variant(large)
    finding = Finding(HOSTILE, "warn", HOSTILE, HOSTILE, Stage.PTX, (0,), (HOSTILE,))
    return {
        "variant": a,
        "diff": diff_variants(a, b),
        "annotation": replace(annotate(a), findings=[finding]),
        "findings": [finding],
    }


@pytest.mark.parametrize("what", ["variant", "diff", "annotation", "findings"])
def test_the_fragment_is_one_iframe_whatever_the_data_holds(scale_variants, what):  # noqa: F811
    obj = hostile_objects(*scale_variants)[what]
    fragment = display.html(obj)
    parser = Tags()
    parser.feed(fragment)
    parser.close()
    assert [t for t, _ in parser.tags] == ["iframe"]
    attrs = parser.tags[0][1]
    assert attrs["sandbox"] == "allow-scripts" and "allow-same-origin" not in fragment.split("srcdoc=")[0]
    assert attrs["srcdoc"] == display.page(obj)  # the attribute holds the whole page, unescaped by the parser
    assert re.fullmatch(r"width:100%;height:\d+px;border:0", attrs["style"])


def test_a_session_with_hostile_text_is_one_iframe_too(tmp_path):
    import shutil

    copy = tmp_path / "s"
    shutil.copytree(SESSION, copy)
    ptx = copy / "variants" / Session.open(copy).entries[0].id / "ptx.ptx"
    ptx.write_text(f"// {HOSTILE}\n" + ptx.read_text())
    parser = Tags()
    parser.feed(display.html(Session.open(copy)))
    assert [t for t, _ in parser.tags] == ["iframe"]


@needs_chromium
@pytest.mark.parametrize("what", ["variant", "annotation", "findings"])
def test_the_page_in_the_frame_shows_the_text_and_runs_none_of_it(tmp_path, scale_variants, what):  # noqa: F811
    import html

    obj = hostile_objects(*scale_variants)[what]
    page = tmp_path / "page.html"
    page.write_text(display.page(obj))
    dom, console = _render(page, "#stage=ptx")
    assert console == [], console
    assert 'data-ready="1"' in dom
    head = dom.split("<body", 1)[0]
    assert "pwned" not in re.search(r"<title>(.*?)</title>", head, re.S).group(1).replace(
        html.escape(HOSTILE, quote=False), ""
    )
    body = dom.split("<body", 1)[1]
    assert "<img" not in body and body.count("<script") == 2  # the data and the page's own script
    assert html.escape(HOSTILE, quote=False) in body  # shown verbatim: in the finding or the listing


@needs_chromium
def test_a_notebook_holding_the_fragment_runs_nothing_from_the_data(tmp_path, scale_variants):  # noqa: F811
    objects = hostile_objects(*scale_variants)
    notebook = tmp_path / "notebook.html"
    outputs = "".join(display.html(objects[w]) for w in ("variant", "diff", "findings"))
    notebook.write_text(f"<!doctype html><html><head><title>notebook</title></head><body>{outputs}</body></html>")
    dom, console = _render(notebook)
    assert console == [], console
    assert "<title>notebook</title>" in dom
    outside = re.sub(r"<iframe\b.*?</iframe>", "", dom, flags=re.S)
    assert "<img" not in outside and "<script" not in outside
    assert dom.count("<iframe") == 3


def test_a_diffs_kernel_folder_is_rewritten_out_of_the_text_never_out_of_the_markup(scale_variants):  # noqa: F811
    # The report hides the kernel's folder in what it shows. Rewritten after escaping, a folder named like the
    # diff table's own markup took that markup apart: a listing line "foo/img src=x onerror=..." became a live tag.
    small, large = scale_variants
    folder = '/td><td class="">foo'
    lure = "foo/img src=x onerror=document.title='pwned'"

    def shaped(v, mark):
        ptx = f"{lure}\n// {mark}\n" + v.listings[Stage.PTX]
        return replace(v, kernel=replace(v.kernel, file=f"{folder}/k.py"), listings={**v.listings, Stage.PTX: ptx})

    page = display.page(diff_variants(shaped(small, "A"), shaped(large, "B"), raw=True))
    parser = Tags()
    parser.feed(page)
    parser.close()
    assert not [(t, a) for t, a in parser.tags if t == "img" or any(name.startswith("on") for name in a)]
    assert "img src=x onerror=document.title=&#x27;pwned&#x27;" in page  # the line is there, as text
