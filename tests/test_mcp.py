"""``irscope mcp``: a real MCP client session (the official SDK's ``Client`` over stdio, the server started
as ``python -m irscope mcp``) drives a capture, a sweep, a diff, findings and a repro of a kernel written for the test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import anyio
import pytest

pytest.importorskip("mcp", reason="the [mcp] extra is not installed")

from mcp import Client, StdioServerParameters

KERNEL = """
import triton
import triton.language as tl

print("a kernel file that prints when it is imported")  # on stdout: must not reach the protocol


@triton.jit
def shift(x_ptr, out_ptr, n, OFFSET: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs + OFFSET, mask=mask)
    tl.store(out_ptr + offs, x * 2.0, mask=mask)
"""
SIGNATURE = "*fp32:16, *fp32:16, i32:16, -, -"
ALIGNED = {"OFFSET": 0, "BLOCK": 1024}
SHIFTED = {"OFFSET": 1, "BLOCK": 1024}


def _text(result) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def test_an_mcp_client_drives_capture_diff_and_findings_over_stdio(tmp_path, tmp_path_factory):
    (tmp_path / "shift.py").write_text(textwrap.dedent(KERNEL))
    outside = tmp_path_factory.mktemp("outside")  # not under the server's root (its working directory)
    canary = tmp_path / "CANARY"  # the outside file makes it when imported: a refusal comes before any import
    (outside / "shift.py").write_text(
        textwrap.dedent(KERNEL) + f"\n__import__('pathlib').Path({str(canary)!r}).touch()\n"
    )
    (tmp_path / "link.py").symlink_to(outside / "shift.py")  # inside by name, outside where it leads
    kernel = f"{tmp_path / 'shift.py'}:shift"
    damaged = tmp_path / "damaged-session"  # data: a session whose header is not JSON
    damaged.mkdir()
    (damaged / "session.json").write_text('{"format": 1, \x1b]0;owned')
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "irscope", "mcp"],
        env={**os.environ, "IRSCOPE_NO_GPU": "1"},
        cwd=str(tmp_path),
    )

    async def session() -> dict:
        seen: dict = {}
        async with Client(server) as client:
            tools = await client.list_tools()
            seen["tools"] = {tool.name for tool in tools.tools}
            seen["capture"] = await client.call_tool(
                "capture", {"kernel": kernel, "signature": SIGNATURE, "config": ALIGNED}
            )
            seen["diff"] = await client.call_tool(
                "diff", {"kernel": kernel, "signature": SIGNATURE, "a": ALIGNED, "b": SHIFTED}
            )
            for name, config in (("aligned", ALIGNED), ("shifted", SHIFTED)):
                seen[name] = await client.call_tool(
                    "annotate", {"kernel": kernel, "signature": SIGNATURE, "config": config}
                )
            seen["dump"] = await client.call_tool(
                "dump", {"kernel": kernel, "signature": SIGNATURE, "config": ALIGNED, "max_chars": 300}
            )
            seen["sweep"] = await client.call_tool(
                "sweep",
                {"kernel": kernel, "signature": SIGNATURE, "sweep": {"OFFSET": [0, 1]}, "config": {"BLOCK": 1024}},
            )
            seen["repro"] = await client.call_tool(
                "repro", {"kernel": kernel, "signature": SIGNATURE, "config": SHIFTED}
            )
            seen["passes"] = await client.call_tool(
                "passes", {"kernel": kernel, "signature": SIGNATURE, "config": ALIGNED, "max_chars": 200_000}
            )
            seen["divergence"] = await client.call_tool(
                "passes", {"kernel": kernel, "signature": SIGNATURE, "a": ALIGNED, "b": SHIFTED}
            )
            for name, bound in (("check_ok", "255"), ("check_broke", "4")):
                seen[name] = await client.call_tool(
                    "check",
                    {"kernel": kernel, "signature": SIGNATURE, "config": SHIFTED, "max_registers": bound},
                )
            seen["compare"] = await client.call_tool(
                "compare", {"kernels": ["square_kernel", "square_matrix_kernel"], "config": {"n": 4096}}
            )
            seen["bench"] = await client.call_tool("bench", {"kernel": "square_kernel"})
            seen["outside"] = await client.call_tool("capture", {"kernel": f"{outside / 'shift.py'}:shift"})
            seen["outside_rel"] = await client.call_tool("dump", {"kernel": "../" + outside.name + "/shift.py:shift"})
            seen["link"] = await client.call_tool("annotate", {"kernel": f"{tmp_path / 'link.py'}:shift"})
            seen["baseline_outside"] = await client.call_tool(
                "check", {"kernel": kernel, "signature": SIGNATURE, "baseline": str(outside)}
            )
            seen["compare_outside"] = await client.call_tool(
                "compare", {"kernels": ["square_kernel", str(outside / "shift.py")]}
            )
            seen["unknown"] = await client.call_tool("dump", {"kernel": "no_such_kernel"})
            seen["damaged"] = await client.call_tool("capture", {"kernel": str(damaged)})
            seen["after"] = await client.call_tool(
                "capture", {"kernel": kernel, "signature": SIGNATURE, "config": SHIFTED}
            )
        return seen

    seen = anyio.run(session)
    assert seen["tools"] == {
        "capture", "dump", "sweep", "diff", "annotate", "repro", "passes", "compare", "check", "bench"
    }  # fmt: skip
    captured = seen["capture"].structured_content
    assert not seen["capture"].is_error and captured["ok"] and captured["kernel"] == "shift"
    assert captured["config"] == "OFFSET=0 BLOCK=1024 num_warps=4 num_stages=3" and "ptx" in captured["stages"]
    assert isinstance(captured["resources"]["registers"], int)
    diff = _text(seen["diff"])
    assert "ld.global.v4.b32" in diff and "ld.global.b32" in diff  # 16-byte loads in A, 4-byte in B
    titles = {name: [f["title"] for f in seen[name].structured_content["result"]] for name in ("aligned", "shifted")}
    narrow = "global loads are not vectorised (4 bytes per thread)"
    assert narrow in titles["shifted"] and narrow not in titles["aligned"]
    swept = seen["sweep"].structured_content["result"]
    assert [(row["config"].split()[0], row["load_widths"]) for row in swept] == [("OFFSET=0", [16]), ("OFFSET=1", [4])]
    assert "KERNEL = 'shift'" in _text(seen["repro"]) and "CONSTEXPRS = {'OFFSET': 1, 'BLOCK': 1024}" in _text(
        seen["repro"]
    )
    # passes: Triton's pipeline, pass by pass; and the first pass where the aligned and shifted configs part
    pipeline = json.loads(_text(seen["passes"]))
    assert pipeline["kernel"] == "shift" and len(pipeline["passes"]) > 20
    assert any(p["name"] == "tritongpu-coalesce" or "coalesce" in p["arg"] for p in pipeline["passes"])
    divergence = json.loads(_text(seen["divergence"]))
    assert divergence["index"] is not None and divergence["pass"]["stage"] in ("ttir", "ttgir", "llir")
    # check: the command's gate; exit 1 (a bound broke) is a result, not an error
    ok, broke = json.loads(_text(seen["check_ok"])), json.loads(_text(seen["check_broke"]))
    assert not seen["check_broke"].is_error and ok["ok"] is True and broke["ok"] is False and broke["failed"] >= 1
    assert any(r["verdict"] == "failed" and "register" in json.dumps(r) for r in broke["rows"])
    compared = json.loads(_text(seen["compare"]))
    assert "square_kernel" in json.dumps(compared) and "square_matrix_kernel" in json.dumps(compared)
    # bench without a GPU: one line saying so
    assert seen["bench"].is_error and "has none" in _text(seen["bench"]) and "\n" not in _text(seen["bench"]).strip()
    # a path outside the server's root, by name, relative or through a link: refused before anything reads it
    for name in ("outside", "outside_rel", "link", "baseline_outside", "compare_outside"):
        said = _text(seen[name])
        assert seen[name].is_error and "outside the folders this server reads" in said, (name, said)
    assert not canary.exists()
    dumped = _text(seen["dump"])
    assert dumped.startswith("//") and "[irscope: cut at" in dumped and len(dumped) < 400
    assert seen["unknown"].is_error and "irscope: error:" in _text(seen["unknown"])
    assert "\n" not in _text(seen["unknown"]).strip()
    # a damaged session is one line for the agent, and the server goes on serving
    assert seen["damaged"].is_error and "irscope: error:" in _text(seen["damaged"])
    assert "\n" not in _text(seen["damaged"]).strip()
    assert not seen["after"].is_error and seen["after"].structured_content["ok"]


def test_without_the_extra_mcp_is_one_line_naming_it(tmp_path):
    hide = "import sys; sys.modules['mcp'] = None; from irscope.cli import run; sys.argv = ['irscope', 'mcp']; run()"
    done = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("irscope: error:") and "pip install irscope[mcp]" in line
