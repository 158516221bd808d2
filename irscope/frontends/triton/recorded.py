"""What listen.py recorded in a program, read back as data: kernels, configs and the JIT's own compiles.

Everything here is read as data: the records are checked field by field, paths
they name must stay inside the run's folder (``storage.files.contained``), and a kernel is
rebuilt from the recorded source text (rebuild.py: nothing of the text runs),
never imported. A record that does not read is skipped with a reason; the others
go on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...arch import DEFAULT_CAPABILITY, Target, arch_name, recorded_arch
from ...errors import IrscopeError, SessionError
from ...stages import Stage
from ...storage.files import contained, parse_json, read_bytes, read_json, read_text
from ...types import Config
from .autotune import distinct
from .compile import BINARIES, STAGES, _Result
from .kernel import TritonKernel
from .listen import FORMAT, RECORD
from .options import AMD_OPTION_DEFAULTS
from .rebuild import rebuilt_def, rebuilt_kernel
from .signature import SignatureArg, is_type

# Options a launch always has; swept (and shown) only where some compile set them otherwise.
QUIET_OPTIONS = {"num_ctas": (1,), "maxnreg": (None,), **{k: (v,) for k, v in AMD_OPTION_DEFAULTS.items()}}
INDUCTOR_MARK = "from torch._inductor.runtime import triton_helpers"
MAX_LAYOUT_TEXT = 4000  # characters, as gluon/layouts.py reads


@dataclass
class Recorded:
    """One specialization of one kernel the program's JIT compiled (on its GPU, or on the stand-in for one)."""

    kernel: str
    file: str
    source: str | None  # the text of the kernel's file, as the program ran it
    signature: dict[str, Any]  # param -> Triton type, or "constexpr" (a constexpr, or an int equal to 1)
    constants: dict[str, Any]
    divisible: tuple[str, ...]
    options: dict[str, Any]
    arch: str | None  # "sm_90", "gfx942": what the compile was for (None: the record does not say)
    hash: str | None = None  # Triton's compile hash (what launches name)
    name: str | None = None  # the GPU kernel's name
    folder: Path | None = None  # the copied stage files of a compile on the GPU
    stages: dict[str, str] = field(default_factory=dict)
    cache_hit: bool | None = None
    params: list[str] | None = None  # the kernel's parameters, and which are constexprs (as the JIT saw them)
    constexprs: list[str] | None = None
    cache_key: str | None = None  # the JIT's hash of the function and its dependencies
    pointer_range: tuple[str, ...] = ()  # ROCm: the pointers the JIT found within 2 GB ('tt.pointer_range': 32)
    frontend: str = "triton"  # or "gluon": a @gluon.jit function (its layout constants kept as their text)
    # What the kernel reads beyond its file, as the program recorded it (closure.py), with the texts read back:
    # {"texts": {file: text}, "scopes": {...}}; None where nothing was recorded or it did not read.
    closure: dict[str, Any] | None = None

    @property
    def inductor(self) -> bool:
        return self.source is not None and INDUCTOR_MARK in self.source

    @property
    def target(self) -> Target:
        """What the program's JIT compiled for, on its own GPU (sm_90 where the record does not say)."""
        return Target.recorded(self.arch or arch_name(DEFAULT_CAPABILITY))


def read_compiles(raw: Path) -> tuple[list[Recorded], list[str]]:
    """Every compile recorded under ``raw/compiles`` (in order), and a reason for each one skipped."""
    out: list[Recorded] = []
    skipped: list[str] = []
    folder = raw / "compiles"
    if not folder.is_dir():
        return out, skipped
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        try:
            sub = contained(raw, Path("compiles") / sub.name)  # a linked record folder may not lead out of raw/
            data = read_json(contained(sub, RECORD))
            record = _record(raw, data)
            record.folder = sub
            record.stages = {
                k: v for k, v in _mapping(data, "stages").items() if isinstance(k, str) and isinstance(v, str)
            }
            record.hash = _text(data.get("hash"))
            record.name = _text(data.get("name"))
            record.cache_hit = bool(data.get("cache_hit"))
            record.params, record.constexprs = _names(data.get("params")), _names(data.get("constexprs"))
            record.cache_key = _text(data.get("cache_key"))
            record.closure = _closure(raw, data.get("closure"))
            out.append(record)
        except (IrscopeError, ValueError, TypeError) as exc:
            skipped.append(f"{sub.name}: {exc}")
    return out, skipped


