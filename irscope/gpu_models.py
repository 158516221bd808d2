"""The GPU models a machine without a GPU answers as (``--gpu H100``, ``IRSCOPE_GPU``): what each card reports.

Libraries choose their configs from what the device says: FLA sizes its autotune list from
``torch.cuda.device_count()`` and the shared memory per block, tutorials size a persistent grid by
the SM count, Liger picks warps by the arch. The stand-in device (frontends/triton/gpu_free.py)
answers those queries from one model here, in the two shapes a program reads them: torch's
``get_device_properties`` fields and Triton's ``driver.active.utils.get_device_properties`` keys.

Each figure is the one the card's driver reports (kHz for clocks, bits for the bus, bytes for
memory), taken from the source named beside the model. A field no source gives is None: the
stand-in then does not answer it, and a program that asks is told so (the run lists the probe),
never given a guess. ``observed()`` is the shape ``tests/gpu/probe_gpu_model.py`` records on a real
card, so a recording compares with its model field by field (tests/test_gpu_models.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ParameterError

ENV = "IRSCOPE_GPU"  # the model a stand-in answers as, "H100" or "H100:8" (eight of them)
MAX_DEVICES = 64

KiB = 1024
MiB = 1024 * KiB


@dataclass(frozen=True)
class GpuModel:
    """One card as its driver describes it. None: no published figure (asking for it is listed, not guessed)."""

    key: str  # what --gpu takes
    name: str  # torch.cuda.get_device_name()
    capability: tuple[int, int]  # torch.cuda.get_device_capability(): (9, 0); ROCm's for an AMD card: (9, 4)
    gfx: str | None  # the AMD processor Triton compiles for ("gfx942"); None for NVIDIA
    multi_processor_count: int  # SMs, or CUs
    warp_size: int
    shared_memory_per_block_optin: int  # what one block may use (Triton's max_shared_mem on NVIDIA)
    shared_memory_per_block: int  # without opting in (Triton's max_shared_mem on AMD: HIP's sharedMemPerBlock)
    shared_memory_per_multiprocessor: int
    regs_per_block: int | None
    regs_per_multiprocessor: int | None
    max_threads_per_multi_processor: int
    clock_rate_khz: int | None  # the SM clock the driver reports (its boost clock)
    memory_clock_rate_khz: int | None
    memory_bus_width: int | None  # bits
    l2_cache_size: int | None  # bytes, as the driver reports it (ROCm: one XCD's)
    total_memory: int | None  # bytes
    # torch's gcnArchName: the gfx target on ROCm; on CUDA torch repeats the device's name there (an H100's
    # record, tests/gpu/records/H100.json, torch 2.11 + CUDA 13.0), so "" stands for the name
    gcn_arch_name: str = ""
    max_threads_per_block: int = 1024
    source: str = ""

    @property
    def vendor(self) -> str:
        return "amd" if self.gfx is not None else "nvidia"

    @property
    def arch(self) -> str:
        """What Triton compiles for on this card: ``sm_90`` or ``gfx942``."""
        return self.gfx if self.gfx is not None else f"sm_{self.capability[0]}{self.capability[1]}"

    @property
    def nvidia_capability(self) -> int | None:
        return None if self.gfx is not None else self.capability[0] * 10 + self.capability[1]

    def torch_properties(self) -> dict[str, Any]:
        """torch.cuda.get_device_properties(i)'s fields (None: not published)."""
        return {
            "name": self.name,
            "major": self.capability[0],
            "minor": self.capability[1],
            "multi_processor_count": self.multi_processor_count,
            "warp_size": self.warp_size,
            "total_memory": self.total_memory,
            "L2_cache_size": self.l2_cache_size,
            "shared_memory_per_block": self.shared_memory_per_block,
            "shared_memory_per_block_optin": self.shared_memory_per_block_optin,
            "shared_memory_per_multiprocessor": self.shared_memory_per_multiprocessor,
            "regs_per_multiprocessor": self.regs_per_multiprocessor,
            "max_threads_per_multi_processor": self.max_threads_per_multi_processor,
            "max_threads_per_block": self.max_threads_per_block,
            "clock_rate": self.clock_rate_khz,
            "memory_clock_rate": self.memory_clock_rate_khz,
            "memory_bus_width": self.memory_bus_width,
            "gcnArchName": self.gcn_arch_name or self.name,
            "is_integrated": 0,
        }

    def triton_properties(self) -> dict[str, Any]:
        """Triton's ``driver.active.utils.get_device_properties(i)``: its driver's keys (None: not published).

        NVIDIA's driver.c: the opt-in shared memory per block; HIP's: ``sharedMemPerBlock``, and the
        processor's name under ``arch``.
        """
        out: dict[str, Any] = {
            "max_shared_mem": self.shared_memory_per_block if self.gfx else self.shared_memory_per_block_optin,
            "max_num_regs": self.regs_per_block,
            "multiprocessor_count": self.multi_processor_count,
            "warpSize": self.warp_size,
            "sm_clock_rate": self.clock_rate_khz,
            "mem_clock_rate": self.memory_clock_rate_khz,
            "mem_bus_width": self.memory_bus_width,
        }
        if self.gfx is not None:
            out.update(arch=self.gcn_arch_name or self.gfx, max_threads_per_sm=self.max_threads_per_multi_processor)
        return out

    def observed(self, device_count: int = 1) -> dict[str, Any]:
        """The record probe_gpu_model.py writes on a real card, as this model would read."""
        return {
            "device_count": device_count,
            "name": self.name,
            "capability": list(self.capability),
            "torch": self.torch_properties(),
            "triton": self.triton_properties(),
        }


