"""Regenerate the lists of instructions NVIDIA documents for each architecture.

The plain-word explanations in ptx.json and sass.json are written by hand; which
instructions exist on which architecture is not. It is read from NVIDIA's own
material and written to sass_opcodes.json and ptx_instructions.json, which a test
holds the hand-written knowledge against, so a new architecture is a
regeneration and a test run, not a line-by-line edit:

    python tests/regenerate_knowledge.py sass PAGE [-o FILE]
        PAGE: the CUDA Binary Utilities page (docs.nvidia.com/cuda/cuda-binary-utilities/),
        saved as HTML, or the text a browser or converter makes of it; its
        "Instruction Set" sections each hold an Opcode | Description table.
    python tests/regenerate_knowledge.py ptx [DIR] [-o FILE]
        DIR: the toolkit's cuda::ptx headers (include/cccl/cuda/__ptx/instructions/generated),
        which list every PTX form they wrap with its PTX ISA version and SM targets.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

# a maintainer script beside the tests: it rewrites the checkout's knowledge, not an installed irscope's
HERE = Path(__file__).resolve().parents[1] / "irscope" / "knowledge"
SASS_OUTPUT = HERE / "sass_opcodes.json"
PTX_OUTPUT = HERE / "ptx_instructions.json"

# ----------------------------------------------------------------- SASS (CUDA Binary Utilities)

# "4.4. Blackwell and Rubin Instruction Set[](https://docs.nvidia.com#blackwell-...)" or, in HTML, "4.6. Blackwell Instruction Set#"
SECTION = re.compile(r"^(?:#+\s*)?(?P<number>\d+(?:\.\d+)+)\.?\s+(?P<title>[^\[#¶]*?Instruction Set)\b")
# "The Hopper architecture (Compute Capability 9.0) has ..." / "(Compute Capability 10.0, 10.3, 10.7, 11.0, and 12.0)"
CAPABILITIES = re.compile(r"Compute Capabilit(?:y|ies)\s+(?P<list>\d+\.\d+(?:\s*,?\s*(?:and\s+)?\d+\.\d+)*)")
# "5. cu++filt[](...)": a chapter heading
CHAPTER = re.compile(r"^(?:#+\s*)?\d+\.\s+\S")
# an opcode cell: "FFMA", "HADD2_32I", "UIADD3.64"
OPCODE = re.compile(r"^[A-Z][A-Z0-9_]*(?:\.[0-9A-Z]+)?$")
CELL = re.compile(r"^(?P<text>.*?)\s*\|$")


class _PageText(HTMLParser):
    """HTML -> the line form the text rendering has: headings and paragraphs as lines, cells as 'text |'."""

    BLOCKS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "div", "section", "caption", "li"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.buffer: list[str] = []
        self.cell: list[str] | None = None

    def _flush(self) -> None:
        text = " ".join("".join(self.buffer).split())
        if text:
            self.lines.append(text)
        self.buffer = []

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in ("td", "th"):
            self._flush()
            self.cell = []
        elif tag in self.BLOCKS or tag == "tr":
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.lines.append(" ".join("".join(self.cell).split()) + " |")
            self.cell = None
        elif tag in self.BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        (self.cell if self.cell is not None else self.buffer).append(data)


def page_lines(text: str) -> list[str]:
    """The page as lines, whether it was saved as HTML or as text."""
    if re.search(r"<(?:html|table|body)\b", text[:200_000], re.IGNORECASE):
        parser = _PageText()
        parser.feed(text)
        parser.close()
        return parser.lines
    return [line.strip() for line in text.splitlines()]


def sass_tables(text: str) -> list[dict]:
    """Each instruction-set section of the page: its title, compute capabilities and opcodes."""
    tables: list[dict] = []
    current: dict | None = None
    for line in page_lines(text):
        m = SECTION.match(line)
        if m:
            current = {"section": f"{m['number']}. {m['title'].strip()}", "compute_capabilities": [], "opcodes": []}
            tables.append(current)
            continue
        if current is None:
            continue
        if current["opcodes"] and CHAPTER.match(line):
            current = None  # the next chapter ("5. cu++filt") ends the last table
            continue
        m = CAPABILITIES.search(line)
        if m and not current["compute_capabilities"]:
            current["compute_capabilities"] = re.findall(r"\d+\.\d+", m["list"])
            continue
        cell = CELL.match(line)
        if cell and OPCODE.match(cell["text"]) and cell["text"] not in current["opcodes"]:
            current["opcodes"].append(cell["text"])
    for table in tables:
        table["archs"] = [arch_of(cc) for cc in table["compute_capabilities"]]
        table["opcodes"] = sorted(table["opcodes"])
    return [t for t in tables if t["opcodes"]]


def arch_of(capability: str) -> str:
    """'10.0' -> 'sm_100'."""
    major, minor = capability.split(".")
    return f"sm_{major}{minor}"


def sass_document(page: Path) -> dict:
    tables = sass_tables(page.read_text(encoding="utf-8", errors="replace"))
    if not tables:
        raise SystemExit(
            f"{page}: no 'Instruction Set' section with an Opcode table found; is this the CUDA Binary Utilities page?"
        )
    return {
        "source": "NVIDIA CUDA Binary Utilities, 4 Instruction Set Reference "
        "(https://docs.nvidia.com/cuda/cuda-binary-utilities/): the Opcode column of each table",
        "generated_by": f"python tests/regenerate_knowledge.py sass {page.name}",
        "tables": tables,
    }


def sass_opcodes_for(document: dict, arch: str) -> list[str]:
    """Opcodes NVIDIA lists for ``arch`` ('sm_90a' counts as sm_90); [] when no table names it."""
    base = re.sub(r"[af]$", "", arch)
    for table in document.get("tables", []):
        if base in table["archs"]:
            return table["opcodes"]
    return []


# ----------------------------------------------------------------- PTX (cuda::ptx headers)

# "// tcgen05.ld.sync.aligned.16x64b.x1.b32 out, [taddr]; // PTX ISA 86, SM_100a, SM_101a"
PTX_FORM = re.compile(r"^//\s+(?P<form>[a-z][\w.:]*)")
PTX_TAG = re.compile(r"//\s*PTX ISA\s+(?P<isa>\d+),\s*(?P<sms>SM_\w+(?:\s*,\s*SM_\w+)*)")
# "// .space     = { .shared::cta }": a placeholder the header spells out below the form
PTX_PLACEHOLDER = re.compile(r"^//\s+\.(?P<name>\w+)\s*=\s*\{")
PTX_DEPTH = 4  # at most this many components name the instruction: cp.async.bulk.tensor
# where the modifiers start: a type (b32, f16x2, pred), a shape or size (16x64b, 1d, 128B), a state space or
# qualifier spelled with '::' after the second component, or the usual .sync/.aligned pair
PTX_MODIFIER = re.compile(
    r"^(?:[bsuf]\d+|[bf]\d+x\d+|bf16\w*|tf32|e\dm\d\w*|pred|v\d+|\d\w*|sync|aligned|"
    r"shared|global|relaxed|acquire|release|weak|L1|L2|nc)$"
)


def _split(parts: list[str]) -> tuple[str, list[str]]:
    """['tcgen05', 'ld', 'sync', 'aligned', '16x64b', 'x1', 'b32'] -> ('tcgen05.ld', ['sync', ...])."""
    k = 1
    while k < min(len(parts), PTX_DEPTH):
        part = parts[k]
        if PTX_MODIFIER.match(part.split("::")[0]) or ("::" in part and k > 1):
            break
        k += 1
    return ".".join(parts[:k]), parts[k:]


def ptx_forms(text: str) -> list[tuple[str, list[str], int, list[str]]]:
    """(instruction, its modifiers, PTX ISA version, SM targets) for each form a generated header documents."""
    found = []
    for block in re.findall(r"/\*(.*?)\*/", text, re.DOTALL):
        lines = [line.strip() for line in block.strip().splitlines()]
        placeholders = {m["name"] for line in lines if (m := PTX_PLACEHOLDER.match(line))}
        head = next((i for i, line in enumerate(lines) if PTX_FORM.match(line)), None)
        if head is None:
            continue
        tag = next((m for line in lines[head:] if (m := PTX_TAG.search(line))), None)
        if tag is None:
            continue
        form = PTX_FORM.match(lines[head])
        if form is None:
            continue
        parts = form["form"].rstrip(";").split(".")
        name, modifiers = _split([parts[0], *(p for p in parts[1:] if p not in placeholders)])
        found.append((name, modifiers, int(tag["isa"]), [s.strip() for s in tag["sms"].split(",")]))
    return found


def ptx_document(directory: Path) -> dict:
    headers = sorted(directory.glob("*.h"))
    if not headers:
        raise SystemExit(f"{directory}: no headers; give the toolkit's include/cccl/cuda/__ptx/instructions/generated")
    instructions: dict[str, dict] = {}
    for header in headers:
        for name, modifiers, isa, sms in ptx_forms(header.read_text(encoding="utf-8", errors="replace")):
            entry = instructions.setdefault(name, {"ptx_isa": isa, "targets": [], "modifiers": []})
            entry["ptx_isa"] = min(entry["ptx_isa"], isa)
            entry["targets"] = sorted(set(entry["targets"]) | {s.lower() for s in sms})
            entry["modifiers"] = sorted(set(entry["modifiers"]) | set(modifiers))
    version = next((p.name for p in directory.parents if re.match(r"cuda-\d", p.name)), "")
    return {
        "source": "cuda::ptx headers of the CUDA toolkit (include/cccl/cuda/__ptx/instructions/generated): "
        "each PTX form they wrap, with the PTX ISA version and SM targets NVIDIA gives for it"
        + (f" ({version})" if version else ""),
        "generated_by": "python tests/regenerate_knowledge.py ptx",
        "instructions": dict(sorted(instructions.items())),
    }


def ptx_instructions_for(document: dict, arch: str) -> list[str]:
    """Instructions usable on ``arch``: a plain target at or below it, or its own 'a'/'f' variant."""
    number = int(re.sub(r"\D", "", arch))
    out = []
    for name, entry in document.get("instructions", {}).items():
        for target in entry["targets"]:
            m = re.match(r"sm_(\d+)([af]?)$", target)
            if m and (int(m[1]) == number or (not m[2] and int(m[1]) <= number)):
                out.append(name)
                break
    return out


def default_ptx_headers() -> Path:
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    return Path(home) / "include" / "cccl" / "cuda" / "__ptx" / "instructions" / "generated"


# ----------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/regenerate_knowledge.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="isa", required=True)
    sass = sub.add_parser("sass", help="per-arch SASS opcodes from the CUDA Binary Utilities page")
    sass.add_argument("page", type=Path)
    sass.add_argument("-o", "--output", type=Path, default=SASS_OUTPUT)
    ptx = sub.add_parser("ptx", help="PTX instructions and their targets from the toolkit's cuda::ptx headers")
    ptx.add_argument("directory", type=Path, nargs="?", default=None)
    ptx.add_argument("-o", "--output", type=Path, default=PTX_OUTPUT)
    args = parser.parse_args(argv)
    document = sass_document(args.page) if args.isa == "sass" else ptx_document(args.directory or default_ptx_headers())
    args.output.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    counts = (
        [f"{t['section']}: {len(t['opcodes'])}" for t in document["tables"]]
        if args.isa == "sass"
        else [f"{len(document['instructions'])} instructions"]
    )
    print(f"wrote {args.output}: " + "; ".join(counts), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
