"""A Numba CUDA kernel: a ``@cuda.jit`` function, its argument types, and its compile to PTX and a cubin."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from ...arch import Target
from ...errors import IrscopeError, KernelFileError, KernelNotFound, ParameterError, exception_line
from ...stages import Stage
from ...types import CaptureError, Config, KernelId
from ..base import Compiled, Kernel, KernelHandle, choose_kernel
from ..cuda.tokens import flag_values

JIT_SPELLINGS = {"cuda.jit", "numba.cuda.jit", "jit"}
# name -> (default, default sweep): fastmath is Numba's own flag; the other two go to ptxas.
FLAGS: dict[str, tuple[Any, list[Any]]] = {
    "fast_math": (False, [False, True]),
    "maxrregcount": (0, [0]),
    "opt": (3, [3]),
}
SIGNATURE_HELP = (
    'Numba types, e.g. -S "float32[:], float32[:], int32" (a void kernel\'s arguments), '
    'or a signature string in the decorator: @cuda.jit("void(float32[:], float32[:], int32)")'
)


def _decorated(node: ast.FunctionDef) -> tuple[bool, str | None]:
    """Is ``node`` a ``@cuda.jit`` function, and the signature string its decorator gives, if any."""
    for decorator in node.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call else decorator
        spelled = ast.unparse(target)
        if spelled in JIT_SPELLINGS:
            sig = None
            if call and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
                sig = call.args[0].value
            return True, sig
    return False, None


def _jit_defs(path: Path) -> dict[str, tuple[ast.FunctionDef, str | None]]:
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, str(path))
    except (OSError, UnicodeDecodeError, SyntaxError):
        return {}
    if "cuda" not in text:  # a Triton file: nothing to look at
        return {}
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            is_jit, sig = _decorated(node)
            if is_jit:
                out[node.name] = (node, sig)
    return out


def cuda_jit_names(path: Path) -> list[str]:
    """The file's ``@cuda.jit`` functions, in order, found without importing it."""
    return list(_jit_defs(path))


