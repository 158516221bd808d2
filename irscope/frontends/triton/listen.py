"""Every Triton kernel a running program compiles and launches, recorded through Triton's own hooks.

``irscope run`` starts a ``Listener`` inside the user's program (interop/run/hook.py) and
changes nothing else in it:

- ``knobs.compilation.listener`` fires for every ``triton.compile`` (cache hits and
  Inductor's in-process compiles included). The stage files the compile left in
  Triton's cache are copied, byte for byte, with what is needed to compile the
  kernel again: the source file's text, the JIT's specialization (types, 16-byte
  divisibility, constants), constexprs and launch options.
- Per launch: Triton's ``launch_metadata`` seam (what Proton uses), set on each
  JIT function the listener sees, gets the grid and the bound arguments; an
  enter hook (``knobs.runtime.launch_enter_hook``) makes Triton evaluate it. Each
  (compile, grid) pair is counted, and its arguments are described once (dtype,
  shape, stride, 16-byte alignment: never the data).
- At exit, the program's autotuners (``@triton.autotune`` objects in its modules)
  say which config each picked and how long each config took.

Without a GPU, the same program runs with gpu_free.py's stand-in for a card of the
user's choice: each launch compiles through Triton's JIT for that card (and is not
run), so the same records are written as on a GPU, with what the stand-in could not
answer and any launch whose compile failed (``stand_in.json``).

Each compile also records what the kernel reads beyond its file (closure.py: module-level
constexprs, helpers of other modules, libdevice functions by name), so that it can be
rebuilt from the recorded text later, without the program.

What is written here is data for ``irscope run`` (interop/run/collect.py) to read: JSON and
the stage files, one folder per compile, written before the compile returns.
"""

from __future__ import annotations

import hashlib
import json
import linecache
import os
import shutil
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

from ...gpu_models import GpuChoice
from .autotune import jit_of
from .closure import closure_of
from .gpu_free import Probes, describe, gpu_free_import

RECORD = "compile.json"
STAND_IN = "stand_in.json"  # without a GPU: the card stood in for, what it could not answer, what failed
FORMAT = "irscope.triton-compile/1"
# Launch options as the compile's metadata has them: NVIDIA's maxnreg, or the HIP backend's three on ROCm.
OPTION_KEYS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "waves_per_eu", "matrix_instr_nonkdim", "kpack")
# What Triton's cache holds of a compile: NVIDIA's ptx and cubin, or, on ROCm, amdgcn and hsaco.
STAGE_EXTENSIONS = ("source", "ttir", "ttgir", "llir", "ptx", "cubin", "amdgcn", "hsaco", "json")


# What ``irscope run -k NAME --launch-skip N --launch-count M`` asks for, as Nsight Compute's -k/-s/-c do: only the
# kernels NAME matches (its name, or ``regex:PATTERN``), and of their launches, in the program's order, only the M
# after the first N. A compile with no launch in that window is not kept.
ENV_KERNEL = "IRSCOPE_RUN_KERNEL"
ENV_LAUNCH_SKIP = "IRSCOPE_RUN_LAUNCH_SKIP"
ENV_LAUNCH_COUNT = "IRSCOPE_RUN_LAUNCH_COUNT"
# Helion names the Triton kernel it generates for kernel NAME ``_helion_NAME`` (helion/_compiler/generate_ast.py),
# in a module whose host function launches it through ``helion.runtime``'s launcher.
HELION_PREFIX = "_helion_"


