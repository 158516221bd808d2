"""Why a Triton load or store could not be vectorised: which kernel arguments its address and mask are
built from, and what the compiler could not assume about each, read from the TTIR's own dataflow.

A vector access needs a thread's elements to be contiguous (the index that varies across them is
scaled by 1) and their first address 16-byte aligned (base pointer, uniform offsets and the mask's
bound multiples of 16 bytes). An argument reaches the address in one of three roles:

- ``base``: the pointer the access starts from: not known 16-byte aligned unless specialised;
- ``stride``: multiplied by the per-element index (``offs * stride_x``): unless the compiler knows it is
  1, a thread's elements are not known to be contiguous, whatever its divisibility;
- ``offset``: added uniformly (``row * stride``, ``pid * n``), or a mask's bound (``offs < n``): not known
  to keep 16-byte runs unless known to be a multiple of 16.

Float scalars never reach an address, so they are never blamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# tt.func public @k(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc(...), %n: i32 loc(...), ...)
FUNC = re.compile(r"tt\.func\b[^(]*\((?P<args>.*)\)\s*(?:attributes|\{)")
ARG = re.compile(r"(%[\w$.-]+)\s*:\s*([^{,]+?)\s*(\{[^}]*\})?\s*loc\(")
# %cst = arith.constant dense<4> : tensor<64xi32, #blocked>      %c4_i32 = arith.constant 4 : i32
CONSTANT = re.compile(r"^\s*(%[\w$.-]+)\s*=\s*arith\.constant\s+(?:dense<)?(-?\d+)(?:\s*:|>)")
# %x_6 = tt.addptr %x_5, %x_4 : ...        %x:2 = ...
DEF = re.compile(r"^\s*(%[\w$.-]+)(?::\d+)?\s*=\s*([\w.]+)\s*(.*)$")
NAME = re.compile(r"%[\w$.-]+")
MEMORY = re.compile(r"^\s*(?:(%[\w$.-]+)\s*=\s*)?tt\.(load|store)\s+(.*)$")
# scf.for %k = ... iter_args(%acc = %cst, %a_ptrs_47 = %a_ptrs) -> (...)
ITER_ARGS = re.compile(r"iter_args\(([^)]*)\)")
TENSOR = re.compile(r"tensor<((?:\d+x)+)")
AXIS = re.compile(r"axis = (\d+)")
ITER_ARG = re.compile(r"(%[\w$.-]+)\s*=\s*(%[\w$.-]+)")
FOLLOW = (
    "tt.splat",
    "tt.broadcast",
    "tt.expand_dims",
    "tt.reshape",
    "tt.trans",
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
    "arith.index_cast",
    "ttg.convert_layout",
    "tt.bitcast",
    "tt.int_to_ptr",
)


@dataclass(frozen=True)
class Argument:
    name: str  # without the %
    type: str  # "!tt.ptr<f32>", "i32"
    divisible_by_16: bool

    @property
    def pointer(self) -> bool:
        return "ptr" in self.type


@dataclass(frozen=True)
class AccessReasons:
    op: str  # load or store
    line: int  # 0-based line of the TTIR (the source map gives its Python line)
    base: tuple[str, ...]  # pointer arguments not known 16-byte aligned
    strides: tuple[str, ...]  # integer arguments scaling the per-element index
    offsets: tuple[str, ...]  # integer arguments added uniformly or bounding the mask, not known multiples of 16
    constant_strides: tuple[int, ...] = ()  # constants other than 1 scaling the per-element index
    elements: int = 0  # elements the access covers (0: a scalar)
    ranges: tuple[int, ...] = ()  # TTIR lines of the tt.make_range ops its address is built from
    loaded: tuple[str, ...] = ()  # roles (base, stride, offset, bound) of values read from memory by a tl.load

    def words(self) -> str:
        """The reasons in plain words, with what to try; "" when the address is fully known."""
        parts = []
        if self.constant_strides:
            k = ", ".join(map(str, self.constant_strides))
            parts.append(
                f"the element index along the contiguous dimension is multiplied by the constant {k}, so a "
                f"thread's elements are {k} elements apart in memory: not contiguous, and no alignment or "
                "size makes them one wide access"
            )
            return "; ".join(parts)
        if self.strides:
            names = ", ".join(self.strides)
            parts.append(
                f"{names} multiplies the element index and is not known to be 1, so a thread's elements are "
                f"not known to be contiguous. If it is 1 when the kernel runs, Triton's JIT compiles that "
                f"case with {names}=1 as a constant (an int argument equal to 1 is specialised); here, "
                f"declare it 1 in the signature, or make it a tl.constexpr"
            )
        if self.loaded:
            what = " and ".join(
                {"base": "base pointer", "stride": "stride", "offset": "offset", "bound": "mask bound"}.get(r, r)
                for r in self.loaded
            )
            parts.append(
                f"its {what} {'is' if len(self.loaded) == 1 else 'are'} read from memory by a tl.load, so "
                "nothing is known of alignment or divisibility (tl.multiple_of on the pointers built from them "
                "says what holds)"
            )
        if self.base:
            parts.append(
                f"{', '.join(self.base)} {'is' if len(self.base) == 1 else 'are'} not known to be 16-byte "
                "aligned (pass 16-byte aligned tensors, which the JIT marks divisible by 16, or state it with "
                "tl.multiple_of where it holds)"
            )
        if self.offsets:
            parts.append(
                f"{', '.join(self.offsets)} {'is' if len(self.offsets) == 1 else 'are'} not known to be a "
                "multiple of 16 (an offset or mask bound that may split 16-byte runs; pad sizes and strides to "
                "multiples of 16, or say what holds with tl.multiple_of)"
            )
        return "; ".join(parts)


def access_reasons(ttir: str) -> list[AccessReasons]:
    """For each tt.load / tt.store of the TTIR, in order, the arguments that keep it from being a vector access."""
    lines = ttir.splitlines()
    args: dict[str, Argument] = {}
    for line in lines:
        m = FUNC.search(line)
        if m:
            for name, ty, attrs in ARG.findall(m["args"]):
                args[name] = Argument(name[1:], ty.strip(), bool(attrs and "tt.divisibility = 16" in attrs))
            break
    defs, shapes = _definitions(lines)
    constants = {m[1]: int(m[2]) for line in lines if (m := CONSTANT.match(line))}
    defined_at = {m[1]: n for n, line in enumerate(lines) if (m := DEF.match(line))}
    out = []
    for index, line in enumerate(lines):
        m = MEMORY.match(line)
        if not m:
            continue
        operands = NAME.findall(m[3].split(" : ", 1)[0])
        if not operands:
            continue
        pointer = operands[0]
        mask = (
            operands[2]
            if m[2] == "store" and len(operands) > 2
            else operands[1]
            if m[2] == "load" and len(operands) > 1
            else None
        )
        roles: dict[str, set[str]] = {}
        roles["#constant strides"] = set()
        _walk(pointer, "address", defs, shapes, args, roles, 0)
        if mask is not None:
            _walk(mask, "mask", defs, shapes, args, roles, 0)
        base = tuple(
            a.name for n, a in args.items() if a.pointer and "base" in roles.get(n, ()) and not a.divisible_by_16
        )
        strides = tuple(a.name for n, a in args.items() if not a.pointer and "stride" in roles.get(n, ()))
        offsets = tuple(
            a.name
            for n, a in args.items()
            if not a.pointer
            and roles.get(n, set()) & {"offset", "bound"}
            and "stride" not in roles[n]
            and not a.divisible_by_16
        )
        constant_strides = tuple(
            sorted({constants[x] for x in roles["#constant strides"] if x in constants and constants[x] != 1})
        )
        tensors = TENSOR.findall(line.split(" : ", 1)[1] if " : " in line else "")
        elements = 0
        if tensors:
            elements = 1
            for d in tensors[-1].rstrip("x").split("x"):
                elements *= int(d)
        ranges = tuple(sorted(defined_at[x] for x in roles.get("#ranges", ()) if x in defined_at))
        loaded = tuple(r for r in ("base", "stride", "offset", "bound") if r in roles.get("#loaded", ()))
        out.append(AccessReasons(m[2], index, base, strides, offsets, constant_strides, elements, ranges, loaded))
    return out


def _definitions(lines: list[str]) -> tuple[dict[str, tuple[str, list[str]]], dict[str, tuple[int, int]]]:
    """Each SSA name's defining op and operands, and its (rank, expand_dims axis or -1)."""
    defs: dict[str, tuple[str, list[str]]] = {}
    shapes: dict[str, tuple[int, int]] = {}
    for line in lines:
        m = DEF.match(line)
        if m:
            body = m[3].split(" : ", 1)[0]
            defs[m[1]] = (m[2], NAME.findall(body))
            tensors = TENSOR.findall(line)
            axis = AXIS.search(line)
            shapes[m[1]] = (len(tensors[-1].split("x")) - 1 if tensors else 0, int(axis[1]) if axis else -1)
        found = ITER_ARGS.search(line) if "iter_args(" in line else None
        for carried, initial in ITER_ARG.findall(found[1] if found else ""):
            defs[carried] = ("tt.splat", [initial])  # a loop-carried value starts as its initial value
    return defs, shapes


