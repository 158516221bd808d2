"""``irscope dump``: every stage of one variant, as text, JSON or files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from ..arch import is_amd
from .options import STAGE_CHOICES, kernel_options
from .output import echo, visible

# What a CUDA kernel's name may hold beyond a file name's letters: scale<float, 4>, (anonymous namespace)
CXX_PUNCTUATION = re.compile(r"[<>,\s*&()\[\]]+")


@click.command()
@kernel_options
@click.option(
    "--stage",
    "stage_name",
    type=click.Choice([*STAGE_CHOICES, "all"]),
    default="ptx",
    show_default=True,
    help="Which stage to print.",
)
@click.option("--source", is_flag=True, help="Interleave the kernel's source lines as comments.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: metadata, listing(s), source map.")
@click.option(
    "-o",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write one file per stage plus the metadata into this directory.",
)
@click.option("--no-cache", is_flag=True, help="Compile even if this variant is cached.")
def dump(kernel, assignments, arch, signature, stage_name, source, as_json, out_dir, no_cache, settings) -> None:
    """Compile KERNEL for one configuration and print a stage of it.

    KERNEL may also be a session directory or a tritonparse trace (trace.ndjson[.gz|.zst][:kernel]):
    the variant is then read from it.

    \b
    Examples:
      irscope dump square_kernel -c BLOCK_SIZE=1024 -c num_warps=8
      irscope dump square_kernel --stage sass --source
      irscope dump add_kernel -c offset=1 --stage ptx      # misaligned: no ld.global.v4
      irscope dump my_kernels.py:my_kernel -S "*fp32:16, *fp32:16, i32, 256"
    """
    from ..errors import CompileFailed
    from ..types import Stage
    from .options import open_named, overrides

    named = open_named(kernel, settings, signature)
    variant = named.variant(overrides(assignments), arch, use_cache=not no_cache)
    config = variant.config
    stages = (
        [
            s
            for s in Stage.compiled()
            if (s in variant.listings or s in variant.stage_errors) and variant.made_for_vendor(s)
        ]
        if stage_name == "all"
        else [Stage(stage_name)]
    )
    if out_dir is not None:
        _write_dir(out_dir, variant)
    if not variant.ok:  # one line, as docs/bad-input.md shows: the error names the kernel and config itself
        raise CompileFailed(f"{named.name} {config.label()}: failed at {variant.error}")
    echo(_summary(variant), err=True)
    if as_json:
        echo(json.dumps(_as_json(variant, stages), indent=1))
        return
    if out_dir is not None and stage_name == "all":
        return
    for stage in stages:
        if stage not in variant.listings:
            echo(
                f"irscope: warning: {stage.value} unavailable: {visible(variant.missing_reason(stage), one_line=True)}",
                err=True,
            )
            continue
        if len(stages) > 1:
            echo(f"// ===== {stage.value} =====")
        if source:
            from ..ir.interleave import interleave_source

            echo(interleave_source(variant, stage), nl=False)
        else:
            echo(variant.listings[stage], nl=not variant.listings[stage].endswith("\n"))


def _summary(variant) -> str:
    """One line: the kernel (a template named bare: the instantiation nvcc made of it), its config (what its
    heuristics set, its example sizes), the arch, what it asks of the GPU."""
    info = variant.compile_info
    function = info.options.get("function") if info else None
    derived = " ".join(f"{k}={v}" for k, v in (info.heuristics if info else {}).items())
    sizes = " ".join(f"{k}={v}" for k, v in variant.config.sizes.items() if v is not None)
    parts = [
        f"{variant.kernel.name} ({function})" if function else variant.kernel.name,
        variant.config.label(),
        derived and f"heuristics: {derived}",
        sizes and f"with {sizes}",
        variant.arch,
    ]
    if variant.compile_info:
        parts[-1] += f" ({variant.compile_info.mode.value})"
    r = variant.resources
    if r is not None and r.sgprs is not None:  # an AMD kernel's, from its HSACO's metadata
        spills = (r.vgpr_spills or 0) + (r.sgpr_spills or 0)
        parts += [f"{r.registers} VGPRs ({r.agprs} AGPRs)", f"{r.sgprs} SGPRs", f"{spills} registers spilled"]
        parts += [f"{r.scratch} B scratch", f"{r.shared} B LDS"]
    elif r is not None and r.registers is None and is_amd(variant.arch):  # no code object (TileLang without hipcc)
        parts.append(f"{r.shared} B LDS")
    elif r is not None:
        # unknown where no ptxas report was asked for (a CuTe DSL or TileLang compile): not 0
        known = r.spill_stores is not None or r.spill_loads is not None
        spilled = f"{(r.spill_stores or 0) + (r.spill_loads or 0)} B spilled" if known else "spills unknown"
        parts += [f"{r.registers} registers", spilled, f"{r.shared} B shared"]
        if r.cluster:  # a cluster launch: its x, y, z CTAs
            parts.append(f"cluster {r.cluster}")
    if variant.compile_info:
        parts.append(f"compiled in {variant.compile_info.compile_seconds:.2f} s")
    return " · ".join(p for p in parts if p)


def _as_json(variant, stages) -> dict:
    from ..ir.sourcemap import SourceMap
    from ..storage.variants import variant_to_json

    source_map = SourceMap(variant)
    data = variant_to_json(variant)
    data.pop("format")
    data["listings"] = {s.value: variant.listings[s] for s in stages if s in variant.listings}
    data["source_map"] = {
        s.value: [source_map.source_line(s, i) for i in range(len(variant.listings[s].splitlines()))]
        for s in stages
        if s in variant.listings
    }
    return data


def _write_dir(out_dir: Path, variant) -> None:
    from ..errors import UsageError
    from ..storage.files import replaceable, safe_name, write_output
    from ..storage.variants import variant_to_json

    # from a session's data: a file name in out_dir, no more; a C++ kernel's punctuation spelled out first
    # (v1::norm -> v1__norm.ptx, scale<__half> -> scale___half_.ptx), anything else refused as it stands
    name = safe_name(CXX_PUNCTUATION.sub("_", variant.kernel.name.replace("::", "__")), "kernel name")
    files: dict[Path, str | bytes] = {
        out_dir / f"{name}.{stage.spec.file_extension(variant.kernel.file)}": text
        for stage, text in variant.listings.items()
    }
    if variant.cubin is not None:
        files[out_dir / f"{name}.{variant.binary_name}"] = variant.cubin
    files[out_dir / f"{name}.json"] = json.dumps(variant_to_json(variant), indent=1)
    for path in files:  # every path checked before the first is written: a refusal leaves the folder as it was
        replaceable(path, UsageError)
    for path, data in files.items():
        write_output(path, data)
    echo(f"wrote {len(variant.listings) + 1} files to {out_dir}", err=True)
