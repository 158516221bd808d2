"""``irscope inductor``: torch.compile's generated Triton kernels, as irscope variants."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import click

from .options import complete_path
from .output import csv_option, echo


@click.command()
@click.argument("target", required=False, shell_complete=complete_path)
@click.option(
    "--input", "inputs", multiple=True, metavar="DTYPE[DIMS]", help="An example input, e.g. f32[4096,4096]. Repeatable."
)
@click.option(
    "--log",
    "log",
    type=click.Path(dir_okay=False, path_type=Path),
    help="What TORCH_LOGS=output_code printed (prefixes and all), or an output-code .py file.",
)
@click.option(
    "--trace",
    "trace",
    type=click.Path(file_okay=False, path_type=Path),
    help="A TORCH_TRACE folder (what TORCH_TRACE=DIR wrote, tlparse's input): its output-code records.",
)
@click.option("--mode", help="torch.compile mode (default, reduce-overhead, max-autotune, ...).")
@click.option("--arch", metavar="SM", help="Compile the kernels for this arch (default: the one Inductor recorded).")
@click.option(
    "-o",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write one session per kernel and inductor.json into this directory.",
)
@csv_option
@click.option("--json", "as_json", is_flag=True, help="Print the capture as one JSON object.")
def inductor(target, inputs, log, trace, mode, arch, out, as_json) -> None:
    """Capture the Triton kernels torch.compile (Inductor) generates.

    Live, on a GPU: TARGET is path/to/file.py:function, called on --input tensors.
    From a log, anywhere: --log FILE, or --trace DIR for a TORCH_TRACE folder. Each kernel is compiled (ahead of time, for the
    arch its DeviceProperties record) with the launch config Inductor chose, and shows
    its kind, the ATen ops and FX graph it fuses, and every stage; live captures add
    each kernel's time inside the compiled function and the function's time against eager.

    \b
    Examples:
      irscope inductor --log train.log -o runs/inductor
      irscope inductor --trace /tmp/torch_trace -o runs/inductor
      irscope inductor model.py:block --input f32[8,512,768] -o runs/block
      irscope tui runs/inductor                 # every kernel in the TUI
      irscope sweep runs/inductor/triton_poi_fused_pow_0 -s XBLOCK=256,512,1024 -s num_warps=2,4,8
    """
    from ..errors import ExitCode, UsageError
    from ..interop.inductor.capture import InductorCapture, compile_all, plan, write_sessions
    from .progress import Phases

    if sum(x is not None for x in (target, log, trace)) != 1:
        raise UsageError("give one of TARGET (path/to/file.py:function, live on a GPU), --log FILE or --trace DIR")
    if importlib.util.find_spec("torch") is None:  # needed for the launch configs: said before any work is
        raise ModuleNotFoundError("No module named 'torch'", name="torch")
    phases = Phases()  # a cold start spends seconds importing Inductor and minutes compiling: say where it is
    outputs, origin, chosen, timing, per_kernel = _outputs(target, inputs, log, trace, mode, phases)
    with phases.phase("working out each kernel's launch config with Inductor's heuristics") as said:
        kernels = plan(outputs, out, chosen)
        said(f"worked out {_count(len(kernels), 'launch config')} with Inductor's heuristics")
    compiled = compile_all(kernels, arch)
    for ck in phases.counted(compiled, len(kernels), "compiling", lambda n: f"compiled {_count(n, 'kernel')}"):
        if ck.kernel.name in per_kernel:
            ck.runtime_us, ck.calls = per_kernel[ck.kernel.name]
    capture = InductorCapture(kernels, outputs, origin, timing)
    if out is not None:
        write_sessions(capture, out)
    if as_json:
        echo(json.dumps(capture.to_json(), indent=1, default=str))
    else:
        _print(capture)
        if out is not None:
            echo(f"wrote {len(kernels)} kernel sessions and inductor.json to {out}", err=True)
    if any(ck.variant is None or not ck.variant.ok for ck in kernels):
        raise SystemExit(int(ExitCode.FAILURE))  # a kernel did not compile: the table says which


def _found(outputs) -> str:
    return f"{_count(len(outputs), 'graph')}, {_count(sum(len(o.kernels) for o in outputs), 'Triton kernel')}"


def _outputs(target, inputs, log, trace, mode, phases):
    """The output code to capture, from a TORCH_TRACE folder, a log or a live run, with where it came from; a live
    run also gives the configs Inductor's autotuner chose and the times it measured (empty otherwise)."""
    from ..errors import UsageError

    chosen: dict[str, Any] = {}
    timing: dict[str, Any] = {}
    per_kernel: dict[str, Any] = {}
    if trace is not None:
        from ..interop.inductor.trace import read_trace

        if not trace.is_dir():
            raise UsageError(f"no such TORCH_TRACE folder: {trace}")
        with phases.phase(f"reading the TORCH_TRACE folder {trace}") as said:
            read = read_trace(trace)
            said(f"read {_count(len(read.files), 'trace file')} in {trace}: {_found(read.outputs)}")
        for line in read.skipped:
            echo(f"irscope: skipped {line}", err=True)
        outputs = read.outputs
        origin = {"trace": str(trace), "files": read.files}
    elif log is not None:
        from ..interop.inductor.parse import parse_log

        if not log.is_file():
            raise UsageError(f"no such log file: {log}")
        with phases.phase(f"reading {log}") as said:
            outputs = parse_log(log.read_text(encoding="utf-8", errors="replace"))
            said(f"read {log}: {_found(outputs)}")
        origin = {"log": str(log)}
    else:
        from ..interop.inductor.live import capture_live, load_function, make_inputs, parse_input, require_gpu

        if not inputs:
            raise UsageError("a live capture needs example inputs: --input f32[4096,4096] (one per argument)")
        for spec in inputs:  # a typo should not cost a compile
            parse_input(spec)
        fn = load_function(target)
        require_gpu()
        with phases.phase(f"running {target} under torch.compile") as said:
            outputs, chosen, timing, per_kernel = capture_live(fn, make_inputs(inputs), mode=mode)
            said(f"ran {target} under torch.compile: {_found(outputs)}")
        origin = {"function": target, "inputs": list(inputs), "mode": mode}
        if not any(o.kernels for o in outputs):
            raise UsageError("torch.compile generated no Triton kernels for this function (only extern calls?)")
    return outputs, origin, chosen, timing, per_kernel


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'' if n == 1 else 's'}"