def tile_loads(ttir: str) -> tuple[int, int]:
    """(tile loads, gathers) among the TTIR's tt.loads: a tile load reads a block of rank 2 or more whose
    addresses come from arguments and ranges only; a gather's address depends on another load's result
    (indices read from memory), which no tensor descriptor can describe."""
    lines = ttir.splitlines()
    defs, shapes = _definitions(lines)
    tiles = gathers = 0
    for line in lines:
        m = MEMORY.match(line)
        if not m or m[2] != "load":
            continue
        operands = NAME.findall(m[3].split(" : ", 1)[0])
        if not operands:
            continue
        if _reaches_a_load(operands[0], defs, set()):
            gathers += 1
        elif m[1] and shapes.get(m[1], (0, -1))[0] >= 2:
            tiles += 1
    return tiles, gathers


def _reaches_a_load(name: str, defs, seen: set[str]) -> bool:
    if name in seen or name not in defs or len(seen) > 2000:
        return False
    seen.add(name)
    op, operands = defs[name]
    return op == "tt.load" or any(_reaches_a_load(x, defs, seen) for x in operands)


def _varying(name: str, defs, shapes, depth: int = 0) -> frozenset[int]:
    """The dimensions along which ``name`` differs from element to element (it derives from tt.make_range)."""
    if depth > 40 or name not in defs:
        return frozenset()
    op, operands = defs[name]
    if op == "tt.make_range":
        return frozenset({0})
    inner = frozenset().union(*(_varying(x, defs, shapes, depth + 1) for x in operands)) if operands else frozenset()
    if op == "tt.expand_dims":
        axis = shapes.get(name, (0, -1))[1]
        return frozenset(d + 1 if d >= axis >= 0 else d for d in inner)
    return inner