class Window:
    """The kernels and launches a run keeps (all of them unless ``irscope run`` was told otherwise)."""

    def __init__(self, kernel: str | None = None, skip: int = 0, count: int | None = None) -> None:
        import re

        self.kernel = kernel
        self.pattern = re.compile(kernel[len("regex:") :]) if kernel and kernel.startswith("regex:") else None
        self.skip, self.count = skip, count
        self.seen = 0  # launches of wanted kernels so far
        self.helion_names: set[str] = set()  # Triton names of the kernels Helion generated (_is_helion)

    @classmethod
    def from_environment(cls) -> Window:
        skip, count = os.environ.get(ENV_LAUNCH_SKIP), os.environ.get(ENV_LAUNCH_COUNT)
        return cls(os.environ.get(ENV_KERNEL) or None, int(skip) if skip else 0, int(count) if count else None)

    @property
    def launches_limited(self) -> bool:
        return self.skip > 0 or self.count is not None

    def wants(self, name: str) -> bool:
        """Is kernel ``name`` (Triton's name for it) one to keep? A Helion kernel's Triton kernel is
        ``_helion_<name>`` (``helion_names``): NAME matches either, its own name being what the run's table and
        session call it, the Triton name what a profiler (ncu, nsys, torch.profiler) shows."""
        if self.kernel is None:
            return True
        names = [name]
        if name in self.helion_names:
            names.append(name[len(HELION_PREFIX) :])
        if self.pattern is not None:
            return any(self.pattern.search(n) for n in names)
        return self.kernel in names

    def next_launch(self) -> bool:
        """Count a launch of a wanted kernel: is it in the window?"""
        index, self.seen = self.seen, self.seen + 1
        return index >= self.skip and (self.count is None or index < self.skip + self.count)


