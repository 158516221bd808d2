"""``irscope annotate``: every PTX or SASS line explained, tied to its Python line, with findings."""

from __future__ import annotations

import json

import click

from ..paths import shown_file
from .options import EXPLAINED_STAGES, kernel_options
from .output import echo


@click.command()
@kernel_options
@click.option("--stage", "stage_name", type=click.Choice(EXPLAINED_STAGES), default="ptx", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: findings and every line decoded.")
@click.option("--findings", "findings_only", is_flag=True, help="Print the findings only.")
def annotate(kernel, assignments, arch, signature, stage_name, as_json, findings_only, settings) -> None:
    """Explain every instruction of KERNEL's PTX, SASS or (for a gfx arch) AMDGCN in plain words.

    Each line comes with the Python line it came from and the instruction decoded
    in full: opcode, each modifier, operands, predicate guards, immediates (with
    float bit patterns decoded) and directives. Findings about the kernel come first.

    \b
    Examples:
      irscope annotate square_kernel
      irscope annotate add_kernel -c offset=1 --findings
      irscope annotate matmul_kernel --stage sass --json
      irscope annotate matmul_kernel --arch gfx942 --stage amdgcn --findings
    """
    from ..annotating import annotate as run_annotate
    from ..errors import CompileFailed
    from ..types import Stage
    from .options import open_named, overrides

    named = open_named(kernel, settings, signature)
    variant = named.variant(overrides(assignments), arch)
    stage = Stage(stage_name)
    if stage not in variant.listings:
        raise CompileFailed(
            f"{named.name} {variant.config.label()}: no {stage.value} to annotate: "
            f"{variant.stage_errors.get(stage) or variant.error}"
        )
    result = run_annotate(variant, stage)
    gluon = _gluon_banks(variant)
    if as_json:
        echo(json.dumps({**_as_json(result), **({"gluon_bank_conflicts": gluon} if gluon else {})}, indent=1))
        return
    title = f"{variant.kernel.name} {variant.config.label()} · {variant.arch}"
    echo(f"findings for {title}")
    banks_shown = False
    for f in result.findings:
        mark = "!" if f.severity == "warn" else "·"
        echo(f"  {mark} {f.title}")
        echo(_wrap(f.detail, "      "))
        if f.lines:
            shown = ", ".join(str(i + 1) for i in f.lines[:12]) + (" ..." if len(f.lines) > 12 else "")
            echo(f"      {stage.value} lines {shown}")
        if f.kind == "bank-conflicts" and gluon:  # Gluon's own answer beside irscope's
            _echo_gluon(gluon)
            banks_shown = True
    if gluon and not banks_shown:
        echo("  · shared-memory bank conflicts as Gluon counts them (no access irscope proved)")
        _echo_gluon(gluon)
    if findings_only:
        return
    echo("")
    python = variant.listings.get(Stage.SOURCE, "").splitlines()
    name = shown_file(variant.kernel.file)
    last = None
    for line in result.lines:
        e = line.explanation
        if line.python_line and line.python_line != last and 0 < line.python_line <= len(python):
            echo(f"      // {name}:{line.python_line}: {python[line.python_line - 1].strip()}")
            last = line.python_line
        echo(f"{line.index + 1:5} {line.text.rstrip()}")
        if e.kind in ("instruction", "directive") and e.summary:
            echo(_wrap(e.describe(), "        = "))


def _gluon_banks(variant) -> list[dict]:
    """The language's own bank-conflict count for each shared-memory move of the variant (``FrontendInfo.
    bank_conflicts``: Gluon's ``bank_conflicts``, frontends/gluon/banks.py); empty where its language has none."""
    from ..frontends import FRONTENDS, frontend_info

    info = frontend_info(variant.frontend) if variant.frontend in FRONTENDS else None
    return info.bank_conflicts(variant) if info is not None and info.bank_conflicts is not None else []


def _echo_gluon(answers: list[dict]) -> None:
    for a in answers:
        rows, cols = a["shape"]
        said = "no conflict" if a["conflicts"] == 0 else f"{a['conflicts']} excess accesses a wavefront"
        echo(
            _wrap(
                f"Gluon's bank_conflicts({a['register']}, {a['shared']}) for {rows}x{cols} {a['dtype']}: {said} "
                f"(Gluon's N excess is irscope's N+1-way)",
                "      ",
            )
        )


def _wrap(text: str, prefix: str, width: int = 120) -> str:
    import textwrap

    return textwrap.fill(text, width=width, initial_indent=prefix, subsequent_indent=" " * len(prefix))


def _as_json(result) -> dict:
    v = result.variant
    return {
        "kernel": v.kernel.name,
        "config": v.config.to_json(),
        "arch": v.arch,
        "stage": result.stage.value,
        "findings": [
            {
                "kind": f.kind,
                "severity": f.severity,
                "title": f.title,
                "detail": f.detail,
                "lines": [i + 1 for i in f.lines],
            }
            for f in result.findings
        ],
        "lines": [
            {
                "line": line.index + 1,
                "text": line.text,
                "python_line": line.python_line,
                "kind": line.explanation.kind,
                "summary": line.explanation.summary,
                "known": line.explanation.known,
                "category": line.explanation.category,
                "detail": line.explanation.detail,
                "parts": [
                    {"token": p.token, "role": p.role, "text": p.text, "section": p.section}
                    for p in line.explanation.parts
                ],
                **({"control": line.explanation.control.to_json()} if line.explanation.control else {}),
            }
            for line in result.lines
        ],
    }