def _walk(name: str, role: str, defs, shapes, args, roles: dict[str, set[str]], depth: int) -> None:
    """Record the role in which each argument reaches ``name`` (an address, an offset, a mask)."""
    if depth > 40:
        return
    if name in args:
        if role == "address":
            role = "base" if args[name].pointer else "offset"
        roles.setdefault(name, set()).add(role)
        return
    if name not in defs:
        return
    op, operands = defs[name]
    step = depth + 1
    if op == "tt.make_range":
        roles.setdefault("#ranges", set()).add(name)
    elif op == "tt.load":  # a pointer or an integer the kernel reads from memory: nothing known of it
        roles.setdefault("#loaded", set()).add("base" if role == "address" else role)
    elif op in FOLLOW:
        for x in operands[:1]:
            _walk(x, role, defs, shapes, args, roles, step)
    elif op == "tt.addptr" and len(operands) >= 2:
        _walk(operands[0], role, defs, shapes, args, roles, step)
        _walk(operands[1], "offset" if role == "address" else role, defs, shapes, args, roles, step)
    elif op == "arith.muli" and len(operands) >= 2:
        last = shapes.get(name, (0, -1))[0] - 1  # the fastest-varying dimension: contiguous in memory
        for x, other in ((operands[0], operands[1]), (operands[1], operands[0])):
            # a factor of the index along the last dimension is that dimension's stride; of anything else
            # (a row index, a program id) it is an offset whose divisibility keeps rows aligned
            fast = last >= 0 and last in _varying(other, defs, shapes)
            if fast and role in ("address", "offset") and x not in args:
                roles.setdefault("#constant strides", set()).update(_constant_names(x, defs))
            _walk(x, "stride" if fast else ("offset" if role == "address" else role), defs, shapes, args, roles, step)
    elif op == "arith.cmpi":
        for x in operands:
            _walk(x, "bound", defs, shapes, args, roles, step)
    elif op in ("arith.addi", "arith.subi", "arith.andi", "arith.ori", "arith.select", "arith.remsi", "arith.divsi"):
        for x in operands:
            _walk(x, "offset" if role == "address" else role, defs, shapes, args, roles, step)


def _constant_names(name: str, defs) -> set[str]:
    """``name``, or the value it splats or broadcasts, where that is an ``arith.constant``."""
    for _ in range(4):
        op, operands = defs.get(name, ("", []))
        if op == "arith.constant":
            return {name}
        if op not in FOLLOW or not operands:
            return set()
        name = operands[0]
    return set()


def combined(reasons: list[AccessReasons]) -> AccessReasons:
    """The reasons of several accesses as one: each argument named once, in order."""

    def union(field: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(name for r in reasons for name in getattr(r, field)))

    ops = {r.op for r in reasons}
    return AccessReasons(
        ops.pop() if len(ops) == 1 else "access",
        -1,
        union("base"),
        union("strides"),
        union("offsets"),
        tuple(sorted({k for r in reasons for k in r.constant_strides})),
        max((r.elements for r in reasons), default=0),
        tuple(sorted({n for r in reasons for n in r.ranges})),
        tuple(dict.fromkeys(x for r in reasons for x in r.loaded)),
    )
