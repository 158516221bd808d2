"""``irscope mcp``: a Model Context Protocol server over stdio (the official Python SDK, ``irscope[mcp]``).

A coding agent calls the same work the commands do: ``capture``, ``dump``, ``sweep``, ``diff``,
``annotate`` (findings) and ``repro``. The rules are the CLI's: KERNEL is what ``dump`` takes (a kernel file named is code and is
imported, a session is data and never runs), a wrong input is one line (the tool's error), and every
text a tool returns is cut at ``MAX_CHARS`` with a line saying so, so a 50,000-line SASS listing cannot
flood the agent's context.

stdout belongs to the protocol: the SDK's stdio transport (mcp 2) serves it from a private copy of
file 1 and points file 1 at stderr, so a compile worker's output or a kernel file's ``print`` lands on
stderr instead of inside a message (``tests/test_mcp.py`` prints from a kernel file to show it).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import click

MAX_CHARS = 60_000  # about 15k tokens: a long PTX listing's first few thousand lines
MAX_VARIANTS = 256  # one sweep tool call: minutes of compiles on a laptop already
Values = dict[str, str | int | float | bool]


@click.command()
def mcp() -> None:
    """Serve capture, dump, sweep, diff, annotate and repro to an MCP client over stdio (pip install irscope[mcp]).

    \b
    An agent's configuration (Claude Code, Cursor, ...):
      {"mcpServers": {"irscope": {"command": "irscope", "args": ["mcp"]}}}
    """
    server = make_server()  # ModuleNotFoundError for mcp: the CLI's one line naming irscope[mcp]
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
        raise UsageError(f"{which.value} was not captured: {variant.stage_errors.get(which) or variant.error}")
    return which


def make_server():
    """The server and its tools (``mcp`` imported here: only ``irscope mcp`` needs it)."""
    from importlib.metadata import version

    from mcp.server.mcpserver import MCPServer

    server = MCPServer(
        "irscope",
        version=version("irscope"),
        instructions="Compile GPU kernels (Triton, CUDA C++, Numba) without a GPU and inspect every stage: "
        "capture a variant, dump a stage, diff two configs, annotate findings. KERNEL is a built-in name "
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

        v = _variant(kernel, config, signature, arch)
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
        v = _variant(kernel, config, signature, arch)
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

        v = _variant(kernel, config, signature, arch)
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

        named = open_named(kernel, Settings(), signature=signature, need_kernel=True)
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
        """A standalone Python file (Triton only) that rebuilds one variant of KERNEL and prints its PTX, as
        ``irscope repro`` writes it (docs/repro.md): the kernel's source runs when the file is run."""
        from ..errors import UsageError
        from ..frontends import FRONTENDS, frontend_info

        v = _variant(kernel, config, signature, arch)
        info = frontend_info(v.frontend) if v.frontend in FRONTENDS else None
        if info is None or info.reproducer is None:
            raise UsageError(f"repro rebuilds Triton variants; {v.kernel.name} is not one")
        return info.reproducer(v)

    return server