def _write(path: Path, text: str) -> None:
    """Atomically (a reader never sees half a record), with no irscope import: this runs in the user's program."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def jsonable(value: Any) -> Any:
    """A constant as JSON: numbers, strings, booleans and None as they are; anything else by its repr."""
    value = getattr(value, "value", value) if type(value).__name__ == "constexpr" else value
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    return {"repr": repr(value)}


class Listener:
    """Records compiles (as they happen) and launches (counted, written at ``finish``) under ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        (self.directory / "compiles").mkdir(parents=True, exist_ok=True)
        (self.directory / "sources").mkdir(exist_ok=True)
        self.compiles = 0
        self.skipped: list[str] = []  # compiles of IR files rather than Python kernels
        self.sources: dict[str, str] = {}  # kernel file -> its saved copy
        self.launches: dict[tuple[str, tuple[int, ...]], list] = {}  # (compile hash, grid) -> [calls, arguments]
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._seen_functions: set[int] = set()
        self._hashes: set[str] = set()
        self.window = Window.from_environment()
        self._folders: dict[str, Path] = {}  # compile hash -> its record's folder
        self._in_window: set[str] = set()  # compile hashes launched within the window

    # ------------------------------------------------------------------ installing

    def install(self) -> None:
        from triton import knobs  # only inside the program: recorded.py reads this module without triton

        previous = knobs.compilation.listener

        def listener(*, src: Any, metadata: Any, metadata_group: Any, times: Any, cache_hit: bool) -> None:
            try:
                self.compiled(src, metadata, metadata_group, times, cache_hit)
            except Exception as exc:
                self._error(f"a compile was not recorded: {type(exc).__name__}: {exc}")
            if previous is not None:
                previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times, cache_hit=cache_hit)

        knobs.compilation.listener = listener
        knobs.runtime.launch_enter_hook.add(_evaluate_launch_metadata)

    # ------------------------------------------------------------------ compiles

    def compiled(self, src: Any, metadata: Any, group: Any, times: Any, cache_hit: bool) -> None:
        fn = getattr(src, "fn", None)
        if fn is None or not hasattr(fn, "arg_names"):
            self.skipped.append(str(getattr(src, "path", src))[:200])
            return
        if _is_helion(fn):
            self.window.helion_names.add(fn.__name__)
        if not self.window.wants(fn.__name__):
            return
        meta = dict(metadata)
        with self._lock:
            if str(meta.get("hash")) in self._hashes:  # seen already (Inductor's kernels, at exit)
                return
            self._hashes.add(str(meta.get("hash")))
            number = self.compiles
            self.compiles += 1
        folder = self.directory / "compiles" / f"{number:05d}"
        folder.mkdir(parents=True, exist_ok=True)
        self._folders[str(meta.get("hash"))] = folder
        stages = {}
        for filename, path in dict(group).items():
            extension = Path(filename).suffix[1:]
            if filename.startswith("__grp__") or extension not in STAGE_EXTENSIONS:
                continue
            shutil.copyfile(path, folder / f"stage.{extension}")
            stages[extension] = f"stage.{extension}"
        target = meta.get("target")
        names = list(fn.arg_names)
        try:  # what the kernel reads beyond its file, for rebuilding it later without running the program
            closure: dict[str, Any] = closure_of(fn, self._save_file)
        except Exception as exc:
            closure = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        record = {
            "format": FORMAT,
            "frontend": "gluon" if _is_gluon(fn) else "triton",
            "kernel": fn.__name__,
            "file": self._file_of(fn),
            "cache_key": _cache_key(fn),
            "source": self._save_file(self._file_of(fn)),
            "params": names,
            "constexprs": [p.name for p in fn.params if p.is_constexpr],
            "signature": {k: jsonable(v) for k, v in dict(src.signature).items()},
            "constants": {names[k[0]]: _constant(v) for k, v in src.constants.items() if len(k) == 1},
            "divisible": _with_attribute(src.attrs, names, ["tt.divisibility", 16]),
            "options": {k: jsonable(meta.get(k)) for k in OPTION_KEYS if meta.get(k) is not None},
            "hash": str(meta.get("hash")),
            "name": str(meta.get("name") or fn.__name__),
            "shared": jsonable(meta.get("shared")),
            "arch": getattr(target, "arch", None) if not isinstance(target, dict) else target.get("arch"),
            "triton": jsonable(meta.get("triton_version")),
            "cache_hit": bool(cache_hit),
            "compile_us": getattr(times, "total", None),
            "stages": stages,
            "closure": closure,
        }
        # ROCm's JIT marks a tensor whose storage fits in 2 GB (HIPBackend.get_tensor_specialization)
        pointer_range = _with_attribute(src.attrs, names, ["tt.pointer_range", 32])
        if pointer_range:
            record["pointer_range"] = pointer_range
        _write(folder / RECORD, json.dumps(record, indent=1))
        self._watch_launches(fn)

    @staticmethod
    def _file_of(fn: Any) -> str:
        code = getattr(getattr(fn, "fn", None), "__code__", None)
        return code.co_filename if code is not None else "<unknown>"

    def _save_file(self, file: str) -> str | None:
        """The kernel file's text as the program ran it (Triton reads it through ``linecache`` too)."""
        with self._lock:
            if file in self.sources:
                return self.sources[file]
        text = file_text(file)
        if text is None:
            return None
        name = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:24] + ".py"
        if not (self.directory / "sources" / name).exists():
            _write(self.directory / "sources" / name, text)
        with self._lock:
            self.sources[file] = f"sources/{name}"
        return self.sources[file]

    # ------------------------------------------------------------------ launches

    def _watch_launches(self, fn: Any) -> None:
        """Set Triton's per-function ``launch_metadata`` (keeping any the kernel had) to count launches."""
        with self._lock:
            if id(fn) in self._seen_functions:
                return
            self._seen_functions.add(id(fn))
        previous = getattr(fn, "launch_metadata", None)
        launches = self.launches
        window, in_window, lock = self.window, self._in_window, self._lock

        def launch_metadata(grid: Any, metadata: Any, args: dict) -> dict:
            with lock:
                kept = window.next_launch()
                if kept:
                    in_window.add(str(metadata.hash))
            if not kept:
                return previous(grid, metadata, args) if previous is not None else {}
            key = (str(metadata.hash), _grid(grid))
            entry = launches.get(key)
            if entry is None:
                entry = launches.setdefault(key, [0, _arguments(args)])
            entry[0] += 1
            return previous(grid, metadata, args) if previous is not None else {}

        fn.launch_metadata = launch_metadata

    # ------------------------------------------------------------------ at exit

    def finish(self) -> None:
        """Write the launch counts and the autotuners' picks (compiles are already on disk); with a launch window,
        the compiles none of whose launches fell in it are taken back out."""
        if self.window.launches_limited:
            for hash_, folder in list(self._folders.items()):
                if hash_ not in self._in_window:
                    shutil.rmtree(folder, ignore_errors=True)
        launches = [
            {"hash": h, "grid": list(g), "calls": calls, "arguments": args}
            for (h, g), (calls, args) in list(self.launches.items())
        ]
        _write(self.directory / "launches.json", json.dumps(launches, indent=1))
        self._write_autotuners()
        if self.skipped or self.errors:
            _write(self.directory / "listener.json", json.dumps({"skipped": self.skipped, "errors": self.errors}))

    def _write_autotuners(self) -> None:
        _write(self.directory / "autotuners.json", json.dumps(autotuner_picks(), indent=1))

    def _error(self, message: str) -> None:
        if len(self.errors) < 20:
            self.errors.append(message[:500])


