"""``irscope diff``: what changed in the IR between two variants, and in numbers."""

from __future__ import annotations

import json

import click

from .options import STAGE_CHOICES, check_arch, complete_path, sample_gpu_option
from .output import echo


@click.command()
@click.argument("kernel", shell_complete=complete_path)
@sample_gpu_option
@click.option(
    "-a",
    "a_values",
    multiple=True,
    metavar="NAME=VALUE[,...]",
    help="Variant A: parameters, and optionally arch=SM, session=DIR or kernel=NAME (another kernel, in any "
    "language) and signature=TYPES (its -S). Repeatable, or comma-separated as passes -a takes them.",
)
@click.option("-b", "b_values", multiple=True, metavar="NAME=VALUE[,...]", help="Variant B, likewise.")
@click.option("-c", "common", multiple=True, metavar="NAME=VALUE[,...]", help="Set for both A and B.")
@click.option(
    "--arch", metavar="SM", callback=check_arch, help="Compile both for this arch (unless -a/-b arch= says otherwise)."
)
@click.option("--signature", "-S", metavar="TYPES", help="Argument types for a kernel without a KernelSpec.")
@click.option(
    "--stage",
    "stage_name",
    type=click.Choice(STAGE_CHOICES),
    help="The stage to diff [default: ptx; amdgcn for two AMD builds; ttgir for an NVIDIA and an AMD arch, which "
    "share no machine code; where one lacks it, the deepest stage both have].",
)
@click.option("--raw", is_flag=True, help="Diff the listings as they are, without normalising.")
@click.option(
    "--ignore",
    "ignore",
    metavar="CLASSES",
    help="Noise to leave out, comma-separated: registers (names compare by class only), immediates "
    "(numbers compare as #), order (instructions within a basic block compare as a set).",
)
@click.option("--side-by-side", "-y", "side_by_side", is_flag=True, help="Two columns instead of a unified diff.")
@click.option(
    "--context",
    "-U",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Unchanged lines around each change.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def diff(
    kernel,
    a_values,
    b_values,
    common,
    arch,
    signature,
    stage_name,
    raw,
    ignore,
    side_by_side,
    context,
    as_json,
    settings,
) -> None:
    """Diff one stage of two variants of KERNEL (a kernel or a session directory).

    Listings are normalised (locations and debug info dropped, SSA values, registers
    and labels renumbered) so only real changes show; a structural summary comes first.

    \b
    Examples:
      irscope diff square_kernel -a BLOCK_SIZE=128 -b BLOCK_SIZE=1024 -c n_cols=1024
      irscope diff matmul_kernel -a arch=sm_80 -b arch=sm_90 --stage ttgir
      irscope diff matmul_kernel -a arch=sm_90 -b arch=gfx942      # each vendor's code per Python line
      irscope diff runs/square -a num_warps=4 -b num_warps=8 --side-by-side
      irscope diff square_kernel -a session=runs/square -a BLOCK_SIZE=128 -b BLOCK_SIZE=128
      irscope diff square_kernel -a kernel=runs/inductor/triton_poi_fused_pow_0 -b BLOCK_SIZE=1024
      irscope diff examples/row_sum.py:row_sum_kernel -b kernel=examples/cute_kernels.py:row_sum \\
          -b "signature=float32[4096,1024]:16, float32[4096]"     # its CuTe DSL twin, per source line
    """
    from ..diffing import diff_variants
    from ..diffing.render import side_by_side_lines, to_json, unified_lines
    from ..diffing.summary import summary_lines
    from ..errors import UsageError
    from ..types import Stage
    from .options import open_named, overrides

    shared = overrides(common)
    sides = []
    for values in (a_values, b_values):
        given = overrides(values)
        side_arch = given.pop("arch", arch)
        side_signature = given.pop("signature", signature)  # a twin in another language takes its own
        source = given.pop("session", None) or given.pop("kernel", None) or kernel
        named = open_named(source, settings, side_signature)
        variant = named.variant({**shared, **given} if source == kernel else given, side_arch)
        sides.append((named, variant))
    (ta, a), (tb, b) = sides
    # NVIDIA's and AMD's builds meet at TTGIR (#nvidia_mma vs #amd_mfma); their machine code is compared
    # per Python line in the summary instead
    stage = Stage(
        stage_name or ("ttgir" if a.vendor is not b.vendor else "ptx" if a.vendor.value == "nvidia" else "amdgcn")
    )
    if stage_name is None and not (stage in a.listings and stage in b.listings):
        # no such stage in one of them (TileLang's gfx942 builds without hipcc: no AMDGCN): the deepest both have
        both = [s for s in Stage.compiled() if s in a.listings and s in b.listings]
        stage = both[-1] if both else stage
    for label, (_, v) in zip("AB", sides):
        if not v.ok and stage not in v.listings:
            raise UsageError(f"variant {label} ({v.config.label()}) did not compile: {v.error}")
    for label, v in (("A", a), ("B", b)):
        if stage not in v.listings:
            raise UsageError(f"{stage.value} of variant {label} was not captured: {v.missing_reason(stage)}")
    result = diff_variants(a, b, stage, raw=raw, ignore=_ignored(ignore))
    result.runtimes = (_runtime(ta, a, settings.sample_gpu), _runtime(tb, b, settings.sample_gpu))
    if as_json:
        echo(json.dumps(to_json(result), indent=1))
        return
    echo("\n".join(summary_lines(result)))
    echo("")
    if not result.changed:
        echo(f"no differences in {stage.value} ({'raw' if raw else 'normalised'})")
        return
    width = 160  # side by side: each side's lines cut to fit half of it
    lines = side_by_side_lines(result, max(width, 120), context) if side_by_side else unified_lines(result, context)
    echo("\n".join(lines))


def _runtime(named, variant, sample_gpu):
    """The runtime ``variant`` shows: measured into its session, else its sample (``sample_gpu``'s), if either has one."""
    from ..measure.runtimes import shown_measurement
    from ..records import Runtime, code_hash
    from ..types import Stage

    entry = named.session.find(variant.config, variant.arch) if named.session is not None else None
    ptx = variant.listings.get(Stage.PTX)
    ptx_sha256 = None if ptx is None else code_hash(ptx)
    return Runtime.of(shown_measurement(variant.kernel, variant.config, variant.arch, entry, sample_gpu, ptx_sha256))


def _ignored(text: str | None) -> tuple[str, ...]:
    from ..diffing.canonical import IGNORABLE
    from ..errors import UsageError

    names = tuple(n.strip() for n in (text or "").split(",") if n.strip())
    unknown = [n for n in names if n not in IGNORABLE]
    if unknown:
        raise UsageError(f"--ignore {unknown[0]!r} is not a noise class irscope knows; known: {', '.join(IGNORABLE)}")
    return names
