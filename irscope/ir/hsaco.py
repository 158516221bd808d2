"""An HSACO's resources, read from the AMDGPU metadata note the ROCm loader itself reads.

Why the note and not the AMDGCN text: the binary is what runs, and its metadata (code object v3
on, a MessagePack map in an ELF note of owner ``AMDGPU``, type ``NT_AMDGPU_METADATA``) is a
documented format (LLVM's AMDGPUUsage, "Code Object V3 Metadata"), where the ``; NumVgprs:``
comments of the text are LLVM's printout for people and change with its version. The same
numbers are in the text's ``.amdgpu_metadata`` YAML block; ``llvm-readelf --notes`` prints them
from the binary (tests/test_amd.py holds this reader to it).

An HSACO can come from a session on disk, so everything here is bounded and any damage is a
ValueError: a short or inconsistent header, a note running past its section, MessagePack that
nests too deep, claims more items than it has bytes, or uses a type the metadata never does.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from typing import Any

_SHT_NOTE = 7
NT_AMDGPU_METADATA = 32
MAX_DEPTH = 16  # the metadata nests four deep (kernels, a kernel, its args, an arg)


@dataclass(frozen=True)
class KernelResources:
    """One kernel's resources as its code object's metadata states them (per lane where it says so).

    ``vgprs`` is ``.vgpr_count``: on gfx90a, gfx942 and gfx950 the one register file the AGPRs share
    (LLVM counts both in it), ``agprs`` the accumulation registers among them (0 where there are
    none). ``lds`` is the workgroup's static LDS (``.group_segment_fixed_size``), ``scratch`` each
    lane's private memory (``.private_segment_fixed_size``, where spills go).
    """

    name: str
    vgprs: int
    sgprs: int
    agprs: int
    lds: int
    scratch: int
    vgpr_spills: int
    sgpr_spills: int
    wave_size: int
    max_workgroup_size: int


def kernel_resources(hsaco: bytes) -> list[KernelResources]:
    """Every kernel's resources in an HSACO; ValueError if it is not one, or is damaged."""
    meta = metadata(hsaco)
    kernels = meta.get("amdhsa.kernels")
    if not isinstance(kernels, list):
        raise ValueError("the AMDGPU metadata lists no kernels")
    return [_resources(k) for k in kernels]


# A kernel's own keys in the AMDGCN listing's ``.amdgpu_metadata`` YAML (its args nest deeper):
#   - .agpr_count:     0          (the first key of a kernel of amdhsa.kernels)
#     .vgpr_count:     3
LISTED_KEY = re.compile(r"^  (?P<first>- |  )(?P<key>\.[a-z_]+):[ \t]*(?P<value>\S*)[ \t]*$")


def listed_resources(amdgcn: str) -> list[KernelResources]:
    """Every kernel's resources from the ``.amdgpu_metadata`` block of an AMDGCN listing, for where the
    HSACO is not at hand (a tritonparse trace keeps it by name only); ValueError where the block is
    missing or a kernel's count is not one."""
    start, end = amdgcn.find(".amdgpu_metadata"), amdgcn.find(".end_amdgpu_metadata")
    if start < 0 or end < start:
        raise ValueError("the listing has no .amdgpu_metadata block")
    kernels: list[dict[str, Any]] = []
    in_kernels = False
    for line in amdgcn[start:end].splitlines():
        if not line.startswith(" "):
            in_kernels = line.startswith("amdhsa.kernels:")
            continue
        m = LISTED_KEY.match(line) if in_kernels else None
        if m is None:
            continue
        if m["first"] == "- ":
            kernels.append({})
        if kernels:
            value = m["value"]
            kernels[-1][m["key"]] = int(value) if value.isdigit() and len(value) <= 12 else value
    if not kernels:
        raise ValueError("the listing's metadata lists no kernels")
    return [_resources(k) for k in kernels]


def _resources(kernel: Any) -> KernelResources:
    if not isinstance(kernel, dict):
        raise ValueError("a kernel's metadata is not a map")

    def number(key: str, default: int | None = None) -> int:
        value = kernel.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"the kernel's {key} is {value!r}, not a count")
        return value

    name = kernel.get(".name")
    if not isinstance(name, str):
        raise ValueError("a kernel's metadata has no .name")
    return KernelResources(
        name=name,
        vgprs=number(".vgpr_count"),
        sgprs=number(".sgpr_count"),
        agprs=number(".agpr_count", 0),
        lds=number(".group_segment_fixed_size"),
        scratch=number(".private_segment_fixed_size"),
        vgpr_spills=number(".vgpr_spill_count", 0),
        sgpr_spills=number(".sgpr_spill_count", 0),
        wave_size=number(".wavefront_size"),
        max_workgroup_size=number(".max_flat_workgroup_size"),
    )


def metadata(hsaco: bytes) -> dict[str, Any]:
    """The decoded ``NT_AMDGPU_METADATA`` note of an HSACO."""
    for name, kind, desc in _notes(hsaco):
        if name == b"AMDGPU" and kind == NT_AMDGPU_METADATA:
            value, end = _Unpacker(desc).value(0, 0)
            if not isinstance(value, dict):
                raise ValueError("the AMDGPU metadata is not a map")
            return value
    raise ValueError("no AMDGPU metadata note (not a code object v3 or later HSACO)")


