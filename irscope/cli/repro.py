"""``irscope repro``: one standalone Python file that rebuilds a variant with its compiler, without irscope."""

from __future__ import annotations

from pathlib import Path

import click

from .options import kernel_options
from .output import echo


@click.command()
@kernel_options
@click.option(
    "-o",
    "out",
    metavar="FILE.py",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the file here (default: print it).",
)
def repro(kernel, assignments, arch, signature, out, settings) -> None:
    """Write a Python file that rebuilds one variant of KERNEL with its own compiler and prints its PTX.

    KERNEL is usually a session (irscope sweep -o DIR, or a run's runs/NAME/kernels/KERNEL), with
    -c/--arch naming the variant; a kernel file works too (the variant is compiled first). A Triton
    variant's file needs only Triton, a CUDA C++ variant's only nvcc; the facts (signature,
    constexprs, flags, macros, arch, a run's launch) are Python literals in it, and nothing of the
    session's text runs as Python (a Triton def is rebuilt from a bare signature, as irscope rebuilds
    it; a def that reaches past Triton is refused). On a GPU, a run's variant: --launch runs it on
    inputs of the recorded shapes. See docs/repro.md.

    \b
    Examples:
      irscope repro runs/scale -c BLOCK=1024 -c num_warps=4 -o repro.py && python repro.py -o scale.ptx
      irscope repro runs/demo/kernels/relu_sq_kernel -o repro.py && python repro.py --launch
    """
    from ..errors import UsageError
    from ..storage.files import replaceable, write_output
    from .options import open_named, overrides

    if out is not None:
        replaceable(out, UsageError)
    named = open_named(kernel, settings, signature)
    variant = named.variant(overrides(assignments), arch)
    text = repro_text(named, variant)
    if out is None:
        echo(text, nl=False)
        return
    write_output(out, text)
    echo(f"wrote {out}: python {out} prints the PTX of {variant.kernel.name} {variant.config.label()}", err=True)


def repro_text(named, variant) -> str:
    """The file ``irscope repro`` writes for ``variant`` of ``named``, with what its session holds besides."""
    from ..errors import UsageError
    from ..frontends import FRONTENDS, frontend_info
    from ..frontends.info import ReproFacts

    info = frontend_info(variant.frontend) if variant.frontend in FRONTENDS else None
    if info is None or info.reproducer is None:
        shown = info.display_name if info is not None else repr(variant.frontend)
        raise UsageError(f"repro rebuilds Triton and CUDA C++ variants; {variant.kernel.name} is a {shown} kernel")
    session = named.session
    facts = ReproFacts(kernel=named.kernel)
    if session is not None:
        closure = session.rebuild.get("closure")
        facts = ReproFacts(
            signature=session.signature,
            closure=closure if isinstance(closure, dict) else None,
            launches=session.recorded_launches,
        )
    return info.reproducer(variant, facts)