def _print(capture) -> None:
    from rich.table import Table

    from ..records import Facts
    from ..session.store import variant_facts
    from ..session.table import text
    from .output import print_table

    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in (
        "kernel",
        "kind",
        "fuses (ATen)",
        "launch config",
        "chosen by",
        "regs",
        "spill B",
        "shared B",
        "ld/st B",
        "ptx lines",
        "us/call",
        "calls",
    ):
        numeric = column in ("regs", "spill B", "shared B", "ptx lines", "us/call", "calls")
        table.add_column(
            column,
            justify="right" if numeric else "left",
            no_wrap=column not in ("fuses (ATen)", "chosen by"),
            overflow="fold",
        )
    for ck in capture.kernels:
        v = ck.variant
        facts = variant_facts(v) if v is not None else Facts()
        table.add_row(
            ck.kernel.name,
            ck.kernel.kind,
            ", ".join(a.removeprefix("aten.") for a in ck.kernel.aten_ops),
            ck.chosen.label(),
            ck.chosen_by,
            text(facts.registers),
            text(facts.spills),
            text(facts.shared),
            text(facts.ldst),
            text(facts.ptx_lines),
            text(ck.runtime_us),
            text(ck.calls),
            style=None if v is None or v.ok else "red",
        )
    console = print_table(table)
    for output in capture.outputs:
        for call in output.extern_calls:
            console.print(f"  extern (not Triton) in graph {output.graph}: {call}", style="grey50")
    t = capture.timing
    if t.get("compiled_us"):
        console.print(
            f"whole function on {t['device']}: eager {t['eager_us']:.1f} us, compiled {t['compiled_us']:.1f} us "
            f"({t['speedup']:.2f}x)"
        )