def _record(raw: Path, data: Any) -> Recorded:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a record of format {FORMAT}")
    source_path = data.get("source")
    source = read_text(contained(raw, source_path)) if isinstance(source_path, str) else None
    divisible, pointer_range = (data.get(key) or [] for key in ("divisible", "pointer_range"))
    for key, names in (("divisible", divisible), ("pointer_range", pointer_range)):
        if not isinstance(names, list) or not all(isinstance(d, str) for d in names):
            raise ValueError(f"{key!r} must be a list of names")
    try:
        arch = recorded_arch(data.get("arch"))  # Triton's GPUTarget.arch: 90, or "gfx942" on ROCm
    except ValueError as exc:
        raise ValueError(f"the compile {exc}") from None
    return Recorded(
        kernel=_name(data.get("kernel")),
        file=str(data.get("file") or "<unknown>"),
        source=source,
        signature={k: v for k, v in _mapping(data, "signature").items() if isinstance(k, str)},
        constants={k: _constant(v) for k, v in _mapping(data, "constants").items() if isinstance(k, str)},
        divisible=tuple(divisible),
        options={k: v for k, v in _mapping(data, "options").items() if isinstance(v, int) and not isinstance(v, bool)},
        arch=arch,
        pointer_range=tuple(pointer_range),
        frontend=_frontend(data.get("frontend")),
    )


def _frontend(value: Any) -> str:
    if value is None:
        return "triton"  # a record written before Gluon was told apart
    if value not in ("triton", "gluon"):
        raise ValueError(f"frontend {str(value)[:40]!r} is neither triton nor gluon")
    return str(value)


def _constant(value: Any) -> Any:
    """A recorded constant; a Gluon layout (``{"layout": text}``) as its text, which only Gluon's layout reader
    (gluon/layouts.py: literal calls of Triton's layout classes) ever turns into a layout, when compiling."""
    if isinstance(value, dict) and set(value) == {"layout"}:
        text = value["layout"]
        if not isinstance(text, str) or len(text) > MAX_LAYOUT_TEXT:
            raise ValueError("a recorded layout is not text of a layout's length")
        return text
    return value


def _closure(raw: Path, data: Any) -> dict[str, Any] | None:
    """A recorded closure with each file's text read from the run's ``sources/`` (never from outside ``raw/``).

    Its bindings stay data: rebuild.py checks them where the kernel is rebuilt. A text that does not
    read leaves the closure out: the rebuild then says which name it could not resolve.
    """
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("files"), dict)
        or not isinstance(data.get("scopes"), dict)
    ):
        return None
    texts = {}
    for file, relative in data["files"].items():
        if not isinstance(file, str) or not isinstance(relative, str):
            return None
        try:
            texts[file] = read_text(contained(raw, relative))
        except IrscopeError:
            return None
    return {"texts": texts, "scopes": data["scopes"]}


def _mapping(data: dict, key: str) -> dict:
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise ValueError(f"{key!r} must be an object")
    return value


