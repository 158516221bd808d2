"""A run's Helion kernels: the Triton compiles of Helion's generated modules, told apart and named by Helion.

Triton's recorder sees a Helion kernel's launch as any Triton kernel's: ``_helion_<name>`` of a module in
PyTorch's code cache. Helion's recorder (frontends/helion/listen.py) wrote, per config the program
compiled, the Helion kernel, its config and that module's path; here each compile of such a module
becomes a variant of its Helion kernel (one kernel per Helion function and arguments, its configs
Helion's), and its session is a Helion session as ``irscope dump FILE:NAME -S ... -c ...`` makes one:
the Helion file its source, the generated module its ``helion_triton`` stage, then the JIT's own
stages, every one mapped through the module's ``# src[file:line]`` comments to the Helion lines. The
session keeps what the program compiled: new configs compile from the Helion file, named by the user
(a run's data never imports it).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...frontends.helion.recorded import HelionRecorded
from ...frontends.triton.recorded import compiled_of
from ...session import Session
from ...types import KernelId

if TYPE_CHECKING:
    from .collect import RunKernel


def helion_kernels(kernels: list[RunKernel], recorded: list[HelionRecorded]) -> list[RunKernel]:
    """``kernels`` with those compiled from a recorded Helion module made into Helion kernels, in their place."""
    by_module: dict[str, HelionRecorded] = {}
    for record in recorded:
        by_module.setdefault(record.module, record)  # two configs Helion wrote the same module for: one compile
    out: list[RunKernel] = []
    made: dict[tuple[str, str, str], RunKernel] = {}
    for kernel in kernels:
        helion = by_module.get(kernel.file)
        if helion is None or kernel.inductor:
            out.append(kernel)
            continue
        key = (helion.file, helion.kernel, helion.arguments)
        variants = [replace(v, config=helion.config(), helion=helion) for v in kernel.variants]
        if key in made:
            made[key].variants.extend(variants)
            continue
        made[key] = replace(kernel, name=helion.kernel, file=helion.file, variants=variants, why=None)
        out.append(made[key])
    return out


def identity(helion: HelionRecorded) -> KernelId:
    """The kernel's identity as ``irscope dump`` of the same file and ``-S`` gives it (helion/kernel.py)."""
    text = helion.source + "\0" + helion.arguments
    return KernelId(helion.kernel, helion.file, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())


def write_helion_session(folder: Path, kernel: RunKernel) -> None:
    """The Helion kernel's session at ``folder``: one variant per config, each what the program compiled."""
    from ...capturing import build_variant, derive
    from ...frontends.helion.kernel import HelionKernel
    from ...frontends.helion.stages import HELION_TRITON

    first: HelionRecorded = kernel.variants[0].helion
    kernel_id = identity(first)
    session = Session.create(folder, kernel_id, first.source, _table(kernel), None, frontend="helion")
    batch = []
    for i, v in enumerate(kernel.variants):
        compiled = compiled_of(v.record)
        compiled.stages = {HELION_TRITON: v.helion.generated, **compiled.stages}  # the module Helion generated
        made = (kernel_id, v.config, v.record.target, compiled, first.source, HelionKernel.stages)
        batch.append((i, build_variant(*made, "helion", "helion")))
    for i, variant in derive(batch):
        kernel.variants[i].entry = session.add(variant).id


def _table(kernel: RunKernel) -> dict[str, dict[str, Any]]:
    """Every field of the recorded configs, as text (kind ``option``, as a Helion kernel's own table); with
    several configs, each field's column: the sweep is exactly those."""
    configs = [v.config.options for v in kernel.variants]
    table: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(n for c in configs for n in c):
        column = [c.get(name, "") for c in configs]
        entry: dict[str, Any] = {"default": column[0], "sweep": list(dict.fromkeys(column)), "kind": "option"}
        if len(configs) > 1:
            entry["configs"] = column
        table[name] = entry
    return table