_CUDA_GUIDE = "CUDA C++ Programming Guide, technical specifications per compute capability"

MODELS: dict[str, GpuModel] = {
    m.key: m
    for m in (
        GpuModel(
            "H100",
            "NVIDIA H100 80GB HBM3",
            (9, 0),
            None,
            132,
            32,
            232448,
            49152,
            233472,
            65536,
            65536,
            2048,
            1980000,
            2619000,
            5120,
            50 * MiB,
            85017493504,
            source="H100 SXM5: NVIDIA H100 datasheet and Hopper whitepaper (132 SMs, 1.98 GHz, 5120-bit HBM3 at "
            f"3.35 TB/s = 2619 MHz, 50 MB L2); shared memory, registers, threads: {_CUDA_GUIDE} 9.0; total memory "
            "as the card reports it (tests/gpu/records/H100.json; the same in two device sessions, 2026-12-05)",
        ),
        GpuModel(
            "H200",
            "NVIDIA H200",
            (9, 0),
            None,
            132,
            32,
            232448,
            49152,
            233472,
            65536,
            65536,
            2048,
            1980000,
            None,
            6144,
            None,
            None,
            source="H200 SXM: NVIDIA H200 datasheet (the H100's GH100 with 141 GB HBM3e on 6 stacks, 6144-bit); "
            f"{_CUDA_GUIDE} 9.0; memory clock and L2 as the driver reports them: not published",
        ),
        GpuModel(
            "B200",
            "NVIDIA B200",
            (10, 0),
            None,
            148,
            32,
            232448,
            49152,
            233472,
            65536,
            65536,
            2048,
            None,
            None,
            8192,
            126 * MiB,
            None,
            source="B200: NVIDIA Blackwell tuning guide (148 SMs, 126 MB L2, 228 KB shared memory per SM, "
            f"227 KB per block), 8 HBM3e stacks (8192-bit); {_CUDA_GUIDE} 10.0; clocks: not published",
        ),
        GpuModel(
            "RTX5090",
            "NVIDIA GeForce RTX 5090",
            (12, 0),
            None,
            170,
            32,
            101376,
            49152,
            102400,
            65536,
            65536,
            1536,
            2550000,
            14001000,
            512,
            96 * MiB,
            33680457728,
            source="RTX 5090: deviceQuery of a card (github.com/NVIDIA/nccl/issues/1637: 170 SMs, 2550 MHz, "
            f"14001 MHz, 512-bit, L2 100663296 B, 33680457728 B); opt-in shared memory: {_CUDA_GUIDE} 12.0",
        ),
        GpuModel(
            "A100",
            "NVIDIA A100-SXM4-80GB",
            (8, 0),
            None,
            108,
            32,
            166912,
            49152,
            167936,
            65536,
            65536,
            2048,
            1410000,
            1593000,
            5120,
            40 * MiB,
            None,
            source="A100 SXM4 80GB: NVIDIA A100 datasheet (108 SMs, 1410 MHz, 5120-bit HBM2e at 2039 GB/s = "
            f"1593 MHz, 40 MB L2); {_CUDA_GUIDE} 8.0",
        ),
        GpuModel(
            "MI300X",
            "AMD Instinct MI300X",
            (9, 4),
            "gfx942",
            304,
            64,
            65536,
            65536,
            65536,
            None,
            None,
            2048,
            2100000,
            1300000,
            8192,
            4 * MiB,
            None,
            gcn_arch_name="gfx942:sramecc+:xnack-",
            source="MI300X: torch.cuda.get_device_properties on ROCm 6.2 (github.com/ROCm/legacy-rocm-build/issues/"
            "4203: 304 CUs, (9, 4), gfx942:sramecc+:xnack-, L2 4 MB per XCD); AMD CDNA3 whitepaper and MI300X "
            "datasheet (64 KB LDS per CU, 2100 MHz peak engine clock, 8 HBM3 stacks at 5.2 Gbps = 1300 MHz)",
        ),
        GpuModel(
            "MI355X",
            "AMD Instinct MI355X",
            (9, 5),
            "gfx950",
            256,
            64,
            163840,
            163840,
            163840,
            None,
            None,
            2048,
            2400000,
            None,
            8192,
            4 * MiB,
            None,
            gcn_arch_name="gfx950:sramecc+:xnack-",
            source="MI355X: AMD Instinct MI355X datasheet and CDNA4 whitepaper (256 CUs, 160 KB LDS per CU, "
            "2400 MHz peak engine clock, 8 HBM3E stacks, 4 MB L2 per XCD); memory clock: not published",
        ),
        GpuModel(
            "T4",
            "Tesla T4",
            (7, 5),
            None,
            40,
            32,
            65536,
            49152,
            65536,
            65536,
            65536,
            1024,
            1590000,
            5001000,
            256,
            4 * MiB,
            None,
            source=f"T4: NVIDIA T4 datasheet (40 SMs, 1590 MHz, 256-bit GDDR6, 4 MB L2); {_CUDA_GUIDE} 7.5",
        ),
        GpuModel(
            "A10",
            "NVIDIA A10",
            (8, 6),
            None,
            72,
            32,
            101376,
            49152,
            102400,
            65536,
            65536,
            1536,
            1695000,
            6251000,
            384,
            6 * MiB,
            None,
            source=f"A10: NVIDIA A10 datasheet (72 SMs, 1695 MHz, 384-bit GDDR6, 6 MB L2); {_CUDA_GUIDE} 8.6",
        ),
        GpuModel(
            "L4",
            "NVIDIA L4",
            (8, 9),
            None,
            58,
            32,
            101376,
            49152,
            102400,
            65536,
            65536,
            1536,
            2040000,
            6251000,
            192,
            48 * MiB,
            None,
            source=f"L4: NVIDIA L4 datasheet (58 SMs, 2040 MHz, 192-bit GDDR6, 48 MB L2); {_CUDA_GUIDE} 8.9",
        ),
    )
}

