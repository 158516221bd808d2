"""Why a CUDA C++ or Numba kernel's time disagrees with Nsight Compute where a Triton kernel's agrees
(issue 30, point 9): each GeLU timed by irscope's cupti method (as bench does, back to back, without the
idle gap) and by ncu (as bench --ncu does, with the SM and DRAM clocks ncu saw, with and without its cache
control), with the SM clock NVML reports while irscope times. Run on a GPU:

    python tests/perf/probe_ncu_agreement.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path

KERNELS = ["gelu_kernel", "gelu_tanh_kernel", "gelu_numba_kernel", "square_kernel", "softmax_kernel", "matmul_kernel"]
EXTRA = {
    "gpu__time_duration.sum": "gpu_time_us",
    "smsp__cycles_elapsed.avg.per_second": "sm_hz",
    "dram__cycles_elapsed.avg.per_second": "dram_hz",
    "sm__cycles_elapsed.max": "sm_cycles",
    "dram__bytes.sum": "dram_bytes",
}


def _nvml_clock():
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        return lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)
    except Exception:
        return None


def _ncu(kernel, config, function, cache_control):
    from irscope.measure.ncu import TARGET, kernel_filter, ncu_path, parse_csv
    from irscope.processes import own_python

    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.json"
        job.write_text(json.dumps({"kernel": asdict(kernel.handle()), "configs": [config.to_json()], "repeats": 5}))
        cmd = [
            ncu_path(),
            "--csv",
            "--clock-control",
            "none",
            "--cache-control",
            cache_control,
            *kernel_filter([function]),
        ]
        cmd += ["--metrics", ",".join(EXTRA), *own_python.command(TARGET, str(job))]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=own_python.environment())
    rows = parse_csv(proc.stdout)[1:]
    if not rows:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return {
        k: statistics.median(r[k] for r in rows if isinstance(r.get(k), (int, float)))
        for k in rows[0]
        if isinstance(rows[0][k], (int, float))
    }


def main() -> None:
    import torch

    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config
    from irscope.measure.ncu import function_name
    from irscope.measure.timing import time_launches

    clock = _nvml_clock()
    print(f"device: {torch.cuda.get_device_name()}; nvml clock: {'yes' if clock else 'no'}")
    for name in KERNELS:
        kernel = resolve_kernel(name)
        config = resolve_config(kernel, {})
        variant = capture(kernel, arch="sm_90", config=config)
        function = function_name(variant)
        launch = kernel.launch(config, device="cuda")
        launch.first()
        out: dict[str, object] = {"function": function}
        for label, kwargs in (("cupti", {}), ("cupti b2b", {"isolate": False}), ("cupti no gap", {"gap_ms": 0.0})):
            samples: list[float] = []
            stop = threading.Event()

            def sample(samples=samples, stop=stop):
                while clock and not stop.is_set():
                    samples.append(clock())
                    time.sleep(0.002)

            t = threading.Thread(target=sample)
            t.start()
            timing = time_launches(launch.run, min_time_ms=300, **kwargs)
            stop.set()
            t.join()
            out[label] = round(1e3 * statistics.median(timing.times_ms), 2)
            if samples:
                out[label + " sm MHz"] = statistics.median(samples)
        for cache in ("all", "none"):
            out[f"ncu cache={cache}"] = _ncu(kernel, config, function, cache)
        print(json.dumps({name: out}, indent=1), flush=True)


if __name__ == "__main__":
    main()
