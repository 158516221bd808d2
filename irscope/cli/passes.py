"""``irscope passes``: every compiler pass of one variant (Triton's MLIR, TileLang's TIR), and the first pass where two
configs part."""

from __future__ import annotations

import json

import click

from ..ir.passes import ops_text
from ..types import plural
from .options import check_arch, complete_path
from .output import echo


@click.command()
@click.argument("kernel", shell_complete=complete_path)
@click.option(
    "-c", "assignments", multiple=True, metavar="NAME=VALUE", help="Set a parameter (both sides). Repeatable."
)
@click.option("--arch", metavar="SM", callback=check_arch, help="Compile ahead of time for this arch (default sm_90).")
@click.option("--signature", "-S", metavar="TYPES", help="Argument types for a kernel without a KernelSpec.")
@click.option(
    "--after",
    "after",
    metavar="NAME|N",
    help="Print the IR after this pass (index, name or argument; name#2 for its second run).",
)
@click.option(
    "--diff",
    "diff_index",
    metavar="N|NAME",
    help="Print the normalised diff of this pass: its IR before against its IR after.",
)
@click.option(
    "--first-divergence",
    "divergence",
    is_flag=True,
    help="Compile -a and -b and name the first pass after which their IR differs beyond the configs' own constants.",
)
@click.option("-a", "a_values", multiple=True, metavar="CONFIG", help="Config A: NAME=VALUE[,NAME=VALUE]. Repeatable.")
@click.option("-b", "b_values", multiple=True, metavar="CONFIG", help="Config B, likewise.")
@click.option(
    "--context",
    "-U",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Unchanged lines around each change.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the pipeline as one JSON object.")
def passes(
    kernel, assignments, arch, signature, after, diff_index, divergence, a_values, b_values, context, as_json
) -> None:
    """Every compiler pass Triton (MLIR) or TileLang (TIR) runs on KERNEL (a kernel or a session swept with --passes).

    KERNEL may also be a file holding a program's MLIR_ENABLE_DUMP=1 output (its stderr):
    LOG:N names its Nth compile (or LOG:KERNEL a kernel's only one).

    The table lists the passes in pipeline order with their stage (ttir, ttgir, llir),
    the normalised lines each removed and added, and the operations it removed (-) and
    added (+); a blank row left the IR as it was. Compiled ahead of time, Triton's cache
    bypassed, from Triton's own pass dumps (MLIR_ENABLE_DUMP). A TileLang kernel's TIR passes
    come from TileLang's own pass instrumentation (what TL_LOWER_TRACE shows), in the
    order they started; a pass nested in another names it as its scope.

    \b
    Examples:
      irscope passes square_kernel -c BLOCK_SIZE=1024
      irscope passes square_kernel --after tritongpu-coalesce
      irscope passes square_kernel --diff 11
      irscope passes square_kernel --first-divergence -a BLOCK_SIZE=128 -b BLOCK_SIZE=1024
      irscope passes mlir.log:2 --after tritongpu-coalesce
    """
    from ..errors import UsageError
    from .options import open_named, overrides

    chosen = [
        name for name, on in (("--after", after), ("--diff", diff_index), ("--first-divergence", divergence)) if on
    ]
    if len(chosen) > 1:
        raise UsageError(f"{' and '.join(chosen)} do not go together: pick one")
    if (a_values or b_values) and not divergence:
        raise UsageError("-a/-b name the two configs of --first-divergence")
    logged = _logged(kernel)
    if logged is not None:  # a program's MLIR_ENABLE_DUMP output: one compile's passes, as it printed them
        if assignments or divergence or arch or signature:
            raise UsageError("a pass dump's compile is named as LOG:N; -c, --arch, -S and --first-divergence compile")
        log, title, about = logged
    else:
        named = open_named(kernel, signature=signature)
        shared = overrides(assignments)
        if divergence:
            if not a_values or not b_values:
                raise UsageError("--first-divergence needs both -a CONFIG and -b CONFIG")
            sides = [
                named.variant({**shared, **overrides(values)}, arch, passes=True) for values in (a_values, b_values)
            ]
            _print_divergence(sides[0], sides[1], context, as_json)
            return
        variant = named.variant(shared, arch, passes=True)
        log, title = _log_of(variant), variant_title(variant)
        about = {"kernel": variant.kernel.name, "config": variant.config.to_json(), "arch": variant.arch}
    _print_log(log, title, about, after, diff_index, context, as_json)


def _logged(kernel: str):
    """``(PassLog, title, what --json says of it)`` where KERNEL names an MLIR_ENABLE_DUMP output file (``LOG[:N]``), else None."""
    from ..interop.mlir_log import choose, is_mlir_log, read_log, split_argument

    path, which = split_argument(kernel)
    if not is_mlir_log(str(path)):
        return None
    compiles = read_log(path)
    chosen = choose(compiles, which, path)
    echo(
        f"irscope: {path.name}: {chosen.label()} of {len(compiles)}; its last pass, {chosen.dropped}, is not "
        "shown (MLIR prints the IR before each pass: none follows the last)",
        err=True,
    )
    about = {"kernel": chosen.kernel, "log": str(path), "compile": chosen.index, "last_pass_not_shown": chosen.dropped}
    return chosen.log, f"{chosen.kernel} · {path.name} compile {chosen.index}", about


def _print_log(log, title: str, about: dict, after, diff_index, context: int, as_json: bool) -> None:
    if after is not None:
        from ..ir.passes import ir_after

        step = _find(log, after)
        echo(f"{title} · IR after pass {step.index} {step.name} ({step.arg})", err=True)
        echo(ir_after(log, step.index), nl=False)
        return
    if diff_index is not None:
        from ..diffing.passes import pass_hunks
        from ..diffing.render import unified_hunks

        step = _find(log, diff_index)
        if not step.changed:
            echo(f"pass {step.index} {step.name} ({step.arg}) left the IR as it was")
            return
        lines, _ = unified_hunks(
            pass_hunks(log, step.index),
            f"before {step.index} {step.arg} (normalised)",
            f"after {step.index} {step.arg} (normalised)",
            context,
            with_spans=False,
        )
        echo("\n".join(lines))
        return
    if as_json:
        echo(
            json.dumps(
                {**about, "passes": [_row_json(s) for s in log.steps]},
                indent=1,
            )
        )
        return
    echo(
        f"{title} · {plural(len(log.steps), 'pass', 'passes')}, {sum(s.changed for s in log.steps)} changed the IR",
        err=True,
    )
    echo("\n".join(table_lines(log)))


def variant_title(v) -> str:
    from ..diffing.summary import variant_title as title

    return title(v)


def table_lines(log) -> list[str]:
    """The pipeline as a table, a rule at each stage boundary."""
    width = max([6, *(len(s.stage.value) for s in log.steps)])  # ttgir; TileLang's tilelang_device_tir: 19
    out = [f"{'#':>3}  {'pass':<58} {'stage':<{width}} {'lines -/+':>10}  ops"]
    stage = None
    for s in log.steps:
        if s.stage != stage:
            stage = s.stage
            out.append(f"{'':>3}  ── {stage.value} " + "─" * 50)
        name = f"{s.name} ({s.arg})" + (f" in {s.scope}" if s.scope else "")
        lines = f"{s.lines_removed}/{s.lines_added}" if s.changed else ""
        out.append(f"{s.index:>3}  {name[:58]:<58} {s.stage.value:<{width}} {lines:>10}  {ops_text(s)}")
    return out


def _row_json(s) -> dict:
    return {
        "index": s.index,
        "name": s.name,
        "arg": s.arg,
        "stage": s.stage.value,
        "scope": s.scope,
        "changed": s.changed,
        "lines_removed": s.lines_removed,
        "lines_added": s.lines_added,
        "ops_removed": dict(s.ops_removed),
        "ops_added": dict(s.ops_added),
    }


def _log_of(variant):
    from ..errors import CompileFailed

    if variant.passes is None or not variant.passes.steps:
        why = f": {variant.error}" if variant.error else ""
        raise CompileFailed(f"{variant.kernel.name} {variant.config.label()} recorded no passes{why}")
    return variant.passes


def _find(log, which: str):
    from ..errors import UsageError
    from ..ir.passes import find_pass

    try:
        return find_pass(log, which)
    except LookupError as exc:
        raise UsageError(str(exc)) from None


def _print_divergence(a, b, context: int, as_json: bool) -> None:
    from ..diffing.passes import first_divergence
    from ..diffing.render import unified_hunks

    found = first_divergence(_log_of(a), _log_of(b))
    step = found.step_a
    if as_json:
        echo(
            json.dumps(
                {
                    "a": a.config.to_json(),
                    "b": b.config.to_json(),
                    "index": found.index,
                    "pass": None if step is None else {"name": step.name, "arg": step.arg, "stage": step.stage.value},
                    "reason": found.reason,
                },
                indent=1,
            )
        )
        return
    echo(f"A  {variant_title(a)}\nB  {variant_title(b)}")
    if found.index is None:
        echo(found.reason)
        return
    where = (
        f"pass {found.index} {step.name} ({step.arg}), stage {step.stage.value}" if step else "before the first pass"
    )
    echo(f"first divergence: {where}: {found.reason}")
    if found.between:
        lines, _ = unified_hunks(
            list(found.between),
            f"A after {found.index} (normalised, config constants as #)",
            f"B after {found.index} (normalised, config constants as #)",
            context,
            with_spans=False,
        )
        echo("\n" + "\n".join(lines))
    for label, v, own in (("A", a, found.own_a), ("B", b, found.own_b)):
        if step is None:
            break
        echo(f"\nwhat {step.arg} did in {label} ({v.config.label()}):")
        if not any(h.tag != "equal" for h in own):
            echo("  nothing: it left the IR as it was")
            continue
        lines, _ = unified_hunks(
            list(own), f"{label} before {found.index}", f"{label} after {found.index}", context, with_spans=False
        )
        echo("\n".join(lines))
