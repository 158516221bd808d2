"""An HSACO and its resources are data: damage is a ValueError from the reader, exit 5 from a session.

The reader (``ir/hsaco.py``) is fed a real HSACO (tests/written_kernels.py's scaled add, compiled by Triton for
gfx942) cut short at every length, with bytes overwritten, and with MessagePack made to lie about its
sizes or nest without end: each must end in a ValueError, never another exception, a hang or a huge
allocation. A stored AMD variant whose resources are of the wrong kind is one line and exit 5.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from written_kernels import SCALED_ADD

from irscope.ir.hsaco import kernel_resources, metadata

from .damage import record

SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32:16, fp32"


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    root = tmp_path_factory.mktemp("amd-session")
    (root / "scaled_add.py").write_text(SCALED_ADD)
    kernel = f"{root / 'scaled_add.py'}:scaled_add"
    return record(root / "session", kernel, "-S", SIGNATURE, "-s", "BLOCK=128", "--arch", "gfx942")


@pytest.fixture(scope="module")
def hsaco(session):
    from irscope.capturing import capture
    from irscope.frontends import resolve_kernel

    kernel = resolve_kernel(f"{session.parent / 'scaled_add.py'}:scaled_add", SIGNATURE)
    return capture(kernel, {"BLOCK": "128"}, "gfx942", compile_timeout=None).cubin


def _reads_or_refuses(data: bytes) -> None:
    try:
        kernel_resources(data)
    except ValueError:
        pass


def test_a_cut_or_scribbled_hsaco_is_a_value_error(hsaco):
    assert kernel_resources(hsaco)[0].name == "scaled_add"
    for end in range(0, len(hsaco), 7):
        _reads_or_refuses(hsaco[:end])
    rng = random.Random(33)
    for _ in range(300):
        damaged = bytearray(hsaco)
        for _ in range(rng.randint(1, 8)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        _reads_or_refuses(bytes(damaged))


def _with_note(hsaco: bytes, desc: bytes) -> bytes:
    """``hsaco`` with its metadata note's description overwritten by ``desc`` (padded to the same size)."""
    start = hsaco.index(b"AMDGPU\0\0") + 8
    size = int.from_bytes(hsaco[start - 16 : start - 12], "little")
    return hsaco[:start] + desc.ljust(size, b"\xc0")[:size] + hsaco[start + size :]


@pytest.mark.parametrize(
    "desc, says",
    [
        (b"\x91" * 4000, "nests too deep"),  # arrays in arrays
        (b"\xdd\xff\xff\xff\xff", "more items than it holds"),  # an array of 4 billion
        (b"\xdf\x7f\xff\xff\xff", "more items than it holds"),
        (b"\xdb\xff\xff\xff\xf0abc", "ends early"),  # a string longer than the note
        (b"\xc1", "never uses"),
        (b"\x81\x90\x01", "not a name"),  # a map keyed by an array
        (b"\x81\xa3abc\x01", "lists no kernels"),
    ],
)
def test_metadata_that_lies_about_itself_is_a_value_error_that_says_so(hsaco, desc, says):
    with pytest.raises(ValueError, match=says):
        kernel_resources(_with_note(hsaco, desc))


def test_an_elf_whose_headers_point_outside_it_is_a_value_error(hsaco):
    shoff_past_end = hsaco[:0x28] + (len(hsaco) + 64).to_bytes(8, "little") + hsaco[0x30:]
    for data in (b"", b"\x7fELF", hsaco[:63], shoff_past_end, b"\x7fELF\x01" + hsaco[5:]):
        with pytest.raises(ValueError):
            metadata(data)


def test_a_stored_amd_variant_with_resources_of_the_wrong_kind_is_exit_5(session, tmp_path):
    import shutil

    copy = tmp_path / "session"
    shutil.copytree(session, copy)
    (record_file,) = copy.glob("variants/*/variant.json")
    data = json.loads(record_file.read_text())
    assert data["arch"] == "gfx942" and data["resources"]["sgprs"] > 0
    data["resources"]["sgprs"] = "many"
    record_file.write_text(json.dumps(data))
    done = subprocess.run(
        [sys.executable, "-m", "irscope", "dump", str(copy), "-c", "BLOCK=128", "--stage", "amdgcn"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 5, done.stderr
    assert done.stderr.count("\n") == 1 and "sgprs" in done.stderr and "Traceback" not in done.stderr


def _elf_of_notes(notes: int, sections: int) -> bytes:
    """An ELF whose ``sections`` note sections all name one region of ``notes`` empty notes."""
    import struct

    region = struct.pack("<III", 0, 0, 1) * notes
    shoff = 64 + len(region)
    header = bytearray(64)
    header[:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<Q", header, 0x28, shoff)
    struct.pack_into("<HH", header, 0x3A, 64, sections)
    section = struct.pack("<IIQQQQ", 0, 7, 0, 0, 64, len(region)).ljust(64, b"\0")
    return bytes(header) + region + section * sections


def test_note_sections_that_share_their_notes_are_refused_in_linear_time():
    import time

    crafted = _elf_of_notes(16384, 3000)  # 0.38 MB: each of 3,000 sections would walk the same 16,384 notes
    start = time.monotonic()
    with pytest.raises(ValueError, match="overlap"):
        metadata(crafted)
    assert time.monotonic() - start < 2.0  # the headers are read once, the notes not at all
    with pytest.raises(ValueError, match="no AMDGPU metadata note"):
        metadata(_elf_of_notes(16384, 1))  # one such section: read through once