# What a machine without a GPU answers as for an arch when no model is named: the common card of that arch.
FOR_CAPABILITY = {75: "T4", 80: "A100", 86: "A10", 89: "L4", 90: "H100", 100: "B200", 120: "RTX5090"}
FOR_GFX = {"gfx942": "MI300X", "gfx950": "MI355X"}


@dataclass(frozen=True)
class GpuChoice:
    """The model a stand-in answers as, and how many of it (``torch.cuda.device_count()``)."""

    model: GpuModel
    count: int = 1

    def spelled(self) -> str:
        return self.model.key if self.count == 1 else f"{self.model.key}:{self.count}"


def _folded(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


_ALIASES = {_folded(k): k for k in MODELS} | {_folded(m.name): k for k, m in MODELS.items()}


def parse_gpu(text: str) -> GpuChoice:
    """``H100``, ``rtx 5090``, ``MI300X:8`` -> the model (and the device count after a colon)."""
    name, _, count = str(text).partition(":")
    key = _ALIASES.get(_folded(name))
    if key is None:
        raise ParameterError(f"unknown GPU model {name.strip()!r}; known: {', '.join(MODELS)} (NAME or NAME:COUNT)")
    if not count:
        return GpuChoice(MODELS[key])
    if not count.strip().isdigit() or not 1 <= int(count) <= MAX_DEVICES:
        raise ParameterError(f"GPU count {count!r} in {text!r}: a whole number from 1 to {MAX_DEVICES}")
    return GpuChoice(MODELS[key], int(count))


def named_gpu(environ: Mapping[str, str] | None = None) -> GpuChoice | None:
    """The model ``IRSCOPE_GPU`` (``--gpu``) names, or None."""
    text = (os.environ if environ is None else environ).get(ENV, "").strip()
    return parse_gpu(text) if text else None


def gpu_for_arch(arch: int | str) -> GpuChoice:
    """The stand-in for an arch (90, "gfx942") where no model is named: the common card of that arch, else
    the newest listed of an older one."""
    if isinstance(arch, str):
        return GpuChoice(MODELS[FOR_GFX.get(arch, "MI300X")])
    older = [c for c in sorted(FOR_CAPABILITY) if c <= arch]
    return GpuChoice(MODELS[FOR_CAPABILITY[older[-1] if older else min(FOR_CAPABILITY)]])


def stand_in_gpu(arch: int | str | None = None, environ: Mapping[str, str] | None = None) -> GpuChoice:
    """The model named (``IRSCOPE_GPU``), else the one for ``arch``, else an H100."""
    named = named_gpu(environ)
    if named is not None:
        return named
    return gpu_for_arch(arch if arch is not None else 90)


def compare(model: GpuModel, record: Mapping[str, Any]) -> list[str]:
    """Where a real card's record (``observed()``'s shape) differs from the model, one line per field.

    A field the model leaves None is not compared (the record says what to write there).
    """
    expected = model.observed(int(record.get("device_count") or 1))
    out = []
    for section in ("torch", "triton"):
        seen = record.get(section) or {}
        for key, value in expected[section].items():
            if value is not None and key in seen and seen[key] != value:
                out.append(f"{section}.{key}: the table says {value!r}, the card {seen[key]!r}")
    for key in ("name", "capability"):
        if key in record and record[key] != expected[key]:
            out.append(f"{key}: the table says {expected[key]!r}, the card {record[key]!r}")
    return out


__all__ = [
    "ENV",
    "MODELS",
    "GpuChoice",
    "GpuModel",
    "compare",
    "gpu_for_arch",
    "named_gpu",
    "parse_gpu",
    "stand_in_gpu",
]
