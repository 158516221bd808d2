"""``irscope list``: the built-in kernels and what each can be set to."""

from __future__ import annotations

import json

import click


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per kernel.")
def list_kernels(as_json: bool) -> None:
    """List built-in kernels with their parameters, defaults and sweep ranges."""
    from ..kernel import builtin_kernels

    refs = builtin_kernels()
    if as_json:
        out = []
        for ref in refs:
            params = ref.spec.parameters()
            out.append({
                "name": ref.name, "file": ref.file, "description": ref.spec.description,
                "parameters": {n: {"default": t.default, "sweep": list(t.values())} for n, t in params.items()},
            })
        click.echo(json.dumps(out, indent=1))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, pad_edge=False, show_edge=False)
    for column in ("kernel", "parameter", "default", "sweep", "description"):
        table.add_column(column, overflow="fold")
    for ref in refs:
        spec = ref.spec
        first = True
        for name, tunable in spec.parameters().items():
            sweep = ",".join(str(v) for v in tunable.values()) if tunable.sweep else ""
            table.add_row(ref.name if first else "", name, str(tunable.default), sweep,
                          spec.description if first else "")
            first = False
        table.add_row("", "", "", "", "")
    Console(width=max(100, Console().width)).print(table)