class GpuFreeListener(Listener):
    """Without a GPU: a stand-in for the card of the user's choice answers (gpu_free.py), each launch compiles
    through Triton's JIT for that card as it would on it (and is not run), and is recorded as on a GPU."""

    def __init__(self, directory: Path, gpu: GpuChoice) -> None:
        super().__init__(directory)
        self.gpu = gpu
        self.probes = Probes()
        self.failed: list[dict[str, Any]] = []
        self._scope: Any = None
        self._launched: list = []

    def install(self) -> None:
        self._scope = gpu_free_import(self.gpu, compile_launches=True, probes=self.probes, failed=self._failed)
        self._launched = self._scope.__enter__()  # left for the life of the program
        super().install()

    def _name_of(self, hash_: str) -> str:
        """The kernel a kept compile is of (from its record)."""
        try:
            return str(json.loads((self._folders[hash_] / RECORD).read_text(encoding="utf-8"))["kernel"])
        except (OSError, KeyError, ValueError):
            return ""

    def _failed(self, kernel: str, file: str | None, exc: Exception, benchmark: bool) -> None:
        if not self.window.wants(kernel):
            return
        if len(self.failed) < 200:
            self.failed.append({"kernel": kernel, "file": file, "error": _why(exc)[:500], "benchmark": benchmark})

    def finish(self) -> None:
        super().finish()
        model = self.gpu.model
        kept = {self._name_of(h) for h in self._in_window} if self.window.launches_limited else None
        launched = sorted(
            {
                (launch.kernel, launch.file or "")
                for launch in list(self._launched)
                if self.window.wants(launch.kernel) and (kept is None or launch.kernel in kept)
            }
        )
        report = {
            "gpu": self.gpu.spelled(),
            "name": model.name,
            "arch": model.arch,
            "count": self.gpu.count,
            "unanswered": dict(self.probes.unanswered),
            "launched": [{"kernel": k, "file": f} for k, f in launched],
            "failed": self.failed,
        }
        _write(self.directory / STAND_IN, json.dumps(report, indent=1))


def file_text(file: str) -> str | None:
    """A kernel file's text as the program ran it: through ``linecache``, as Triton reads it; None if unread."""
    text = "".join(linecache.getlines(file))
    if text:
        return text
    try:
        return Path(file).read_text(encoding="utf-8")
    except OSError:
        return None


def _why(exc: Exception) -> str:
    """A failed compile in one line: Triton's own message for a frontend error (its first line only says where)."""
    message = getattr(exc, "error_message", None)
    node: Any = getattr(exc, "node", None)
    if isinstance(message, str) and message:
        where = f"at {node.lineno}:{node.col_offset} of the def: " if hasattr(node, "lineno") else ""
        return f"{type(exc).__name__}: {where}{message.strip().splitlines()[0]}"
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[-1] if lines else ''}"


