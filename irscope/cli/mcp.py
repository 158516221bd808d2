"""``irscope mcp``: a Model Context Protocol server over stdio (the official Python SDK, ``irscope[mcp]``).

A coding agent calls the same work the commands do: ``capture``, ``dump``, ``sweep``, ``diff``,
``annotate`` (findings) and ``repro``; ``passes`` (the pipeline, or the first divergence), ``compare``,
``check`` and ``bench`` run the command itself in this process with ``--json`` (one at a time: click's
streams are swapped for each), so their checks and one-line errors are the CLI's. Every path an argument
names must resolve, links followed, inside ``--root`` (``Folders``; default: the working directory). The rules are the CLI's: KERNEL is what ``dump`` takes (a kernel file named is code and is
imported, a session is data and never runs), a wrong input is one line (the tool's error), and every
text a tool returns is cut at ``MAX_CHARS`` with a line saying so, so a 50,000-line SASS listing cannot
flood the agent's context.

stdout belongs to the protocol: the SDK's stdio transport (mcp 2) serves it from a private copy of
file 1 and points file 1 at stderr, so a compile worker's output or a kernel file's ``print`` lands on
stderr instead of inside a message (``tests/test_mcp.py`` prints from a kernel file to show it).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

MAX_CHARS = 60_000  # about 15k tokens: a long PTX listing's first few thousand lines
MAX_VARIANTS = 256  # one sweep tool call: minutes of compiles on a laptop already
Values = dict[str, str | int | float | bool]
BUILT_IN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # a built-in kernel's name: no path
_CLI = threading.Lock()  # the commands a tool runs print through click's streams, swapped for each run


@click.command()
@click.option(
    "--root",
    "roots",
    multiple=True,
    metavar="DIR",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A folder the tools may read kernels, sessions and baselines from (repeatable; default: the working "
    "directory). A path outside every one is refused.",
)
def mcp(roots: tuple[Path, ...]) -> None:
    """Serve capture, dump, sweep, diff, annotate, passes, compare, check, bench and repro to an MCP client over
    stdio (pip install irscope[mcp]).

    \b
    An agent's configuration (Claude Code, Cursor, ...):
      {"mcpServers": {"irscope": {"command": "irscope", "args": ["mcp", "--root", "/path/to/kernels"]}}}
    """
    server = make_server(roots or (Path.cwd(),))  # ModuleNotFoundError for mcp: the CLI's one line naming irscope[mcp]
    server.run("stdio")


def bounded(text: str, limit: int = MAX_CHARS) -> str:
    """``text``, or its first ``limit`` characters and a line saying how much was left out."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit) + 1 or limit
    return text[:cut] + f"\n[irscope: cut at {cut:,} of {len(text):,} characters; ask for less (max_chars)]\n"


def _one_line(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with irscope's errors turned into the tool's error, one line as the CLI prints them."""

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> Any:
        from mcp.server.mcpserver.exceptions import ToolError

        from ..errors import IrscopeError

        try:
            return fn(*args, **kwargs)
        except IrscopeError as exc:  # the input's fault: said to the agent; anything else stays on stderr
            lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
            raise ToolError(f"irscope: error: {lines[0] if lines else type(exc).__name__}") from None

    return tool


class Folders:
    """The folders a tool may read from: a path an argument names must resolve (links followed) inside one."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = [os.path.realpath(root) for root in roots]

    def check(self, text: str, what: str = "kernel") -> str:
        """``text`` (KERNEL: a built-in name, FILE:NAME, a session or run folder; or a file) if every path it may
        name is inside the roots; else a UsageError naming the roots. Both readings of ``A:B`` are checked."""
        from ..errors import UsageError

        readings = {text, text.rsplit(":", 1)[0]} if ":" in text else {text}
        for reading in readings:
            if what == "kernel" and BUILT_IN.fullmatch(reading) and not os.path.lexists(reading):
                continue  # a built-in kernel's name; a file or folder of that name is a path
            for spelled in {reading, os.path.expanduser(reading)}:
                real = os.path.realpath(spelled)
                if not any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots):
                    raise UsageError(
                        f"the {what} {reading[:200]!r} is outside the folders this server reads "
                        f"({', '.join(self.roots)}): start irscope mcp with --root naming its folder"
                    )
        return text


