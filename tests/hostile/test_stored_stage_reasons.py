"""A stored variant's reasons for a stage it lacks (``stage_errors``), and the PTX's cluster directive, are data.

Found by an outside review of the day's new surfaces: dump's "unavailable" warning printed a stored
reason's newline as a second, forged stderr line (diff and annotate showed it as one); a reason that is
not text (null, a list) was taken as its ``str()`` ("None") where a worker's answer would be refused; a
stage with no stored reason (a TileLang session asked ``--stage ttir``) read "unavailable: None"; and a
``.reqnctapercluster`` of 5,000 digits was an internal error (int() past Python's 4,300-digit limit).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SESSION = REPO / "samples" / "sessions" / "square_kernel"


def _session_without(tmp_path: Path, stage: str, file: str, errors: dict | None) -> Path:
    """The sample session with ``stage``'s listing removed from every variant, ``errors`` stored as its reasons."""
    out = tmp_path / "session"
    shutil.copytree(SESSION, out)
    for variant in (out / "variants").iterdir():
        (variant / file).unlink()
        meta = json.loads((variant / "variant.json").read_text())
        meta["stages"] = [s for s in meta["stages"] if s != stage]
        if errors is not None:
            meta["stage_errors"] = errors
        (variant / "variant.json").write_text(json.dumps(meta))
    return out


def test_dumps_unavailable_warning_is_one_line_whatever_the_stored_reason_holds(cli, tmp_path):
    session = _session_without(tmp_path, "sass", "sass.sass", {"sass": "no cubin\nirscope: error: FORGED"})
    result = cli("dump", str(session), "--stage", "sass")
    forged = [line for line in result.stderr.splitlines() if line.startswith("irscope: error: FORGED")]
    assert not forged, result.stderr  # diff and annotate show it as "...\\nirscope: error: FORGED" on one line
    assert "no cubin\\nirscope: error: FORGED" in result.stderr


def test_a_stored_reason_that_is_not_text_is_refused(cli, tmp_path):
    session = _session_without(tmp_path, "sass", "sass.sass", {"sass": None})
    result = cli("dump", str(session), "--stage", "sass")
    assert result.exit_code == 5, (result.exit_code, result.stderr)  # was: 0, "sass unavailable: None"
    assert len(result.stderr.strip().splitlines()) == 1 and "not text" in result.stderr


def test_a_stored_reason_past_a_screenful_is_cut_on_screen_and_kept_in_the_file(cli, tmp_path):
    session = _session_without(tmp_path, "sass", "sass.sass", {"sass": "x" * 5_000_000})
    result = cli("dump", str(session), "--stage", "sass")
    assert result.exit_code == 0 and len(result.stderr) < 10_000, len(result.stderr)
    assert "more characters in variant.json" in result.stderr


def test_a_stage_missing_without_a_reason_does_not_read_none(cli, tmp_path):
    session = _session_without(tmp_path, "ttir", "ttir.ttir", None)
    result = cli("dump", str(session), "--stage", "ttir")
    assert "ttir unavailable: not captured" in result.stderr, result.stderr  # Triton makes TTIR: just not stored


def test_a_stage_the_variants_language_never_makes_says_so():
    from dataclasses import replace

    from irscope.session.store import Session
    from irscope.stages import Stage

    variant = Session.open(SESSION)[0]
    as_tilelang = replace(variant, frontend="tilelang", listings={Stage.PTX: "ptx"})
    assert (
        as_tilelang.missing_reason(Stage.TTIR) == "tilelang kernels compiled for sm_90 have no ttir (this one has: ptx)"
    )
    assert variant.missing_reason(Stage.GLUON).startswith("triton kernels compiled for sm_90 have no gluon")


def test_annotate_reads_a_stored_ptxs_oversized_cluster_as_bad_input(cli, tmp_path):
    """A ``.reqnctapercluster`` of 5,000 digits (ir/ptx.py's required_cluster: int() past Python's 4,300-digit
    limit) is a ValueError that reaches the top as "internal error" (exit 70) instead of exit 5 or no finding."""
    import hashlib

    out = tmp_path / "session"
    shutil.copytree(SESSION, out)
    for variant in (out / "variants").iterdir():
        ptx = variant / "ptx.ptx"
        lines = ptx.read_text().split("\n")
        lines.insert(12, ".reqnctapercluster " + "1" * 5000)
        ptx.write_text("\n".join(lines))
        meta = json.loads((variant / "variant.json").read_text())
        if "sha256" in meta:
            meta["sha256"]["ptx.ptx"] = hashlib.sha256(ptx.read_bytes()).hexdigest()
            (variant / "variant.json").write_text(json.dumps(meta))
    result = cli("annotate", str(out), "--stage", "ptx")
    assert result.exit_code == 0, (result.exit_code, result.stderr)  # was: 70, "internal error: ValueError"
    assert "cluster launch:" not in result.stdout  # no shape a launch could ask for: no cluster finding
