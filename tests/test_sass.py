"""Batched SASS equals what ``nvdisasm -c -g`` prints for each cubin on its own."""

from __future__ import annotations

import re
import subprocess
import tempfile

from irscope.capturing import capture
from irscope.ir.elf import Cubin
from irscope.nvidia.sass import disassemble, nvdisasm_path
from irscope.types import Stage


def _elf_listing(cubin: bytes) -> list[str]:
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run(
            [str(nvdisasm_path()), "-c", "-g", f.name], capture_output=True, text=True, check=True
        ).stdout
    keep = []
    for line in out.splitlines():
        if re.match(r"^\s*/\*[0-9a-f]{4}\*/", line) or "//## File" in line:
            keep.append(re.sub(r"\.L_x_\d+", "L", line.rstrip()))
    return keep


def _ours(text: str) -> list[str]:
    """Our listing as nvdisasm -g would print it: without the inlining chains (nvdisasm has no
    PTX to take them from), so a comment that only changed its chain is not repeated."""
    out: list[str] = []
    last = None
    for line in text.splitlines():
        if "//## File" in line:
            line = re.sub(r" inlined at .*", "", line.rstrip())
            if line == last:
                continue
            last = line
        elif not re.match(r"^\s*/\*[0-9a-f]{4}\*/", line):
            continue
        out.append(re.sub(r"\.L_x_\d+", "L", line.rstrip()))
    return out


def test_batched_sass_matches_nvdisasm_per_cubin_for_several_kernels_and_archs():
    variants = [
        capture(name, arch=arch)
        for name in ("softmax_kernel", "matmul_kernel", "square_kernel")
        for arch in ("sm_80", "sm_90")
    ]
    results = disassemble([v.cubin for v in variants], [v.listings[Stage.PTX] for v in variants])
    for v, result in zip(variants, results):
        assert result.error is None
        assert _ours(result.text) == _elf_listing(v.cubin), (v.kernel.name, v.arch)


def test_line_table_reads_the_kernel_file_lines():
    v = capture("square_kernel", arch="sm_90")
    rows = Cubin(v.cubin).line_table()
    assert rows and {r.file for r in rows} == {v.kernel.file}
    assert {r.section for r in rows} == {".text.square_kernel"}


def test_unreadable_cubin_is_an_error_for_that_cubin_only():
    good = capture("add_kernel", arch="sm_90")
    results = disassemble([b"not an elf", good.cubin])
    assert results[0].text is None and "cubin" in results[0].error
    assert results[1].text and "LDG" in results[1].text


def test_a_cubin_from_cuda13_ptxas_is_read_and_disassembled(tmp_path):
    """torch's Inductor points Triton at CUDA 13's ptxas, whose cubins lay out the ELF flags differently."""
    import glob

    import pytest

    found = sorted(glob.glob("/usr/local/cuda-13*/bin/ptxas"))
    if not found:
        pytest.skip("no CUDA 13 ptxas on this machine")
    v = capture("square_kernel", arch="sm_90")
    (tmp_path / "k.ptx").write_text(v.listings[Stage.PTX])
    subprocess.run(
        [found[-1], "-lineinfo", "--gpu-name=sm_90a", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
        check=True,
        capture_output=True,
    )
    cubin = (tmp_path / "k.cubin").read_bytes()
    assert Cubin(cubin).sm == 90
    (result,) = disassemble([cubin], [v.listings[Stage.PTX]])
    assert result.error is None and "LDG" in result.text and '//## File "' in result.text
