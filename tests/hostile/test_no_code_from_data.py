"""A log is data: no code placed in an Inductor log runs, wherever in a kernel's block it hides.

Each crafted log is a recorded one (samples/inductor/square.log: one small
pointwise kernel) with a payload put somewhere in its kernel's source: at module
level, in a default argument, an annotation, a decorator, ``@triton.jit``'s
arguments, a class body, a comprehension, or in the kernel's body, where Triton's
code generator would call it at compile time. Every payload would create a marker
file. ``irscope inductor --log`` must leave no marker, must not crash, and must
compile the kernel when the payload lies outside what Triton compiles, or report
it failed, naming the refusal, when the payload is in it. Real compiles, no mocks.
"""

from __future__ import annotations

import json
import linecache
import sys
import tempfile
from pathlib import Path

import pytest
from expect import one_line_error

from irscope.errors import ExitCode

LOGS = Path(__file__).resolve().parent.parent.parent / "samples" / "inductor"
SQUARE = LOGS / "square.log"
KERNEL = "triton_poi_fused_pow_0"
DEF = f"def {KERNEL}(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):"
FIRST = "    xnumel = 16777216"


def touch(marker: Path) -> str:
    """Python that creates ``marker`` (what every payload would do); double quotes only, no backslash.

    The kernel's source sits in a '''-string of the log, where a backslash would be read as an escape.
    """
    return f'__import__("pathlib").Path("{marker}").touch()'


def crafted(tmp_path: Path, find: str, lines: list[str]) -> Path:
    """square.log with its kernel-block line ``find`` replaced by ``lines``, each behind the log's prefix."""
    text = SQUARE.read_text()
    (line,) = [ln for ln in text.splitlines() if ln.endswith(f"] {find}")]
    prefix = line.removesuffix(find)
    path = tmp_path / "crafted.log"
    path.write_text(text.replace(line, "\n".join(prefix + ln for ln in lines)))
    return path


# where -> (the line replaced, its replacement); each runs the payload P on import
OUTSIDE = {
    "module level": ("triton_helpers.set_driver_to_gpu()", ["triton_helpers.set_driver_to_gpu()", "{P}"]),
    "extra decorator": ("@triton.jit", ["@(lambda fn: ({P}, fn)[1])", "@triton.jit"]),
    "jit arguments": ("@triton.jit", ["@triton.jit(do_not_specialize={P})"]),
    "class body": ("triton_helpers.set_driver_to_gpu()", ["class Evil:", "    {P}"]),
    "module comprehension": ("triton_helpers.set_driver_to_gpu()", ["[{P} for _ in range(1)]"]),
}
# where -> (the line replaced, its replacement, what the refusal names); Triton would run P while compiling
INSIDE = {
    "default argument": (DEF, [DEF.replace("tl.constexpr):", "tl.constexpr = {P}):")], "'__import__'"),
    "annotation": (DEF, [DEF.replace("(in_ptr0,", "(in_ptr0 : {P},")], "'__import__'"),
    "tl.core.builtins.exec": (FIRST, [FIRST, "    tl.core.builtins.exec({Q})"], "module 'builtins'"),
    "getattr chain": (FIRST, [FIRST, "    getattr(getattr(tl, 'core'), 'builtins').exec({Q})"], "'getattr'"),
    "dunder attribute": (FIRST, [FIRST, "    tl.__builtins__.get('exec')({Q})"], "'__builtins__'"),
    "triton's own eval": (FIRST, [FIRST, "    tl.str_to_ty({D}.value, None)"], "str_to_ty"),
}


def payload_log(tmp_path: Path, where: str, marker: Path) -> Path:
    """square.log with the payload for ``where`` (a key of OUTSIDE or INSIDE) in its kernel's block."""
    find, lines = OUTSIDE[where] if where in OUTSIDE else INSIDE[where][:2]
    payload = touch(marker)
    fill = {"P": payload, "Q": f"'{payload}'", "D": f"'tensordesc<fp32[4],{payload}>'"}
    return crafted(tmp_path, find, [ln.format(**fill) for ln in lines])