def _notes(data: bytes):
    """``(owner, type, description)`` of each note in the ELF's SHT_NOTE sections."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian 64-bit ELF file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    if shentsize < 64 or shoff + shnum * shentsize > len(data):
        raise ValueError("the ELF's section headers lie outside it")
    regions = []
    for i in range(shnum):
        kind, _, _, offset, size = struct.unpack_from("<IQQQQ", data, shoff + i * shentsize + 4)
        if kind != _SHT_NOTE or size == 0:
            continue
        if offset + size > len(data):
            raise ValueError("a note section lies outside the file")
        regions.append((offset, offset + size))
    # Note sections never share bytes: 65,535 section headers naming one region of notes would be read
    # 65,535 times over (0.38 MB: 23 s). Apart, each byte is read once.
    regions.sort()
    if any(start < end for (_, end), (start, _) in zip(regions, regions[1:])):
        raise ValueError("note sections overlap")
    for at, end in regions:
        while at + 12 <= end:
            namesz, descsz, note_type = struct.unpack_from("<III", data, at)
            name_at = at + 12
            desc_at = name_at + _align4(namesz)
            at = desc_at + _align4(descsz)
            if at > end:
                raise ValueError("a note runs past its section")
            yield data[name_at : name_at + namesz].rstrip(b"\0"), note_type, data[desc_at : desc_at + descsz]


def _align4(n: int) -> int:
    return (n + 3) & ~3


class _Unpacker:
    """The MessagePack the metadata uses (maps, arrays, strings, integers, booleans; bin, nil and floats
    accepted), every length checked against the bytes left."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def value(self, at: int, depth: int) -> tuple[Any, int]:
        if depth > MAX_DEPTH:
            raise ValueError("the AMDGPU metadata nests too deep")
        tag = self._bytes(at, 1)[0]
        at += 1
        if tag <= 0x7F:
            return tag, at
        if tag >= 0xE0:
            return tag - 0x100, at
        if 0x80 <= tag <= 0x8F:
            return self._map(at, tag & 0x0F, depth)
        if 0x90 <= tag <= 0x9F:
            return self._array(at, tag & 0x0F, depth)
        if 0xA0 <= tag <= 0xBF:
            return self._str(at, tag & 0x1F)
        if tag in _FIXED:
            fmt, size = _FIXED[tag]
            return struct.unpack_from(fmt, self._bytes(at, size))[0], at + size
        if tag in _SIZED:
            kind, size = _SIZED[tag]
            n = int.from_bytes(self._bytes(at, size), "big")
            at += size
            if kind == "str":
                return self._str(at, n)
            if kind == "bin":
                return self._bytes(at, n), at + n
            return (self._map if kind == "map" else self._array)(at, n, depth)
        if tag in (0xC0, 0xC2, 0xC3):
            return {0xC0: None, 0xC2: False, 0xC3: True}[tag], at
        raise ValueError(f"the AMDGPU metadata holds a MessagePack type it never uses (0x{tag:02x})")

    def _bytes(self, at: int, n: int) -> bytes:
        if at + n > len(self.data):
            raise ValueError("the AMDGPU metadata ends early")
        return self.data[at : at + n]

    def _str(self, at: int, n: int) -> tuple[str, int]:
        return self._bytes(at, n).decode("utf-8", "replace"), at + n

    def _array(self, at: int, n: int, depth: int) -> tuple[list, int]:
        if n > len(self.data) - at:  # each item takes a byte at least
            raise ValueError("the AMDGPU metadata claims more items than it holds")
        out = []
        for _ in range(n):
            item, at = self.value(at, depth + 1)
            out.append(item)
        return out, at

    def _map(self, at: int, n: int, depth: int) -> tuple[dict, int]:
        if 2 * n > len(self.data) - at:
            raise ValueError("the AMDGPU metadata claims more items than it holds")
        out: dict[Any, Any] = {}
        for _ in range(n):
            key, at = self.value(at, depth + 1)
            item, at = self.value(at, depth + 1)
            if not isinstance(key, (str, int, bool)) and key is not None:
                raise ValueError("the AMDGPU metadata has a key that is not a name")
            out[key] = item
        return out, at


# tag -> (struct format, bytes) for MessagePack's fixed-size numbers
_FIXED = {
    0xCA: (">f", 4),
    0xCB: (">d", 8),
    0xCC: (">B", 1),
    0xCD: (">H", 2),
    0xCE: (">I", 4),
    0xCF: (">Q", 8),
    0xD0: (">b", 1),
    0xD1: (">h", 2),
    0xD2: (">i", 4),
    0xD3: (">q", 8),
}
# tag -> (what, bytes of its length)
_SIZED = {
    0xC4: ("bin", 1),
    0xC5: ("bin", 2),
    0xC6: ("bin", 4),
    0xD9: ("str", 1),
    0xDA: ("str", 2),
    0xDB: ("str", 4),
    0xDC: ("array", 2),
    0xDD: ("array", 4),
    0xDE: ("map", 2),
    0xDF: ("map", 4),
}
