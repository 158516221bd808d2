"""Control sequences in session data reach the terminal as visible escapes, never as controls.

A session from someone else can hold anything in its listings, error notes, kernel
name or sources. Each payload below (a window title, a cleared screen, a bell, a C1
CSI, hidden text, a bidi override, a carriage return, a backspace) is put into a copy
of a real session, and every command that prints that part of it runs: its stdout and
stderr hold none of the raw control bytes. The control in each test is the payload's
escaped form in the output: the data did reach the terminal, through the one choke
point (cli/output.py) that makes it visible.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from expect import one_line_error

REPO = Path(__file__).resolve().parents[2]
SESSION = REPO / "samples" / "sessions" / "square_kernel"
NCU_SESSION = REPO / "samples" / "ncu" / "square_h100"
VARIANT = "BLOCK_SIZE-128_num_warps-4_num_stages-3_n_rows-4096_n_cols-781_sm_90"

# name -> (what the data holds, how it is shown)
PAYLOADS = {
    "window title": ("\x1b]0;PWNED\x07", "\\x1b]0;PWNED\\x07"),
    "clear screen": ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),
    "bell": ("\x07\x07", "\\x07\\x07"),
    "C1 CSI": ("\x9b2J", "\\x9b2J"),
    "hidden text": ("\x1b[8mhidden", "\\x1b[8mhidden"),
    "bidi override": ("\u202eevil\u202c", "\\u202eevil\\u202c"),
    "carriage return": ("\rfake", "\\x0dfake"),
    "backspace": ("\x08\x08", "\\x08\\x08"),
}
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def canary(payload: str) -> str:
    return f"CANARY<{payload}>"


def assert_shown_not_obeyed(result, shown: str) -> None:
    out = result.stdout + result.stderr
    assert not RAW_CONTROL.search(out), repr(RAW_CONTROL.search(out))
    assert canary(shown) in out, out[-2000:]


def _rehash(variant_dir: Path, name: str) -> None:
    meta = json.loads((variant_dir / "variant.json").read_text())
    if "sha256" not in meta:  # recorded before checksums were kept
        return
    meta["sha256"][name] = hashlib.sha256((variant_dir / name).read_bytes()).hexdigest()
    (variant_dir / "variant.json").write_text(json.dumps(meta))


def copy_of(source: Path, tmp_path: Path) -> Path:
    out = tmp_path / "session"
    shutil.copytree(source, out)
    return out


def with_listing_line(tmp_path: Path, text: str) -> Path:
    """The sample session with a PTX comment line holding ``text`` in one variant (its checksum updated)."""
    session = copy_of(SESSION, tmp_path)
    variant = session / "variants" / VARIANT
    ptx = variant / "ptx.ptx"
    first, rest = ptx.read_text().split("\n", 1)
    ptx.write_text(f"{first}\n// {text}\n{rest}")
    _rehash(variant, "ptx.ptx")
    return session


def edit_session(session: Path, change) -> Path:
    data = json.loads((session / "session.json").read_text())
    change(data)
    (session / "session.json").write_text(json.dumps(data))
    return session


# A listing or source is read as text, where a lone carriage return is a line break like any other.
IN_FILES = [name for name in PAYLOADS if name != "carriage return"]


@pytest.fixture(params=list(PAYLOADS), ids=list(PAYLOADS))
def payload(request):
    return PAYLOADS[request.param]


@pytest.fixture(params=IN_FILES, ids=IN_FILES)
def file_payload(request):
    return PAYLOADS[request.param]


B128 = ("-c", "BLOCK_SIZE=128", "-c", "num_warps=4")


def test_dump_shows_a_listings_controls_as_escapes(cli, tmp_path, file_payload):
    session = with_listing_line(tmp_path, canary(file_payload[0]))
    result = cli("dump", str(session), *B128, "--stage", "ptx")
    assert result.exit_code == 0, result.stderr
    assert_shown_not_obeyed(result, file_payload[1])


def test_a_raw_diff_shows_a_listings_controls_as_escapes(cli, tmp_path, file_payload):
    session = with_listing_line(tmp_path, canary(file_payload[0]))
    result = cli(
        "diff",
        str(session),
        "-a",
        "BLOCK_SIZE=128",
        "-b",
        "BLOCK_SIZE=1024",
        "-c",
        "num_warps=4",
        "--stage",
        "ptx",
        "--raw",
    )
    assert result.exit_code == 0, result.stderr
    assert_shown_not_obeyed(result, file_payload[1])


def test_annotate_shows_a_listings_controls_as_escapes(cli, tmp_path, file_payload):
    session = with_listing_line(tmp_path, canary(file_payload[0]))
    result = cli("annotate", str(session), *B128, "--stage", "ptx")
    assert result.exit_code == 0, result.stderr
    assert_shown_not_obeyed(result, file_payload[1])


def test_the_sweep_table_shows_a_stored_errors_controls_as_escapes(cli, tmp_path, payload):
    def fail_one(data):
        data["request"] = {"sweep": {"BLOCK_SIZE": ["128", "1024"]}, "fixed": {"num_warps": "4"}, "arch": None}
        entry = next(v for v in data["variants"] if v["id"] == VARIANT)
        entry.update(status="failed", error=f"ptx: {canary(payload[0])}")

    session = edit_session(copy_of(SESSION, tmp_path), fail_one)
    result = cli("sweep", str(session))
    assert result.exit_code in (0, 1), result.stderr
    assert_shown_not_obeyed(result, payload[1])


def test_ncu_shows_a_stored_source_lines_controls_as_escapes(cli, tmp_path, file_payload):
    session = copy_of(NCU_SESSION, tmp_path)
    source = session / "source" / "square.py"
    source.write_text(
        source.read_text().replace(
            "square_output = row * row", f"square_output = row * row  # {canary(file_payload[0])}"
        )
    )
    result = cli("ncu", str(session), "-c", "BLOCK_SIZE=1024")
    assert result.exit_code == 0, result.stderr
    assert_shown_not_obeyed(result, file_payload[1])


def test_an_error_naming_a_stored_kernel_is_one_line_with_its_controls_as_escapes(cli, tmp_path, payload):
    def rename(data):
        data["kernel"]["name"] = canary(payload[0]) + "\nirscope: all good"

    session = edit_session(copy_of(SESSION, tmp_path), rename)
    result = cli("sweep", str(session), "-c", "BLOCK_SIZE=512")
    one_line_error(result, 2, "does not import a kernel file")
    assert "\\nirscope: all good" in result.stderr
    assert_shown_not_obeyed(result, payload[1])


def test_a_missing_variants_error_lists_stored_configs_with_their_controls_as_escapes(cli, tmp_path, payload):
    def odd_value(data):
        entry = next(v for v in data["variants"] if v["id"] == VARIANT)
        entry["config"]["constexprs"]["BLOCK_SIZE"] = canary(payload[0])

    session = edit_session(copy_of(SESSION, tmp_path), odd_value)
    result = cli("dump", str(session), "-c", "BLOCK_SIZE=256")
    one_line_error(result, 5, "has no variant")
    assert_shown_not_obeyed(result, payload[1])


def test_every_rich_table_cell_shows_its_controls_as_escapes_and_its_brackets_as_text(payload):
    # bench, list, run and inductor print their tables through this Console: what a cell holds is text
    import io

    from rich.table import Table

    from irscope.cli.output import Console

    table = Table()
    table.add_column("note")
    table.add_row(canary(payload[0]) + " [/] [bold]x")
    out = io.StringIO()
    Console(file=out, width=200, force_terminal=False).print(table)
    assert not RAW_CONTROL.search(out.getvalue())
    assert canary(payload[1]) + " [/] [bold]x" in out.getvalue()


def test_the_cli_prints_only_through_the_choke_point():
    # a command writing with click.echo or rich's own Console would let data's controls through
    for module in (REPO / "irscope" / "cli").glob("*.py"):
        if module.name == "output.py":
            continue
        text = module.read_text()
        assert "click.echo(" not in text and "click.secho(" not in text, module.name
        assert "from rich.console import Console" not in text, module.name


@pytest.fixture(scope="module")
def with_passes(tmp_path_factory):
    from .damage import square_with_passes

    return square_with_passes(tmp_path_factory.mktemp("passes") / "s")


def test_the_passes_table_shows_a_stored_pass_names_controls_as_escapes(cli, tmp_path, with_passes, payload):
    from .damage import store_passes, stored_passes

    session = tmp_path / "s"
    shutil.copytree(with_passes, session)
    variant, log = stored_passes(session)
    log["steps"][0]["name"] = canary(payload[0])
    store_passes(variant, json.dumps(log))
    result = cli("passes", str(session), "-c", "BLOCK_SIZE=128")
    assert result.exit_code == 0, result.stderr
    assert_shown_not_obeyed(result, payload[1])


def test_a_diff_across_kernel_files_shows_a_stored_source_lines_controls_as_escapes(cli, tmp_path, file_payload):
    """Two kernels of different files (a Triton kernel and its twin in another language or file): each one's
    machine code per line of its own source, the line's text from the session's stored source."""
    session = copy_of(SESSION, tmp_path)
    source = session / "source" / "square.py"
    source.write_text(
        source.read_text().replace(
            "square_output = row * row", f"square_output = row * row  # {canary(file_payload[0])}"
        )
    )
    twin = f"kernel={REPO / 'examples' / 'row_sum.py'}:row_sum_kernel"
    result = cli("diff", str(session), "-a", "BLOCK_SIZE=128", "-a", "num_warps=4", "-b", twin, "--arch", "sm_90")
    assert result.exit_code == 0, result.stderr
    assert "by source line of each kernel" in result.stdout
    assert_shown_not_obeyed(result, file_payload[1])
