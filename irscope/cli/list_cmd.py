"""``irscope list``: the built-in kernels and what each can be set to."""

from __future__ import annotations

import json

import click

from .output import csv_option, echo


@click.command("list")
@csv_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object per kernel, one a line: name, file, frontend, description and "
    "parameters (NAME: {default, sweep}).",
)
def list_kernels(as_json: bool) -> None:
    """List built-in kernels with their parameters, defaults and sweep ranges."""
    from ..frontends import builtin_kernels

    kernels = builtin_kernels()
    if as_json:  # JSON lines, as sweep --json and bench --json print their rows
        for kernel in kernels:
            parameters = {
                n: {"default": p["default"], "sweep": list(p["sweep"])} for n, p in kernel.parameter_table().items()
            }
            echo(
                json.dumps(
                    {
                        "name": kernel.name,
                        "file": kernel.file,
                        "frontend": kernel.frontend,
                        "description": kernel.description,
                        "parameters": parameters,
                    }
                )
            )
        return
    from rich.table import Table

    from .output import print_table

    table = Table(box=None, pad_edge=False, show_edge=False)
    for column in ("kernel", "parameter", "default", "sweep", "description"):
        table.add_column(column, no_wrap=column in ("kernel", "parameter"), overflow="fold")
    for kernel in kernels:
        first = True
        for name, p in kernel.parameter_table().items():
            sweep = ",".join(str(v) for v in p["sweep"]) if len(p["sweep"]) > 1 else ""
            table.add_row(
                kernel.name if first else "", name, str(p["default"]), sweep, kernel.description if first else ""
            )
            first = False
        table.add_row("", "", "", "", "")
    print_table(table)