def _config_args(flag: str, config: Values | None) -> list[str]:
    out = []
    for name, value in (config or {}).items():
        out += [flag, f"{name}={str(value).lower() if isinstance(value, bool) else value}"]
    return out


def _command(args: list[str], ok: tuple[int, ...] = (0,)) -> tuple[int, str]:
    """Run one irscope command in this process, as the CLI runs it (its checks, its one-line errors): its exit
    code and stdout; an exit code outside ``ok`` is the tool's error, the command's own line."""
    from click.testing import CliRunner

    from ..errors import UsageError
    from . import main

    with _CLI:
        result = CliRunner().invoke(main, args, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    if result.exit_code not in ok:
        lines = [line for line in result.stderr.splitlines() if line.startswith("irscope: error:")]
        said = lines[0].removeprefix("irscope: error:").strip() if lines else f"exit {result.exit_code}"
        raise UsageError(said)
    return result.exit_code, result.stdout


def _json_text(out: str, max_chars: int) -> str:
    """A command's --json output, re-indented and cut at ``max_chars``."""
    return bounded(json.dumps(json.loads(out), indent=1) + "\n", min(max(max_chars, 1), MAX_CHARS))


def _variant(kernel: str, config: Values | None, signature: str | None, arch: str | None):
    from ..named import Settings, open_named

    settings = Settings(note=lambda line: print(f"irscope: {line}", file=sys.stderr))
    named = open_named(kernel, settings, signature=signature)
    return named.variant({k: str(v) for k, v in (config or {}).items()}, arch)


def _stage(variant, stage: str):
    from ..errors import UsageError
    from ..types import Stage

    try:
        which = Stage(stage)
    except ValueError:
        raise UsageError(f"unknown stage {stage!r}; stages: {', '.join(s.value for s in Stage.compiled())}") from None
    if which not in variant.listings:
        raise UsageError(f"{which.value} was not captured: {variant.missing_reason(which)}")
    return which


def make_server(roots: Sequence[Path] | None = None):
    """The server and its tools (``mcp`` imported here: only ``irscope mcp`` needs it); ``roots``: the folders its
    tools read from (default: the working directory)."""
    from importlib.metadata import version

    from mcp.server.mcpserver import MCPServer

    folders = Folders(roots or (Path.cwd(),))

    server = MCPServer(
        "irscope",
        version=version("irscope"),
        instructions="Compile GPU kernels (Triton, CUDA C++, Numba) without a GPU and inspect every stage: "
        "capture a variant, dump a stage, diff two configs, annotate findings, walk Triton's passes, compare "
        "implementations, gate on a baseline (check), time on a GPU (bench), write a reproducer. KERNEL is a built-in name "
        "(square_kernel), FILE.py:NAME, FILE.cu:NAME or a session folder; config maps parameters to values.",
    )

    @server.tool()
    @_one_line
    def capture(
        kernel: str, config: Values | None = None, signature: str | None = None, arch: str | None = None
    ) -> dict[str, Any]:
        """Compile one variant of KERNEL: its config, arch, resources (registers, spills, shared memory),
        the stages captured, and whether it compiled (and why not)."""
        from ..storage.variants import variant_to_json

        v = _variant(folders.check(kernel), config, signature, arch)
        data = variant_to_json(v)
        return {
            "kernel": v.kernel.name,
            "config": v.config.label(),
            "arch": v.arch,
            "ok": v.ok,
            "error": str(v.error) if v.error else None,
            "resources": data.get("resources"),
            "compiler": v.compile_info.compiler if v.compile_info else None,
            "stages": sorted(s.value for s in v.listings),
        }

    @server.tool()
    @_one_line
    def dump(
        kernel: str,
        stage: str = "ptx",
        config: Values | None = None,
        signature: str | None = None,
        arch: str | None = None,
        max_chars: int = MAX_CHARS,
    ) -> str:
        """One stage's listing (ttir, ttgir, llir, ptx, sass, amdgcn, source) of one variant of KERNEL."""
        v = _variant(folders.check(kernel), config, signature, arch)
        return bounded(v.listings[_stage(v, stage)], min(max(max_chars, 1), MAX_CHARS))

    @server.tool()
    @_one_line
    def diff(
        kernel: str,
        a: Values,
        b: Values,
        stage: str = "ptx",
        signature: str | None = None,
        arch: str | None = None,
        max_chars: int = MAX_CHARS,
    ) -> str:
        """What changes between two configs of KERNEL (a and b: each its parameter values): a summary
        (resources, instruction counts, access widths) and the normalised diff of one stage."""
        from ..diffing import diff_variants
        from ..diffing.render import unified_lines
        from ..diffing.summary import summary_lines

        folders.check(kernel)
        va, vb = _variant(kernel, a, signature, arch), _variant(kernel, b, signature, arch)
        which = _stage(va, stage)
        _stage(vb, stage)
        result = diff_variants(va, vb, which)
        body = unified_lines(result, 3) if result.changed else [f"no differences in {which.value} (normalised)"]
        return bounded("\n".join([*summary_lines(result), "", *body]) + "\n", min(max(max_chars, 1), MAX_CHARS))

    @server.tool()
    @_one_line
    def annotate(
        kernel: str,
        config: Values | None = None,
        signature: str | None = None,
        arch: str | None = None,
        stage: str = "ptx",
    ) -> list[dict[str, Any]]:
        """The findings about one variant of KERNEL from its PTX, SASS or AMDGCN: vectorisation, masking,
        spills, occupancy, shared memory, tensor cores, hot lines; each with the listing lines it cites."""
        from ..annotating.findings import findings

        v = _variant(folders.check(kernel), config, signature, arch)
        return [
            {
                "kind": f.kind,
                "severity": f.severity,
                "title": f.title,
                "detail": bounded(f.detail, 4_000),
                "lines": [i + 1 for i in f.lines[:200]],
            }
            for f in findings(v, _stage(v, stage))
        ]

    @server.tool()
    @_one_line
    def sweep(
        kernel: str,
        sweep: dict[str, list[str | int | float | bool]],
        config: Values | None = None,
        signature: str | None = None,
        arch: str | None = None,
    ) -> list[dict[str, Any]]:
        """Compile every combination of ``sweep``'s values (``config`` fixes others; at most 256 variants): per
        variant its config, whether it compiled, registers, spills, shared memory, warps per SM, the widths of
        its global loads and stores in bytes, and its warnings (``irscope check``'s facts)."""
        from ..capturing import capture_many
        from ..checking.facts import variant_facts
        from ..errors import UsageError
        from ..named import Settings, configs_of, open_named

        named = open_named(folders.check(kernel), Settings(), signature=signature, need_kernel=True)
        values = {name: [str(v) for v in vs] for name, vs in sweep.items()}
        configs = configs_of(named, {k: str(v) for k, v in (config or {}).items()}, values, whole_space=False)
        if len(configs) > MAX_VARIANTS:
            raise UsageError(f"{len(configs)} variants: ask for at most {MAX_VARIANTS} in one sweep")
        captured = sorted(capture_many(named.require_kernel(signature), configs, arch), key=lambda c: c.index)
        rows = []
        for c in captured:
            facts = variant_facts(c.variant).to_json()
            del facts["listings"], facts["runtime_us"]
            rows.append({"config": c.variant.config.label(), "arch": c.variant.arch, **facts})
        return rows

    @server.tool()
    @_one_line
    def repro(kernel: str, config: Values | None = None, signature: str | None = None, arch: str | None = None) -> str:
        """A standalone Python file that rebuilds one variant of KERNEL and prints its PTX (Triton: needs Triton only;
        CUDA C++: nvcc only), as ``irscope repro`` writes it (docs/repro.md); nothing of a session's text runs in it."""
        from ..errors import UsageError
        from ..named import Settings, open_named
        from .repro import repro_text

        named = open_named(folders.check(kernel), Settings(), signature=signature)
        text = repro_text(named, named.variant({k: str(v) for k, v in (config or {}).items()}, arch))
        if len(text) > MAX_CHARS:  # cut short it would not run: said, not sent
            raise UsageError(
                f"the file is {len(text):,} characters, past {MAX_CHARS:,}: write it with irscope repro -o"
            )
        return text

    @server.tool()
    @_one_line
    def passes(
        kernel: str,
        config: Values | None = None,
        a: Values | None = None,
        b: Values | None = None,
        signature: str | None = None,
        arch: str | None = None,
        max_chars: int = MAX_CHARS,
    ) -> str:
        """Triton's MLIR passes of one variant of KERNEL (JSON: each pass's stage, lines and ops removed and added);
        with ``a`` and ``b`` (two configs), the first pass after which their IR differs beyond the configs' own
        constants (``irscope passes --first-divergence``)."""
        from ..errors import UsageError

        args = ["passes", folders.check(kernel), *_config_args("-c", config), "--json"]
        if (a is None) != (b is None):
            raise UsageError("a and b name the two configs of a first divergence: give both, or neither")
        if a is not None and b is not None:
            args += ["--first-divergence", *_config_args("-a", a), *_config_args("-b", b)]
        args += ["-S", signature] if signature else []
        args += ["--arch", arch] if arch else []
        return _json_text(_command(args)[1], max_chars)

    @server.tool()
    @_one_line
    def compare(
        kernels: list[str], config: Values | None = None, arch: str | None = None, max_chars: int = MAX_CHARS
    ) -> str:
        """One operation written several ways (KERNELS in any language irscope compiles), side by side (JSON):
        registers, spills, shared memory, instruction counts, global loads and stores by width; on a GPU each
        one's runtime on the same sizes, checked against the spec's reference first (``irscope compare``)."""
        args = ["compare", *(folders.check(k) for k in kernels), *_config_args("-c", config), "--json"]
        args += ["--arch", arch] if arch else []
        return _json_text(_command(args)[1], max_chars)

    @server.tool()
    @_one_line
    def check(
        kernel: str,
        baseline: str | None = None,
        config: Values | None = None,
        sweep: dict[str, list[str | int | float | bool]] | None = None,
        signature: str | None = None,
        arch: str | None = None,
        max_registers: str | None = None,
        max_spills: str | None = None,
        max_shared: str | None = None,
        unchanged: list[str] | None = None,
        max_chars: int = MAX_CHARS,
    ) -> str:
        """The regression gate (``irscope check --json``): KERNEL's variants against a baseline (a session, or a
        file ``irscope check --write-baseline`` wrote) and bounds (``N``, or ``+N`` over the baseline). JSON with
        each condition's verdict per variant; ``ok`` false where one broke (the command's exit 1)."""
        args = ["check", folders.check(kernel), *_config_args("-c", config), "--json"]
        for name, values in (sweep or {}).items():
            args += ["-s", f"{name}={','.join(str(v) for v in values)}"]
        if baseline is not None:
            args += ["--baseline", folders.check(baseline, "baseline")]
        for flag, bound in (("--max-registers", max_registers), ("--max-spills", max_spills),
                            ("--max-shared", max_shared)):  # fmt: skip
            args += [flag, str(bound)] if bound is not None else []
        for stage in unchanged or []:
            args += ["--unchanged", stage]
        args += ["-S", signature] if signature else []
        args += ["--arch", arch] if arch else []
        return _json_text(_command(args, ok=(0, 1))[1], max_chars)  # exit 1: a condition broke ("ok": false)

    @server.tool()
    @_one_line
    def bench(
        kernel: str,
        config: Values | None = None,
        sweep: dict[str, list[str | int | float | bool]] | None = None,
        signature: str | None = None,
        max_chars: int = MAX_CHARS,
    ) -> str:
        """On this machine's GPU: each variant of KERNEL checked against its reference, then timed (``irscope bench
        --json``). Without a GPU it says so in one line."""
        from ..errors import UsageError
        from ..nvidia.device import has_gpu

        folders.check(kernel)
        if not has_gpu():
            raise UsageError("bench times kernels on a GPU, and this machine has none (capture, sweep and check work)")
        args = ["bench", kernel, *_config_args("-c", config), "--json"]
        for name, values in (sweep or {}).items():
            args += ["-s", f"{name}={','.join(str(v) for v in values)}"]
        args += ["-S", signature] if signature else []
        return bounded(_command(args)[1], min(max(max_chars, 1), MAX_CHARS))  # one JSON object a line, per variant

    return server
