"""What irscope records about a variant beside its listings: its table facts, its measurement.

types.py holds what one compile produces; these are the records kept about a
variant afterwards, in a session entry (and in samples/), and shown by both
faces, and what a kernel's own autotuner said about the same configs. They are
the typed model: each converts to and from JSON itself, and nothing else reads
or writes their JSON.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .types import Config, Status, scalar_values, typed_fields


def code_hash(text: str) -> str:
    """The hash that says two variants are the same code: sha256 of the listing's text (PTX)."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Facts:
    """The numbers a variants table shows, read from the compile (None: not known)."""

    registers: int | None = None
    spill_stores: int | None = None  # bytes, per ptxas
    spill_loads: int | None = None
    stack: int | None = None  # stack frame bytes
    shared: int | None = None  # bytes requested at launch
    ptx_lines: int | None = None
    ptx_instructions: int | None = None
    amdgcn_lines: int | None = None  # an AMD variant's machine code, where an NVIDIA one has PTX
    sgprs: int | None = None  # AMD: scalar registers per wave (``registers`` holds the VGPRs per lane)
    scratch: int | None = None  # AMD: private memory per lane in bytes, where spills go
    load_bytes: int | None = None  # widest global load, in bytes
    store_bytes: int | None = None  # widest global store
    compile_s: float | None = None
    mode: str | None = None  # the CaptureMode's value
    heuristics: dict | None = None  # constexprs the kernel's decorators set (CompileInfo.heuristics)
    ptx_sha256: str | None = (
        None  # the PTX's hash (code_hash): a runtime recorded elsewhere is this code's if it matches
    )

    @property
    def spills(self) -> int | None:
        """Spill bytes stored and loaded, together."""
        if self.spill_stores is None:
            return None
        return (self.spill_stores or 0) + (self.spill_loads or 0)

    @property
    def ldst(self) -> str | None:
        """Widest load and store, as ``16/4`` (``-`` for a side with none)."""
        if self.load_bytes is None and self.store_bytes is None:
            return None
        return f"{self.load_bytes or '-'}/{self.store_bytes or '-'}"

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Facts:
        values = typed_fields(cls, data)
        if values.get("heuristics") is not None:
            values["heuristics"] = scalar_values(values["heuristics"], "Facts.heuristics")
        return cls(**values)


# Measurement.timing's keys in a label's words (measure/timing.py describes each method)
TIMING_NAMES = {"cupti": "CUPTI", "events": "CUDA events", "graph": "CUDA graphs", "rocm": "ROCm profiler"}

TIMES = ("median_us", "p20_us", "p80_us", "min_us")
RATES = ("gbps", "tflops", "pct_copy", "pct_ceiling", "pct_datasheet", "pct_flops")


@dataclass(frozen=True)
class Measurement:
    """What checking and timing one variant found; ``status`` says whether the timing counts.

    Only OK runs are ranked; WRONG runs are timed too but never count as a win.
    """

    status: Status
    median_us: float | None = None
    p20_us: float | None = None
    p80_us: float | None = None
    min_us: float | None = None
    repetitions: int = 0
    method: str = ""  # how it was timed, in words (measure/timing.py)
    timing: str = ""  # the method's key: "cupti", "events" or "graph"; "rocm": a run profiled on ROCm (older: "")
    gbps: float | None = None
    tflops: float | None = None
    pct_copy: float | None = None  # a copy of the same bytes, timed the same way, as % of this runtime
    pct_ceiling: float | None = None  # of the device's 1 GiB device-to-device copy rate
    pct_datasheet: float | None = None  # of the peak memory bandwidth (bus width x memory clock)
    pct_flops: float | None = None  # of the dense fp16 tensor-core peak (Triton's table)
    bound: str | None = None  # "memory" or "compute": the kernel's flops/byte against the device's ridge point
    kernels: list[dict[str, Any]] | None = None  # a launch of several GPU kernels: each one's median
    gpu_index: int | None = None  # which GPU of the host measured it
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    error: str | None = None
    device: str = ""
    driver: str = ""
    torch: str = ""
    triton: str = ""
    date: str = ""
    ncu: dict[str, Any] | None = None  # gpu_time_us, dram_pct, occupancy_pct, registers
    ptx_sha256: str = ""  # code_hash of the PTX that ran, where the launch showed it ("": not known)
    source: str = "measured"  # or "<device> sample, <date>", "torch profiler"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ranked(self) -> bool:
        """May this runtime compete for fastest? (Correct, and timed.)"""
        return self.status is Status.OK and self.median_us is not None

    def timing_name(self) -> str:
        """How it was timed, in a label's words ("CUPTI", "CUDA events"); "" where not recorded."""
        return TIMING_NAMES.get(self.timing, self.timing)

    def label(self) -> str:
        if self.median_us is None:
            return self.status.value
        return f"{self.median_us:.1f} us"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        return {k: v for k, v in data.items() if v not in (None, "", {}) or k in ("status", "median_us")}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Measurement:
        values = typed_fields(cls, data)
        values["status"] = Status(values.get("status", "ok"))
        for name in TIMES + RATES:  # what a table divides by, formats and ranks: finite, and a time above 0
            value = values.get(name)
            if value is not None and not (math.isfinite(value) and (value > 0 if name in TIMES else value >= 0)):
                raise ValueError(
                    f"Measurement.{name} is {value!r}: "
                    + ("a time above 0" if name in TIMES else "a rate of 0 or more")
                )
        return cls(**values)