def _is_helion(fn: Any) -> bool:
    """The Triton kernel Helion generated for one of its kernels: named ``_helion_<name>``, in a module that uses
    Helion's runtime (its launcher, ``from helion.runtime import default_launcher``). A Triton kernel of the
    user's own named so is not one."""
    if not fn.__name__.startswith(HELION_PREFIX):
        return False
    try:
        namespace = getattr(fn.fn, "__globals__", None) or {}
        return any(
            str(getattr(value, "__module__", None) or getattr(value, "__name__", "")).partition(".")[0] == "helion"
            for value in list(namespace.values())
            if callable(value) or type(value).__name__ == "module"
        )
    except Exception:  # the program's own objects: whatever they do when asked, not Helion's
        return False


def _is_gluon(fn: Any) -> bool:
    """A ``@gluon.jit`` function (Triton compiles both languages through this listener)."""
    try:
        return fn.is_gluon() is True
    except Exception:
        return False


def _constant(value: Any) -> Any:
    """A constant as JSON; a Gluon layout as ``{"layout": its text}`` (gluon/layouts.py: what ``-c`` takes)."""
    module = type(value).__module__ or ""
    if module.startswith("triton.experimental.gluon"):
        from ..gluon.layouts import is_layout, layout_text

        if is_layout(value):
            return {"layout": layout_text(value)}
    return jsonable(value)


def _with_attribute(attrs: Any, names: list[str], attribute: list) -> list[str]:
    """The parameters the compile's ``attrs`` give ``attribute`` (``["tt.divisibility", 16]``), by name."""
    return sorted(names[k[0]] for k, v in dict(attrs).items() if len(k) == 1 and attribute in [list(a) for a in v])


def _cache_key(fn: Any) -> str | None:
    """The JIT's hash of the function and what it calls: the identity irscope gives a kernel."""
    try:
        return str(fn.cache_key)
    except Exception:
        return None


def _evaluate_launch_metadata(metadata: Any) -> None:
    """Triton builds launch metadata lazily; evaluating it calls each kernel's ``launch_metadata``."""
    if metadata is not None:
        metadata.get()


def _grid(grid: Any) -> tuple[int, ...]:
    try:
        dims = [int(g) for g in grid]
    except TypeError:
        dims = [int(grid)]
    return tuple(dims + [1] * (3 - len(dims)))


def _arguments(args: dict) -> dict[str, Any]:
    out = {}
    for name, value in args.items():
        described = describe(value)
        out[name] = described.to_json() if hasattr(described, "to_json") else jsonable(described)
    return out


def autotuner_picks() -> list[dict[str, Any]]:
    """What each ``@triton.autotune`` object in the program's modules picked, and its timings per config."""
    module = sys.modules.get("triton.runtime.autotuner")
    if module is None:
        return []
    found: dict[int, Any] = {}
    with warnings.catch_warnings():  # a deprecated module attribute warns when looked at
        warnings.simplefilter("ignore")
        for mod in list(sys.modules.values()):
            for value in list(getattr(mod, "__dict__", {}).values()):
                if isinstance(value, module.Autotuner) and id(value) not in found:
                    found[id(value)] = value
    out = []
    for tuner in found.values():
        try:
            jit = jit_of(tuner)
            timings = getattr(tuner, "configs_timings", None) or {}
            out.append(
                {
                    "kernel": jit.__name__,
                    "file": Listener._file_of(jit),
                    "configs": [_config(c) for c in tuner.configs],
                    "picked": [_config(c) for c in tuner.cache.values()],
                    "timings": [
                        {"config": _config(c), "ms": jsonable(t if isinstance(t, (list, tuple)) else [t])}
                        for c, t in timings.items()
                    ],
                }
            )
        except Exception as exc:
            out.append({"error": f"{type(exc).__name__}: {exc}"[:300]})
    return out


def _config(config: Any) -> dict[str, Any]:
    """A ``triton.Config`` as the values a variant's config holds: its kwargs and launch options."""
    values = {k: jsonable(v) for k, v in dict(config.kwargs).items()}
    for key in OPTION_KEYS:
        value = getattr(config, key, None)
        if value is not None:
            values[key] = jsonable(value)
    return values


__all__ = ["FORMAT", "RECORD", "STAND_IN", "GpuFreeListener", "Listener", "autotuner_picks", "jsonable"]
