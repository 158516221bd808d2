"""What a compile worker or a Ray node answers is checked field by field before it is cached or written.

A worker here compiles for real and then spoils one field of its answer (tests/hostile/junk_worker.py): a stage
named ``../../outside``, an option no JSON can hold, a compile time of ``"soon"``, bytes for a listing, or no
``Compiled`` at all. Before, such an answer was exit 70, or was cached and written into a session that irscope
then refused to open. Now that variant fails with why, nothing of it is cached, nothing is written outside, and
the session opens. Ray's pools take their answers through the same check (``executors.base.accepted``).
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from irscope.capturing import pipeline
from irscope.capturing.worker import COMPILE, check_compiled, failure
from irscope.frontends import Compiled
from irscope.processes.executors.base import accepted
from irscope.records import Measurement
from irscope.session import Session
from irscope.types import Status


@pytest.mark.parametrize("junk", ["stage", "option", "seconds", "listing", "not-compiled"])
def test_a_workers_junk_answer_fails_its_variant_and_is_neither_cached_nor_written(tmp_path, cli, monkeypatch, junk):
    monkeypatch.setattr(pipeline, "COMPILE", replace(COMPILE, serve="hostile.junk_worker:serve"))
    monkeypatch.setenv("IRSCOPE_TEST_JUNK", junk)
    monkeypatch.setenv("IRSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "runs" / "s"
    result = cli("sweep", "square_kernel", "-s", "BLOCK_SIZE=128", "--arch", "sm_90", "-o", str(out))
    assert result.exit_code == 1, result.stderr  # the variant failed; the sweep did not
    session = Session.open(out)  # it opens: nothing in it is junk
    assert [e.status for e in session.entries] == [Status.FAILED]
    notes = [session.variant(e).error.message for e in session.entries]
    assert all("the worker answered" in n for n in notes), notes
    assert not (tmp_path / "runs" / "outside").exists() and not (tmp_path / "outside").exists()
    assert not list((tmp_path / "cache").rglob("variant.json"))  # a damaged answer is no fact: never cached


def test_every_field_of_a_compiled_is_checked():
    from dataclasses import fields

    from irscope.capturing.worker import _FIELD_CHECKS

    assert {f.name for f in fields(Compiled)} == set(_FIELD_CHECKS)
    check_compiled(Compiled())  # an empty answer is a well-formed one


@pytest.mark.parametrize("cluster", [(0, 1, 1), (2, 1), [2, 1, 1], (2, True, 1), (2, 1, 10_000), "2x1x1", ("2", 1, 1)])
def test_a_cluster_shape_that_is_not_one_is_refused(cluster):
    """A cluster is x, y, z CTAs, each 1 to 9999 (what ``Resources.cluster`` spells as ``2x1x1``)."""
    check_compiled(Compiled(cluster=(2, 1, 1)))
    with pytest.raises(ValueError, match="Compiled.cluster"):
        check_compiled(Compiled(cluster=cluster))
    assert "damaged Compiled" in accepted(COMPILE, Compiled(cluster=cluster)).error.message


def test_ray_answers_go_through_the_same_check():
    junk = Compiled(seconds=float("nan"))
    answer = accepted(COMPILE, junk)
    assert answer is not junk and "damaged Compiled" in answer.error.message
    assert accepted(COMPILE, Compiled()) == Compiled()
    assert "not a result" in accepted(COMPILE, "a string").error.message


def test_a_measurement_no_session_could_read_back_is_refused_before_it_is_written():
    from irscope.measure.worker import MEASURE

    for spoiled in (Measurement(Status.OK, median_us=0.0), Measurement(Status.OK, median_us="soon")):
        assert accepted(MEASURE, spoiled) is not spoiled
    fine = Measurement(Status.OK, median_us=12.5)
    assert accepted(MEASURE, fine) is fine
    assert json.loads(json.dumps(fine.to_json()))["median_us"] == 12.5
    assert failure("crashed", "x").error.stage == "compile"


def test_a_stage_error_is_a_known_stage_and_text_and_never_hides_a_listing():
    """``Compiled.stage_errors`` (why a stage was not made: TileLang's AMDGCN without hipcc) names a Stage and
    says why in text; a reason for a stage the compile did list is dropped, not shown beside it."""
    from irscope.arch import Target
    from irscope.types import Config, KernelId, Stage

    for junk in ({"../../outside": "why"}, {Stage.AMDGCN: b"\x1b[2J"}, ["amdgcn"]):
        with pytest.raises(ValueError, match="Compiled.stage_errors"):
            check_compiled(Compiled(stage_errors=junk))
    compiled = Compiled(
        stages={Stage.AMDGCN: "s_endpgm\n"},
        options={"entry": "k"},
        stage_errors={Stage.AMDGCN: "not produced: no hipcc", Stage.TTGIR: "not produced: no reason here"},
    )
    check_compiled(compiled)
    variant = pipeline.build_variant(
        KernelId("k", "k.py", "0"), Config({}), Target.for_arch("gfx942"), compiled, "", (Stage.AMDGCN, Stage.TTGIR)
    )
    assert Stage.AMDGCN not in variant.stage_errors and variant.listings[Stage.AMDGCN] == "s_endpgm\n"
    assert variant.stage_errors[Stage.TTGIR] == "not produced: no reason here"