@dataclass(frozen=True)
class Runtime:
    """A runtime as a diff's summary shows it: the median, and where it was measured."""

    median_us: float
    device: str = ""
    source: str = ""

    @classmethod
    def of(cls, m: Measurement | None) -> Runtime | None:
        if m is None or m.median_us is None:
            return None
        return cls(m.median_us, m.device, m.source)


@dataclass(frozen=True)
class TunedConfig:
    """One config of a kernel's own autotuner, as the autotuner timed it (measure/autotuner.py)."""

    values: dict[str, Any]  # what it sets: constexprs, then launch options (num_ctas 1 and no maxnreg left out)
    ms: float | None = None  # the figure the autotuner ranks by; None: not timed (pruned, failed, one config)
    timings: tuple[float, ...] = ()  # every figure it gave, in its order (Triton's do_bench: median, p20, p80)
    pruned: bool = False  # prune_configs_by dropped it, so the autotuner never timed it
    failed: bool = False  # timed as infinite: it did not compile or ran out of resources

    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.values.items())

    def matches(self, config: Config) -> bool:
        """Is ``config`` (a variant's) this one? Compared on the names both set."""
        values = config.values()
        shared = [n for n in self.values if n in values]
        return bool(shared) and all(_same(values[n], self.values[n]) for n in shared)


@dataclass(frozen=True)
class AutotunerRun:
    """A kernel's own autotuner run once on the GPU, as a user's launch runs it, beside irscope's measurements.

    ``given`` is what the launch fixed besides the autotuner: the example inputs'
    sizes and the constexprs the caller passes; a variant with other values of
    those is not one of the configs the autotuner timed.
    """

    configs: tuple[TunedConfig, ...] = ()  # in the autotuner's order
    picked: int | None = None  # the config it chose (Triton's best_config), an index into configs
    given: dict[str, Any] = field(default_factory=dict)
    method: str = ""  # how it timed, in words
    ranked_by: str = ""  # which of its figures it compares ("median")
    benchmarked: bool = True  # False: a single config, which the autotuner takes without timing it
    seconds: float | None = None  # the whole run, compiles included
    error: str | None = None

    @property
    def pick(self) -> TunedConfig | None:
        return None if self.picked is None or not 0 <= self.picked < len(self.configs) else self.configs[self.picked]

    def index_of(self, config: Config) -> int | None:
        """Which of the autotuner's configs a variant is, where it was run on the same inputs."""
        values = config.values()
        if any(n in values and not _same(values[n], v) for n, v in self.given.items()):
            return None
        return next((i for i, c in enumerate(self.configs) if c.matches(config)), None)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["configs"] = [
            {k: v for k, v in c.items() if v is not None and v is not False and v != ()} for c in data["configs"]
        ]
        return {k: v for k, v in data.items() if v is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AutotunerRun:
        known = {f.name for f in fields(TunedConfig)}
        given: list[dict[str, Any]] = [
            {k: (tuple(v) if k == "timings" else v) for k, v in c.items() if k in known}
            for c in data.get("configs") or ()
        ]
        configs = tuple(TunedConfig(**c) for c in given)
        values = {k: v for k, v in data.items() if k in {f.name for f in fields(cls)} and k != "configs"}
        return cls(configs=configs, **values)


def _same(a: Any, b: Any) -> bool:
    """Equal, and a bool only ever equals a bool (``True == 1`` in Python, not in a config)."""
    return a == b and isinstance(a, bool) == isinstance(b, bool)
