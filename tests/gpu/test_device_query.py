"""On a GPU: NVML's answer to "which GPUs, of what compute capability" is CUDA's own (irscope/nvidia/device.py).

NVML answers in ~10 ms where cuInit takes 0.2-0.5 s, so irscope asks it first; where it answers at
all, it must answer what cuInit does, for every CUDA_VISIBLE_DEVICES CUDA reads as indices.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

ASK = (
    "import json, time; from irscope.nvidia import device; "
    "t = time.perf_counter(); nvml = device._ask_nvml(); t1 = time.perf_counter(); "
    "cuda = device._ask_cuda(); t2 = time.perf_counter(); "
    "print(json.dumps({'nvml': nvml, 'cuda': cuda, 'nvml_s': t1 - t, 'cuda_s': t2 - t1}))"
)


def _ask(visible: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    if visible is not None:
        env["CUDA_VISIBLE_DEVICES"] = visible
    done = subprocess.run([sys.executable, "-c", ASK], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_nvml_answers_what_cuda_answers():
    everything = _ask(None)
    assert everything["nvml"] is not None, "NVML could not answer on this machine"
    total = everything["cuda"][1]
    assert everything["nvml"] == list(everything["cuda"])
    # Which answers sooner is a figure (tests/perf/RESULTS.md: cuInit 0.24-0.32 s against NVML's 0.01-0.03 s on
    # two H200s), not a test: on an H100 whose driver was already up, CUDA answered in 10 ms and NVML in 21 ms.
    last = str(total - 1)
    cases = ["0", last, f"{last},0", f"0,{total}", f"{total},0", "0,0", "GPU-not-a-uuid", "", " 0", "0, 1", "٣"]
    for visible in cases:
        answer = _ask(visible)
        if answer["nvml"] is not None:  # where NVML answers, it is CUDA's answer
            assert answer["nvml"] == list(answer["cuda"]), visible
    # Indices are answered by NVML; what only CUDA can read is left to it.
    if total > 1:
        assert _ask(f"{last},0")["nvml"] == [everything["cuda"][0], 2]
    assert _ask(f"0,{total}")["nvml"] == [everything["cuda"][0], 1]  # CUDA's list ends at the first non-GPU
    assert _ask("GPU-not-a-uuid")["nvml"] is None and _ask("0,0")["nvml"] is None
