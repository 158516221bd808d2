"""irscope's part of a program ``irscope run`` runs: started by bootstrap/sitecustomize.py before its code.

It records, and changes nothing the program sees: Triton's compiles and
launches through Triton's own hooks (frontends/triton/listen.py), the CUDA sources
of each ``load_inline`` call (frontends/cuda/listen.py): each frontend's recorder
(``FrontendInfo.recorder``), and, on a GPU,
every GPU activity of the run through torch.profiler (CUPTI), as the lecture
profiles a program. Only the first Python process of the run records (its
children, an Inductor compile worker say, inherit ``IRSCOPE_RUN_OWNER`` and do
nothing). What the program's process writes is data, read back by collect.py.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENV_DIR = "IRSCOPE_RUN_DIR"  # where to write (the run's raw/ folder)
ENV_OWNER = "IRSCOPE_RUN_OWNER"  # the pid of the process that records
ENV_PROFILE = "IRSCOPE_RUN_PROFILE"  # "1": profile the run with torch.profiler
ENV_GPU_FREE = "IRSCOPE_RUN_GPU_FREE"  # a capability (90): no GPU here; record launches for it, run none
PROFILE = "profile.json"
TRACE = "trace.json"  # torch.profiler's Chrome trace of the run, as the lecture exports it for Perfetto


def start() -> None:
    directory = os.environ.get(ENV_DIR)
    if not directory or os.environ.get(ENV_OWNER):
        return
    os.environ[ENV_OWNER] = str(os.getpid())
    raw = Path(directory)
    capability = os.environ.get(ENV_GPU_FREE)

    from ...frontends import frontend_infos

    gpu_free = int(capability) if capability else None
    recorders: dict[str, Any] = {}
    for info in frontend_infos():  # each language's recorder (FrontendInfo.recorder), installed before the program runs
        if info.recorder is not None:
            recorders[info.name] = _started(
                functools.partial(info.recorder, raw, gpu_free),
                "install",
                f"{info.display_name} kernels are not recorded",
            )
    inductor = None
    if not capability:  # without a GPU, Inductor writes C++ kernels, not Triton
        from ..inductor.listen import OutputCodeListener

        inductor = OutputCodeListener(raw, recorders.get("triton"))
        inductor.install()
    profiler = None
    if os.environ.get(ENV_PROFILE) == "1" and not capability:
        profiler = _started(lambda: Profiler(raw), "start", "the run is not profiled")
    # Inductor's loaded kernels go to Triton's recorder first, so it finishes before the recorders do.
    atexit.register(_finish, inductor, *recorders.values(), profiler)


def _started(make: Callable[[], Any], start: str, lost: str) -> Any:
    """``make()`` with its ``start`` method called, or None and one line saying what is ``lost``."""
    try:
        part = make()
        getattr(part, start)()
        return part
    except Exception as exc:
        _say(f"{lost}: {type(exc).__name__}: {exc}")
        return None


def _finish(*parts: Any) -> None:
    for part in parts:
        if part is None:
            continue
        try:
            part.finish()
        except Exception as exc:
            _say(f"{type(part).__name__} could not write what it recorded: {type(exc).__name__}: {exc}")


def _say(message: str) -> None:
    sys.stderr.write(f"irscope run: {message}\n")


class Profiler:
    """torch.profiler over the whole run, GPU activities only (what the lecture's table shows per kernel).

    On ROCm torch.cuda is HIP's and ProfilerActivity.CUDA is Kineto's ROCm tracer: the same calls record
    an AMD GPU's kernels."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.prof: Any = None

    def start(self) -> None:
        import torch

        if not torch.cuda.is_available():
            return
        from torch.profiler import ProfilerActivity, profile

        self.prof = profile(activities=[ProfilerActivity.CUDA])
        self.prof.start()

    def finish(self) -> None:
        if self.prof is None:
            return
        import torch
        from torch.autograd import DeviceType

        torch.cuda.synchronize()
        self.prof.stop()
        groups: dict[tuple, list[float]] = {}
        for event in self.prof.profiler.kineto_results.events():
            if event.device_type() != DeviceType.CUDA:
                continue
            meta = _metadata(event)
            key = (event.name(), _dims(meta.get("grid")), _dims(meta.get("block")))
            groups.setdefault(key, []).append(event.duration_ns() / 1e3)
        device = torch.cuda.current_device()
        kernels = []
        for (name, grid, block), durations in groups.items():
            durations.sort()
            kernels.append(
                {
                    "name": name,
                    "grid": grid,
                    "block": block,
                    "calls": len(durations),
                    "total_us": sum(durations),
                    "median_us": durations[len(durations) // 2],
                    "min_us": durations[0],
                    "max_us": durations[-1],
                }
            )
        report = {"device": torch.cuda.get_device_name(device), "torch": torch.__version__, "kernels": kernels}
        if torch.version.hip:
            # ROCm's device capability is the gfx name's digits ((9, 4) on an MI300X), no sm_ arch: the
            # processor itself, as torch's own CudaInterface.get_compute_capability reads it there.
            report["arch"] = torch.cuda.get_device_properties(device).gcnArchName.split(":", 1)[0]
        else:
            report["capability"] = "".join(map(str, torch.cuda.get_device_capability(device)))
        tmp = self.directory / f".{PROFILE}.tmp"
        tmp.write_text(json.dumps(report, indent=1), encoding="utf-8")
        os.replace(tmp, self.directory / PROFILE)
        try:  # the timeline: collect.py links each kernel's events to its session
            trace = self.directory / f".{TRACE}.tmp"
            self.prof.export_chrome_trace(str(trace))
            os.replace(trace, self.directory / TRACE)
        except Exception as exc:
            _say(f"the run's Chrome trace was not written: {type(exc).__name__}: {exc}")


def _metadata(event: Any) -> dict[str, Any]:
    """Kineto's per-activity metadata (grid and block of a kernel): a JSON object's members, without braces."""
    try:
        text = event.metadata_json()
        data = json.loads("{" + text + "}") if text else {}
        return data if isinstance(data, dict) else {}
    except Exception:
        return {}


def _dims(value: Any) -> list[int] | None:
    if isinstance(value, list) and value and all(isinstance(v, int) for v in value):
        return list(value)
    return None