class NumbaKernel(Kernel):
    frontend = "numba"
    stages = (Stage.PTX, Stage.SASS)

    def __init__(self, file: str, name: str, signature: str, text: str) -> None:
        self.file = file
        self.name = name
        self.signature = signature  # Numba's: "void(float32[:], float32[:], int32)"
        self._text = text
        self._function: Any = None
        self._spec: Any = False  # not looked for yet

    def __repr__(self) -> str:
        return f"NumbaKernel({self.name!r}, {self.file!r})"

    def source(self) -> str:
        return self._text

    def identity(self) -> KernelId:
        digest = hashlib.sha256((self._text + "\0" + self.signature).encode("utf-8", "surrogatepass")).hexdigest()
        return KernelId(self.name, self.file, digest)

    def parameter_table(self) -> dict[str, dict[str, Any]]:
        """Numba's fastmath and ptxas's flags; with a spec, also the launch shape (``block``) and the sizes."""
        from ..cubin import spec_parameters

        table = {
            name: {"default": default, "sweep": list(sweep), "kind": "constexpr"}
            for name, (default, sweep) in FLAGS.items()
        }
        if self.spec is not None:
            table.update(spec_parameters(self.spec))
        return table

    @property
    def spec(self) -> Any:
        """The CudaSpec the kernel's own file declares for it, or None."""
        if self._spec is False:
            from ...spec import cuda_specs
            from ..cubin import find_spec

            self._spec = None
            if "CudaSpec" in self._text:
                try:
                    module = _import(Path(self.file))
                except KernelFileError:
                    if importlib.util.find_spec("numba") is not None:
                        raise
                    return None  # no numba here: compile says so in its own line
                self._spec = find_spec(list(cuda_specs(vars(module))), self.name)
        return self._spec

    @property
    def can_launch(self) -> bool:
        return self.spec is not None

    def launch(self, config: Config, device: str = "cuda", seed: int = 0) -> Any:
        """Compiled for this GPU, loaded from its cubin and ready to run with the spec's inputs as Numba arrays."""
        from ..cubin import cubin_launch

        if self.spec is None:
            raise ParameterError(f"{self.name} has no CudaSpec (example inputs, grid, reference) in {self.file}")
        return cubin_launch(self, self.spec, config, device, seed, numba=True)

    def handle(self) -> KernelHandle:
        return KernelHandle(self.frontend, self.file, self.name, {"signature": self.signature})

    def cache_material(self) -> dict[str, Any]:
        import numba
        import numpy

        from ..cuda.compile import nvcc_version

        # numba-cuda types kernels with numpy's own functions: a numpy upgrade can change (or break) a compile.
        return {
            "source": self.identity().source_hash,
            "numba": numba.__version__,
            "numpy": numpy.__version__,
            "toolkit": nvcc_version(),
        }

    def python_function(self) -> Any:
        """The undecorated function, from the file the user named (imported once)."""
        if self._function is None:
            module = _import(Path(self.file))
            dispatcher = getattr(module, self.name, None)
            self._function = getattr(dispatcher, "py_func", None)
            if self._function is None:
                raise KernelNotFound(f"{self.file} defines no @cuda.jit function {self.name!r} when imported")
        return self._function

    def check_config(self, config: Config) -> None:
        flag_values({**config.constexprs, **config.options})

    def compile(self, config: Config, target: Target) -> Compiled:
        values = {**config.constexprs, **config.options}
        try:
            flag_values(values)
        except ParameterError as exc:  # a value ptxas could not take: this config's failure
            return Compiled(error=CaptureError("config", str(exc)))
        start = time.perf_counter()
        try:
            from numba import cuda
        except ImportError as exc:
            return Compiled(
                error=CaptureError(
                    "environment", f"numba-cuda is not installed ({exc}); pip install numba-cuda nvidia-cuda-nvrtc"
                )
            )
        capability = target.nvidia_capability("Numba")
        try:
            fn = self.python_function()
        except IrscopeError as exc:  # the file does not import here: this variant's failure, said in one line
            return Compiled(error=CaptureError("import", str(exc)), compiler=_numba_version())
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # NumbaPerformanceWarning and friends: not the user's question
                ptx, _ = cuda.compile_ptx(
                    fn, self.signature, cc=divmod(capability, 10), lineinfo=True, fastmath=bool(values.get("fast_math"))
                )
        except Exception as exc:
            environment = CaptureError.from_environment(exc, "compiling (numba)") or _numpy_mismatch(exc)
            return Compiled(
                error=environment or CaptureError("numba", _numba_message(exc)),
                seconds=time.perf_counter() - start,
                compiler=_numba_version(),
            )
        cubin, log, error = _ptxas(ptx, capability, values)
        entry = next(iter(re.findall(r"\.entry\s+(\w+)\s*\(", ptx)), None)
        return Compiled(
            stages={Stage.PTX: ptx},
            cubin=cubin,
            options={**values, "entry": entry},
            compiler=_numba_version(),
            ptxas_log=log,
            error=error,
            seconds=round(time.perf_counter() - start, 4),
        )


def _numba_version() -> str:
    try:
        import numba

        return f"numba {numba.__version__}"
    except ImportError:
        return "numba"


def _numpy_mismatch(exc: BaseException) -> CaptureError | None:
    """numba-cuda built against an older numpy (0.30.4 calls np.row_stack, which numpy 2.5 removed)."""
    if not (isinstance(exc, AttributeError) and "module 'numpy'" in str(exc)):
        return None
    from importlib.metadata import PackageNotFoundError, version

    import numpy

    try:
        numba_cuda = version("numba-cuda")
    except PackageNotFoundError:
        numba_cuda = "?"
    return CaptureError(
        "environment",
        f"numba-cuda {numba_cuda} does not run with numpy {numpy.__version__} "
        f"({exception_line(exc)}); install a numpy it supports",
    )


def _numba_message(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip() and not ln.startswith("\x1b")]
    text = re.sub(r"\x1b\[[0-9;]*m", "", " ".join(lines[:3]))
    return f"{type(exc).__name__}: {text}"[:500]