def _names(value: Any) -> list[str] | None:
    return list(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value.isidentifier():
        raise ValueError(f"kernel name {value!r} is not an identifier")
    return value


# ------------------------------------------------------------------ kernels, configs, compiles


def kernel_of(record: Recorded, kind: type[TritonKernel] = TritonKernel) -> TritonKernel:
    """The recorded kernel, rebuilt from the recorded text with the recorded specialization as its signature
    (``kind``: GluonKernel for a Gluon record; its caller, which may import both frontends, says)."""
    if record.source is None:
        raise SessionError(f"{record.kernel}: the run kept no source for {record.file}")
    closure = record.closure
    fn = rebuilt_def(record.source, record.file, record.kernel, inductor=record.inductor, closure=closure)
    if fn is None:
        raise SessionError(f"{record.kernel} is not a @triton.jit def of {record.file} as recorded")
    return rebuilt_kernel(
        record.source,
        record.file,
        record.kernel,
        signature_of(record, fn),
        inductor=record.inductor,
        recorded_heuristics=True,
        closure=closure,
        kind=kind,
    )


def signature_of(record: Recorded, fn: Any = None) -> tuple[SignatureArg, ...]:
    """Each parameter as the JIT specialized it: constexprs left to the config, 1s as constants, types with hints.

    The parameters are ``fn``'s, or the record's own where it has them (a compile on a GPU).
    """
    if fn is not None:
        params = [(p.name, p.is_constexpr) for p in fn.params]
    elif record.params is not None and record.constexprs is not None:
        params = [(name, name in record.constexprs) for name in record.params]
    else:
        raise SessionError(f"{record.kernel}: the record does not say which parameters are constexprs")
    out = []
    for name, is_constexpr in params:
        ty = record.signature.get(name)
        if is_constexpr:
            out.append(SignatureArg(None))
        elif ty == "constexpr":  # an int equal to 1 (or None) the JIT made a constant
            out.append(SignatureArg(None, None, record.constants.get(name)))
        elif isinstance(ty, str) and is_type(ty):
            in_range = 32 if name in record.pointer_range and ty.startswith("*") else None
            out.append(SignatureArg(ty, 16 if name in record.divisible else None, pointer_range=in_range))
        else:
            raise SessionError(
                f"{record.kernel}: argument {name} was specialized as {ty!r}, which irscope "
                "cannot compile from a signature (a tuple or a custom type)"
            )
    return tuple(out)


def config_of(record: Recorded, constexpr_names: list[str]) -> Config:
    """The config the program compiled: its constexprs' values and its launch options."""
    constexprs = {name: record.constants.get(name) for name in constexpr_names}
    options = {k: v for k, v in record.options.items() if v not in QUIET_OPTIONS.get(k, ())}
    return Config(constexprs, options, {})


def parameter_table(kernel: TritonKernel | None, configs: list[Config]) -> dict[str, dict[str, Any]]:
    """The kernel's table with the recorded configs as its sweep: exactly those, as an autotuner's list is."""
    table = kernel.parameter_table() if kernel is not None else {}
    columns: dict[str, tuple[str, list]] = {}
    for kind, part in (("constexpr", "constexprs"), ("option", "options")):
        for name in {n for c in configs for n in getattr(c, part)}:
            columns[name] = (kind, [getattr(c, part).get(name, table.get(name, {}).get("default")) for c in configs])
    for name, (kind, column) in columns.items():
        table[name] = {
            "default": column[0],
            "sweep": distinct(column),
            "kind": kind,
            **({"configs": column} if len(configs) > 1 else {}),
            **({"none": True} if kind == "constexpr" and column[0] is None else {}),  # the program passed None
        }
    return table


def compiled_of(record: Recorded, names: dict[str, Stage] | None = None) -> Any:
    """What the program's JIT compiled, from the copied stage files, as a frontend-neutral ``Compiled``
    (``names``: Triton's asm keys -> stages, the kernel's frontend's; Triton's by default)."""
    if record.folder is None:
        raise SessionError(f"{record.kernel}: no compile was recorded")
    asm: dict[str, Any] = {}
    for ext in (*(names or STAGES), *BINARIES):
        if ext in record.stages:
            path = contained(record.folder, record.stages[ext])
            asm[ext] = read_bytes(path) if ext in BINARIES else read_text(path)
    metadata = {}
    if "json" in record.stages:
        path = contained(record.folder, record.stages["json"])
        data = parse_json(read_text(path), str(path))
        metadata = data if isinstance(data, dict) else {}
    return compiled_from(record, asm, metadata, names)


def compiled_from(
    record: Recorded, asm: dict[str, Any], metadata: dict[str, Any], names: dict[str, Stage] | None = None
) -> Any:
    """A compile's stages (``asm``, Triton's keys) and metadata as a ``Compiled``; ptxas reports on the PTX,
    the HSACO's metadata note on an AMD compile."""
    for key in ("num_warps", "num_stages", "num_ctas", "shared"):  # Triton's own are ints; a record is data
        value = metadata.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 31):
            raise SessionError(f"{record.kernel}: the recorded compile's {key} is {str(value)[:40]!r}, not a count")
    result = _Result(asm=asm, metadata=metadata, names=dict(names or STAGES))
    result.signature = {k: v for k, v in record.signature.items() if isinstance(v, str) and v != "constexpr"}
    result.divisible_by_16 = record.divisible
    target = record.target
    return result.compiled(target.gfx or target.nvidia_capability())


__all__ = [
    "Recorded",
    "compiled_from",
    "compiled_of",
    "config_of",
    "kernel_of",
    "parameter_table",
    "read_compiles",
    "signature_of",
]
