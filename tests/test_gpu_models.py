"""The stand-in answers like the card the user picks (``--gpu``, ``IRSCOPE_GPU``), and says what it cannot answer.

Each model's figures come from the source named beside it in irscope/gpu_models.py; a card recorded with
tests/gpu/probe_gpu_model.py (tests/gpu/records/*.json) is compared with its model field by field.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

RECORDS = Path(__file__).parent / "gpu" / "records"
REQUIRED = ("H100", "H200", "B200", "RTX5090", "A100", "MI300X", "MI355X")


def test_every_required_model_is_in_the_table_with_its_source():
    from irscope.gpu_models import MODELS, parse_gpu

    for key in REQUIRED:
        model = MODELS[key]
        assert model.source and model.multi_processor_count > 0 and model.shared_memory_per_block_optin > 0
        assert parse_gpu(key).model is model and parse_gpu(model.name).model is model
    assert parse_gpu("rtx 5090").model.key == "RTX5090" and parse_gpu("h100:8").count == 8
    assert MODELS["MI300X"].arch == "gfx942" and MODELS["B200"].arch == "sm_100" and MODELS["H100"].arch == "sm_90"


@pytest.mark.parametrize("text", ["H1000", "H100:0", "H100:x", "H100:65", ""])
def test_a_model_irscope_does_not_know_is_refused(text):
    from irscope.errors import ParameterError
    from irscope.gpu_models import parse_gpu

    with pytest.raises(ParameterError):
        parse_gpu(text)


def test_the_cli_refuses_an_unknown_model_in_one_line(run_irscope):
    done = run_irscope("--gpu", "H1000", "list")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "known: H100, H200" in done.stderr


def test_each_recorded_card_matches_its_model_field_by_field():
    from irscope.gpu_models import MODELS, compare

    records = sorted(RECORDS.glob("*.json")) if RECORDS.is_dir() else []
    if not records:
        pytest.skip("no card recorded yet (run tests/gpu/probe_gpu_model.py on a GPU)")
    for path in records:
        record = json.loads(path.read_text())
        model = MODELS.get(path.stem)
        assert model is not None, f"{path.name}: no model of that name in the table"
        assert compare(model, record) == [], path.name
        blank = [k for section in ("torch", "triton") for k, v in model.observed()[section].items() if v is None]
        print(path.stem, "fields to fill in from the record:", {k: record["torch"].get(k) for k in blank})


def test_compare_names_each_field_a_card_reports_otherwise():
    from irscope.gpu_models import MODELS, compare

    model = MODELS["H100"]
    record = model.observed()
    assert compare(model, record) == []
    record["torch"]["multi_processor_count"] = 114
    record["triton"]["max_shared_mem"] = 1
    assert compare(model, record) == [
        "torch.multi_processor_count: the table says 132, the card 114",
        "triton.max_shared_mem: the table says 232448, the card 1",
    ]


# What a library reads of the device at import, printed as JSON: run in a fresh Python under the stand-in.
ASK = """
import json, sys, torch, triton
from irscope.frontends.triton.gpu_free import Probes, gpu_free_import
from irscope.gpu_models import stand_in_gpu

probes = Probes()
with gpu_free_import(stand_in_gpu(), probes=probes):
    props = torch.cuda.get_device_properties(0)
    try:
        props.total_memory
        total = "answered"
    except AttributeError as exc:
        total = str(exc)
    try:
        torch.cuda.mem_get_info()
    except Exception as exc:
        free = type(exc).__name__
    answer = {
        "count": torch.cuda.device_count(),
        "name": torch.cuda.get_device_name(),
        "capability": list(torch.cuda.get_device_capability()),
        "sms": props.multi_processor_count,
        "optin": props.shared_memory_per_block_optin,
        "driver": dict(triton.runtime.driver.active.utils.get_device_properties(0)),
        "target": [triton.runtime.driver.active.get_current_target().backend,
                   triton.runtime.driver.active.get_current_target().arch],
        "total": total,
        "free": free,
        "available": torch.cuda.is_available(),
    }
answer["unanswered"] = probes.unanswered
print(json.dumps(answer))
"""


@pytest.mark.parametrize("gpu", ["H100:8", "RTX5090", "MI300X"])
def test_the_stand_in_answers_as_the_chosen_card_and_lists_what_it_cannot(gpu):
    from irscope.gpu_models import parse_gpu

    choice = parse_gpu(gpu)
    model = choice.model
    env = {**os.environ, "IRSCOPE_GPU": gpu, "IRSCOPE_NO_GPU": "1"}
    done = subprocess.run([sys.executable, "-c", ASK], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.splitlines()[-1])
    assert answer["count"] == choice.count and answer["name"] == model.name
    assert answer["capability"] == list(model.capability) and answer["sms"] == model.multi_processor_count
    assert answer["optin"] == model.shared_memory_per_block_optin
    assert answer["driver"] == {k: v for k, v in model.triton_properties().items() if v is not None}
    assert answer["target"] == (["hip", model.gfx] if model.gfx else ["cuda", model.nvidia_capability])
    # Never guessed: a figure the table does not have is refused and listed; so is what only a device knows.
    unanswered = answer["unanswered"]
    if model.total_memory is None:
        assert "does not know its total_memory" in answer["total"]
        assert "torch.cuda.get_device_properties().total_memory" in unanswered
    assert answer["free"] and "torch.cuda.mem_get_info()" in unanswered
    assert answer["available"] is False and "torch.cuda.is_available()" in unanswered


# FLA's rule (fla/utils/hardware.py, check_shared_mem): the larger block list where the first device's
# shared memory per block reaches 102400 bytes (its Backend.DEFAULT); idiomlib's utils.py copies it.
def _expected_blocks(model) -> list[int]:
    return [32, 64] if model.triton_properties()["max_shared_mem"] >= 102400 else [16, 32]


BLOCKS = """
import importlib, json, sys
from irscope.frontends.triton.kernel_files import load_package_module
out = []
for spelled in sys.argv[1:]:
    module, _, path = spelled.partition(":")
    value = load_package_module(module)
    for name in path.split("."):
        value = getattr(value, name)
    out.append(getattr(value, "value", value))
print(json.dumps(out))
"""


def _read(gpu: str, *names: str) -> list:
    fixtures = str(Path(__file__).parent / "fixtures" / "idiomlib")
    env = {**os.environ, "IRSCOPE_GPU": gpu, "IRSCOPE_NO_GPU": "1", "PYTHONPATH": fixtures}
    done = subprocess.run([sys.executable, "-c", BLOCKS, *names], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("gpu", ["H100", "RTX5090"])
def test_a_library_sizes_its_configs_for_the_chosen_card(gpu):
    """idiomlib (FLA's rule), and FLA itself where installed, imported on each card pick that card's block list,
    the one the library's own rule gives for the card's figures; FLA's threshold is read from FLA."""
    import importlib.util

    from irscope.gpu_models import parse_gpu

    model = parse_gpu(gpu).model
    fla = importlib.util.find_spec("fla") is not None  # fla-core: a test dependency (.ci/run), else left out
    names = ["idiomlib.utils:BLOCK_LIST"]
    names += ["fla.ops.common.chunk_h:BKV_LIST", "fla.utils.hardware:Backend.DEFAULT"] if fla else []
    read = _read(gpu, *names)
    assert read[0] == _expected_blocks(model)
    if fla:
        blocks, default = read[1:]
        assert default == 102400 and blocks == _expected_blocks(model)