def _ptxas(ptx: str, capability: int, values: dict[str, Any]) -> tuple[bytes | None, str, CaptureError | None]:
    """The toolkit's ptxas on ``ptx``: the cubin, its -v report, or the error."""
    from ..cuda.compile import nvcc_path

    nvcc = nvcc_path()
    ptxas = str(Path(nvcc).with_name("ptxas")) if nvcc else None
    if ptxas is None or not Path(ptxas).exists():
        return None, "", CaptureError("environment", "ptxas (the CUDA toolkit) is not installed here")
    with tempfile.TemporaryDirectory(prefix="irscope-numba-") as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx)
        cmd = [ptxas, "-v", "-lineinfo", f"--gpu-name=sm_{capability}", str(src), "-o", str(out)]
        if int(values.get("maxrregcount") or 0) > 0:
            cmd.append(f"--maxrregcount={int(values['maxrregcount'])}")
        if values.get("opt", 3) != 3:
            cmd.append(f"-O{int(values['opt'])}")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        log = proc.stderr + proc.stdout
        if proc.returncode != 0:
            first = next((ln for ln in log.splitlines() if "error" in ln.lower()), log.strip()[:300])
            return None, log, CaptureError("cubin (ptxas)", first.strip())
        return out.read_bytes(), log, None


class _Lazy(ast.NodeTransformer):
    """``@cuda.jit("sig", ...)`` as ``@cuda.jit(...)``: a signature makes Numba compile at import, for a GPU."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and ast.unparse(decorator.func) in JIT_SPELLINGS:
                decorator.args = []
        return node


def _import(path: Path) -> Any:
    """Run the user's file (their say-so: they named it) with its kernels made lazy; errors in one line."""
    from ..files import import_file

    def run(loader: Any, module: Any) -> None:
        module.__name__ = path.stem  # what Numba mangles into the kernel's name: the user's module, as they know it
        tree = _Lazy().visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        # Decorators dropped, line numbers kept: Numba's line info still names the file's own lines.
        exec(compile(tree, str(path), "exec"), module.__dict__)

    return import_file(path, "irscope_numba", "kernel file", run)


def kernel_in_file(path: Path, name: str | None, signature: str | None) -> NumbaKernel:
    defs = _jit_defs(path)
    name = choose_kernel(list(defs), name, path, "@cuda.jit kernel")
    sig = _full_signature(signature or defs[name][1], f"{name} in {path}", "-S")
    return NumbaKernel(str(path), name, sig, path.read_text(encoding="utf-8"))


def is_dispatcher(obj: Any) -> bool:
    """A ``@cuda.jit`` kernel object (numba-cuda's dispatcher); False without asking where Numba is not imported."""
    module = sys.modules.get("numba.cuda.dispatcher")
    return module is not None and isinstance(obj, module.CUDADispatcher)


def kernel_from_dispatcher(dispatcher: Any, signature: str | None) -> NumbaKernel:
    """A ``@cuda.jit`` function handed over as an object, from a script or a notebook cell.

    Its Python function is compiled as it is (never its file imported again: a cell has none), in
    this process; its source text is the file's or cell's (python_source.py), so the PTX's line
    info, which names that file, maps to its lines. Argument types: ``signature`` (as ``-S``), else
    the decorator's own signature string, read from the text.
    """
    from ..python_source import defining_node, defining_text

    function = dispatcher.py_func
    filename, text = defining_text(function, "@cuda.jit kernel")
    _, decorated = _decorated(defining_node(text, filename, function, "@cuda.jit kernel"))
    sig = _full_signature(signature or decorated, function.__name__, "signature=")
    # Numba's line info names the file as os.path.abspath gives it (a cell's `<ipython-input-...>` too).
    kernel = NumbaKernel(os.path.abspath(filename), function.__name__, sig, text)
    kernel._function = function
    kernel._spec = None  # a CudaSpec is found by importing the kernel's file: an object kernel has none
    kernel.defined_in_process = True
    return kernel


def _full_signature(given: str | None, where: str, option: str) -> str:
    """``float32[:], int32`` -> ``void(float32[:], int32)``; refused (one line) where there is none."""
    if not given:
        help_text = SIGNATURE_HELP if option == "-S" else SIGNATURE_HELP.replace('-S "', f'{option}"', 1)
        raise ParameterError(f"{where} has no signature in its decorator; give its argument types as {help_text}")
    sig = given.strip()
    return sig if "(" in sig else f"void({sig})"