def run_inductor(cli, log: Path, out: Path, code: ExitCode) -> dict:
    """``irscope inductor --log LOG -o OUT --json``: the exit code asked for, no crash, the capture as data."""
    result = cli("inductor", "--log", str(log), "-o", str(out), "--json")
    assert result.exit_code == code, (result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    return json.loads(result.stdout)


def assert_never_imported(out: Path) -> None:
    from irscope.frontends.triton.kernel_files import module_name_for

    for file in (out / "kernels").glob("*.py"):
        assert module_name_for(str(file)) not in sys.modules, file


@pytest.mark.parametrize("where", sorted(OUTSIDE))
def test_a_payload_outside_the_kernel_never_runs_and_the_kernel_still_compiles(cli, tmp_path, where):
    marker = tmp_path / "ran"
    data = run_inductor(cli, payload_log(tmp_path, where, marker), tmp_path / "out", ExitCode.OK)
    assert not marker.exists()
    (kernel,) = data["kernels"]
    assert kernel["status"] == "ok", kernel["error"]
    assert kernel["registers"] > 0
    assert_never_imported(tmp_path / "out")


@pytest.mark.parametrize("where", sorted(INSIDE))
def test_a_payload_in_what_triton_compiles_never_runs_and_the_kernel_is_refused(cli, tmp_path, where):
    marker = tmp_path / "ran"
    named = INSIDE[where][2]
    data = run_inductor(cli, payload_log(tmp_path, where, marker), tmp_path / "out", ExitCode.FAILURE)
    assert not marker.exists()
    (kernel,) = data["kernels"]
    assert kernel["status"] == "failed" and kernel["session"] is None
    assert "refused" in kernel["error"] and named in kernel["error"], kernel["error"]
    assert "crafted" not in kernel["error"] and "kernels/triton_poi_fused_pow_0.py:" in kernel["error"]


def evil_signature_log(tmp_path: Path, marker: Path) -> Path:
    """square.log whose recorded signature gives in_ptr0 a type Triton's type parser would eval."""
    log = tmp_path / "crafted.log"
    evil = f"'tensordesc<fp32[4],{touch(marker)}>'"
    log.write_text(SQUARE.read_text().replace("'in_ptr0': '*fp32'", f"'in_ptr0': {evil}"))
    return log


def test_a_signature_type_triton_would_eval_is_refused(cli, tmp_path):
    marker = tmp_path / "ran"
    data = run_inductor(cli, evil_signature_log(tmp_path, marker), tmp_path / "out", ExitCode.FAILURE)
    assert not marker.exists()
    (kernel,) = data["kernels"]
    assert kernel["status"] == "failed" and "signature type" in kernel["error"], kernel["error"]


def test_one_refused_kernel_fails_alone_and_the_others_compile(cli, tmp_path):
    marker = tmp_path / "ran"
    text = (LOGS / "mlp_layernorm.log").read_text()
    first = next(ln for ln in text.splitlines() if "] def triton_poi_fused_gelu_view_1(" in ln)
    prefix = first[: first.index("def triton_poi")]
    log = tmp_path / "crafted.log"
    log.write_text(text.replace(first, f"{first}\n{prefix}    tl.core.builtins.exec('{touch(marker)}')"))
    data = run_inductor(cli, log, tmp_path / "out", ExitCode.FAILURE)  # one kernel failed: the table says which
    assert not marker.exists()
    status = {k["name"]: k["status"] for k in data["kernels"]}
    assert status == {
        "triton_per_fused_native_layer_norm_0": "ok",
        "triton_poi_fused_gelu_view_1": "failed",
        "triton_poi_fused_add_addmm_view_2": "ok",
    }


@pytest.mark.parametrize("where", sorted(OUTSIDE) + sorted(INSIDE) + ["signature type"])
def test_the_control_every_payload_runs_when_the_kernel_is_imported(tmp_path, where):
    """Not vacuous: the old way (import the kernel's file, compile what it defines) does run each payload."""
    from irscope.arch import CaptureMode, Target
    from irscope.frontends.triton.kernel_files import kernel_with_signature, load_module
    from irscope.interop.inductor.kernels import signature, write_kernel_file
    from irscope.interop.inductor.parse import parse_log
    from irscope.types import Config

    marker = tmp_path / "ran"
    log = evil_signature_log(tmp_path, marker) if where == "signature type" else payload_log(tmp_path, where, marker)
    (kernel,) = parse_log(log.read_text())[0].kernels
    file = write_kernel_file(kernel, tmp_path / "kernels")
    module = load_module(file)
    if not marker.exists():  # in what Triton compiles: it runs while Triton compiles the kernel
        ref = kernel_with_signature(file, KERNEL, signature(kernel, getattr(module, KERNEL)))
        ref.compile(Config({"XBLOCK": 1024}, {"num_warps": 4, "num_stages": 1}, {}), Target(90, CaptureMode.AOT))
    assert marker.exists()


# ---------------------------------------------------------------- the rebuild, directly

CLEAN = """import triton
import triton.language as tl


@triton.jit
def helper(x):
    return x * 2


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    BODY
    tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)
"""


@pytest.mark.parametrize(
    "body, named",
    [
        ("global n", "'global'"),
        ("f = lambda: 0", "a lambda"),
        ("x = offs.__class__", "'__class__'"),
        ("x = exec", "name 'exec'"),
        ("x = tl", "module 'tl' used as a value"),
        ("x = tl.core", "module 'tl.core' used as a value"),
        ("x = helper[(1,)]", "JIT function 'helper' used as a value"),
        ("x = helper.fn", "attribute 'fn'"),
        ("x = tl.core.inspect", "module 'inspect'"),
        ("x = triton.jit", "'triton.jit'"),
        ("tl = 1", "would hide the module"),
        ("import os", "an import"),
    ],
)
def test_the_allowlist_refuses_with_file_line_and_what(body, named):
    from irscope.errors import UsageError
    from irscope.frontends.triton.rebuild import UnsafeKernelSource, rebuild_functions

    with pytest.raises(UnsafeKernelSource) as caught:
        rebuild_functions(CLEAN.replace("BODY", body), "/nowhere/k.py")
    assert isinstance(caught.value, UsageError) and "\n" not in str(caught.value)
    assert str(caught.value).startswith("/nowhere/k.py:13: refused") and named in str(caught.value), caught.value


def test_a_rebuilt_kernel_compiles_from_its_text_and_its_handle_alone(tmp_path):
    from irscope import frontends
    from irscope.arch import CaptureMode, Target
    from irscope.frontends.triton.rebuild import rebuilt_kernel
    from irscope.frontends.triton.signature import SignatureArg
    from irscope.stages import Stage
    from irscope.types import Config

    text = CLEAN.replace("BODY", "pass")
    file = str(tmp_path / "never_written.py")  # no file: the text is the only source
    ref = rebuilt_kernel(text, file, "kernel", (SignatureArg("*fp32", 16), SignatureArg("i32"), SignatureArg(None)))
    assert ref.source() == text and file not in linecache.cache
    handle = ref.handle()
    assert handle.extra["source_text"] == text and handle.extra["inductor"] is False
    again = frontends.load(handle)
    assert again.identity() == ref.identity() and again.source() == text
    compiled = again.compile(Config({"BLOCK": 128}, {"num_warps": 4, "num_stages": 1}, {}), Target(90, CaptureMode.AOT))
    assert compiled.error is None
    assert f'loc("{file}":12:' in compiled.stages[Stage.TTIR]  # the text's own lines, in the file it names


def test_a_refused_helper_refuses_the_kernel_that_calls_it_only():
    from irscope.frontends.triton.rebuild import UnsafeKernelSource, rebuilt_kernel
    from irscope.frontends.triton.signature import SignatureArg

    text = CLEAN.replace("BODY", "pass").replace("return x * 2", "return x.__class__")
    sig = (SignatureArg("*fp32", 16), SignatureArg("i32"), SignatureArg(None))
    with pytest.raises(UnsafeKernelSource, match="k.py:7: refused"):
        rebuilt_kernel(text, "/nowhere/k.py", "kernel", sig)
    standalone = text + "\n\n@triton.jit\ndef alone(x_ptr):\n    tl.store(x_ptr, 1.0)\n"
    assert rebuilt_kernel(standalone, "/nowhere/k.py", "alone", (SignatureArg("*fp32", 16),)).name == "alone"


# ---------------------------------------------------------------- untouched logs: the same IR as an import


def test_every_recorded_kernel_rebuilt_gives_the_ir_an_import_gives(tmp_path):
    from triton import knobs

    from irscope.arch import CaptureMode, Target
    from irscope.frontends.config import config_from_table
    from irscope.frontends.triton.kernel_files import kernel_with_signature, load_module
    from irscope.interop.inductor.capture import plan
    from irscope.interop.inductor.kernels import config_of, signature
    from irscope.interop.inductor.parse import parse_log
    from irscope.stages import Stage

    target = Target(90, CaptureMode.AOT)
    compared = 0
    for log in sorted(LOGS.glob("*.log")):
        for ck in plan(parse_log(log.read_text()), tmp_path / log.stem):
            rebuilt = ck.triton
            fn = getattr(load_module(ck.file), ck.kernel.name)  # the old way, on a recorded (trusted) log
            imported = kernel_with_signature(ck.file, ck.kernel.name, signature(ck.kernel, fn))
            config = config_from_table(rebuilt.parameter_table(), config_of(ck.chosen).values(), rebuilt.name)
            listings = []
            for ref in (rebuilt, imported):
                with knobs.cache.scope():  # a Triton cache each: the second compile must not reuse the first
                    knobs.cache.dir = tempfile.mkdtemp(dir=tmp_path)
                    compiled = ref.compile(config, target)
                assert compiled.error is None, (ck.kernel.name, compiled.error)
                listings.append(compiled.stages)
            assert rebuilt.identity() == imported.identity()
            for stage in (Stage.TTIR, Stage.PTX):
                assert listings[0][stage] == listings[1][stage], (ck.kernel.name, stage)
            assert f'"{ck.file}"' in listings[0][Stage.TTIR]  # locations name the kernel's file
            compared += 1
    assert compared == 13


# ---------------------------------------------------------------- kernel files the user names


@pytest.mark.parametrize(
    "raising, named",
    [
        ("import sys\nsys.exit(7)", "SystemExit: 7"),
        ("class Out(BaseException):\n    pass\nraise Out('gone')", "Out: gone"),
    ],
)
def test_a_kernel_file_that_exits_at_import_is_one_line(cli, tmp_path, raising, named):
    path = tmp_path / "exits.py"
    path.write_text(raising + "\n")
    one_line_error(cli("dump", f"{path}:k", "--signature", "*fp32"), 2, "error importing kernel file", named)
