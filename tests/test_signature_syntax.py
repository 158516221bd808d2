"""``-S`` reads Triton's AOT signature syntax in full, and a session keeps the signature it was swept with.

The JIT compiles every int argument equal to 1 (a unit stride) as a constant, so
a matmul's IR is reproduced ahead of time only when those arguments can be given
as constants: a bare ``1`` (Triton's AOT compiler makes any bare value a constant)
or ``i32:1``. The reference is the same kernel compiled from a KernelSpec whose
example tensors are contiguous, which goes through the JIT's own binder.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from expect import one_line_error

KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def unit_stride_matmul(a_ptr, b_ptr, c_ptr, M, N, K,
                           stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
""")

# Contiguous fp16 tensors of 256x256: every stride is 256 or 1, every size a multiple of 16.
SPEC = textwrap.dedent("""\


    from irscope.spec import KernelSpec, Tensor, Tunable

    spec = KernelSpec(
        unit_stride_matmul,
        sizes=dict(M=256, N=256, K=256),
        tensors=dict(a=Tensor("float16", "M, K"), b=Tensor("float16", "K, N"),
                     c=Tensor("float16", "M, N", output=True)),
        args=lambda k: (k.a, k.b, k.c, k.M, k.N, k.K, k.a.stride(0), k.a.stride(1),
                        k.b.stride(0), k.b.stride(1), k.c.stride(0), k.c.stride(1)),
        grid=lambda k: (triton.cdiv(k.M, k.BLOCK_M), triton.cdiv(k.N, k.BLOCK_N)),
        constexprs=dict(BLOCK_M=Tunable(64), BLOCK_N=Tunable(64), BLOCK_K=Tunable(32)),
    )
""")

# Imported, the file leaves a mark beside itself.
MARKER = 'from pathlib import Path\nPath(__file__).with_name("imported").write_text("yes")\n'

POINTERS = "*fp16:16, *fp16:16, *fp16:16"
SIZES = "i32:16, i32:16, i32:16"
BLOCKS = ["-c", "BLOCK_M=64", "-c", "BLOCK_N=64", "-c", "BLOCK_K=32"]


def signature(unit: str) -> str:
    """The matmul's arguments as the JIT specializes them, with ``unit`` for each stride equal to 1."""
    return f"{POINTERS}, {SIZES}, i32:16, {unit}, i32:16, {unit}, i32:16, {unit}"


def func_line(ttir: str) -> str:
    return next(line for line in ttir.splitlines() if "tt.func public @unit_stride_matmul" in line)


@pytest.fixture
def matmul_file(tmp_path):
    path = tmp_path / "matmul.py"
    path.write_text(KERNEL + SPEC)
    return path


# ---------------------------------------------------------------- unit strides as constants


@pytest.mark.parametrize("unit", ["1", "i32:1"])
def test_unit_strides_given_as_constants_compile_as_the_jit_binder_compiles_them(cli, matmul_file, unit):
    target = f"{matmul_file}:unit_stride_matmul"
    jit = cli("dump", target, "--stage", "ttir")  # the KernelSpec: its contiguous tensors through the JIT's binder
    assert jit.exit_code == 0, jit.stderr
    given = cli("dump", target, "--stage", "ttir", "-S", signature(unit), *BLOCKS)
    assert given.exit_code == 0, given.stderr
    assert given.stdout == jit.stdout
    func = func_line(given.stdout)
    for stride in ("stride_ak", "stride_bn", "stride_cn"):
        assert f"%{stride}:" not in func
    assert "%stride_am: i32 {tt.divisibility = 16 : i32}" in func


def test_unit_strides_given_as_types_stay_arguments_and_the_ir_differs(cli, matmul_file):
    target = f"{matmul_file}:unit_stride_matmul"
    jit = cli("dump", target, "--stage", "ttir")
    typed = cli("dump", target, "--stage", "ttir", "-S", signature("i32"), *BLOCKS)
    assert typed.exit_code == 0, typed.stderr
    assert "%stride_ak: i32" in func_line(typed.stdout)
    assert typed.stdout != jit.stdout


def test_the_specialization_from_bare_constants_is_the_jit_binders(matmul_file):
    torch = pytest.importorskip("torch")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    from irscope.frontends import resolve_kernel
    from irscope.frontends.config import resolve_config
    from irscope.frontends.triton.specialize import specialize

    target = f"{matmul_file}:unit_stride_matmul"
    given = resolve_kernel(target, signature("1") + ", 64, 64, 32")
    src, _, sig, _ = specialize(given, resolve_config(given, {}), 90)
    # Triton's own binder, on contiguous tensors: what a launch of this kernel compiles.
    fn, backend = given.fn, make_backend(GPUTarget("cuda", 90, 32))
    a, b, c = (torch.empty(256, 256, dtype=torch.float16) for _ in range(3))
    blocks = dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    bound, specialization, _ = create_function_from_signature(fn.signature, fn.params, backend)(
        a, b, c, 256, 256, 256, *a.stride(), *b.stride(), *c.stride(), **blocks
    )
    _, jit_sig, jit_constants, jit_attrs = fn._pack_args(backend, blocks, bound, specialization, {})
    assert (sig, src.constants, src.attrs) == (jit_sig, jit_constants, jit_attrs)
    assert {fn.arg_names[k[0]] for k in src.constants} == {
        "stride_ak",
        "stride_bn",
        "stride_cn",
        "BLOCK_M",
        "BLOCK_N",
        "BLOCK_K",
    }
    jit = resolve_kernel(target)  # the KernelSpec's stand-in tensors agree too
    jit_src, _, spec_sig, _ = specialize(jit, resolve_config(jit, {}), 90)
    assert (spec_sig, jit_src.constants, jit_src.attrs) == (jit_sig, jit_constants, jit_attrs)
    assert src.hash() == jit_src.hash()  # so -S and the JIT share Triton's cache entry (3.7 on: constexpr attrs too)


def test_any_bare_number_is_a_constant_as_in_tritons_aot_compiler(matmul_file):
    from irscope.frontends import resolve_kernel
    from irscope.frontends.triton.signature import SignatureArg, parse_signature

    fn = resolve_kernel(f"{matmul_file}:unit_stride_matmul").fn
    parsed = parse_signature(f"{POINTERS}, 256, 0x100, 2.5, i32:16, 1, i64, i32:1, u32:16, 1, -, 64, 32", fn)
    assert parsed[3:] == (
        SignatureArg(None, None, 256),
        SignatureArg(None, None, 256),
        SignatureArg(None, None, 2.5),
        SignatureArg("i32", 16),
        SignatureArg(None, None, 1),
        SignatureArg("i64"),
        SignatureArg("i32", 1),
        SignatureArg("u32", 16),
        SignatureArg(None, None, 1),
        SignatureArg(None),
        SignatureArg(None, None, 64),
        SignatureArg(None, None, 32),
    )


def test_a_size_given_as_a_constant_leaves_the_kernels_arguments(cli, matmul_file):
    sig = f"{POINTERS}, 256, 256, 256, 256, 1, 256, 1, 256, 1"
    result = cli("dump", f"{matmul_file}:unit_stride_matmul", "--stage", "ttir", "-S", sig, *BLOCKS)
    assert result.exit_code == 0, result.stderr
    func = func_line(result.stdout)
    assert "%a_ptr" in func and "%M:" not in func and "%stride_am:" not in func


@pytest.mark.parametrize(
    "entry, why",
    [
        ("bogus", "not a type or a number"),
        ("i32:8", "hint :8"),
        ("*fp32:1", "a pointer takes :16 only"),
        ("fp32:16", "fp32 takes no hint"),
        ("", "not a type or a number"),
    ],
)
def test_a_bad_entry_is_one_line_that_shows_the_accepted_forms(cli, matmul_file, entry, why):
    sig = f"{POINTERS}, {entry}, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1"
    result = cli("dump", f"{matmul_file}:unit_stride_matmul", "-S", sig, *BLOCKS)
    one_line_error(
        result,
        2,
        f"--signature entry {entry!r} for M",
        why,
        "accepted:",
        "*fp16:16",
        "i32:16",
        "i32:1",
        "1024, 0.5 (a constant)",
    )


def test_a_type_for_a_constexpr_is_refused_with_the_accepted_forms(cli, matmul_file):
    result = cli("dump", f"{matmul_file}:unit_stride_matmul", "-S", signature("1") + ", 64, i32, 32")
    one_line_error(result, 2, "'i32' for BLOCK_N", "not a value for a constexpr", "accepted:", "- to set it with -c")


# ---------------------------------------------------------------- a session keeps its signature


def test_a_session_swept_with_a_signature_resumes_without_it_and_without_importing_the_file(run_irscope, tmp_path):
    from irscope.session import Session
    from irscope.stages import Stage

    file = tmp_path / "plain.py"
    file.write_text(MARKER + KERNEL)  # no KernelSpec: only -S says how to compile it
    marker, out = tmp_path / "imported", tmp_path / "session"

    first = run_irscope(
        "sweep",
        f"{file}:unit_stride_matmul",
        "-S",
        signature("1") + ", 64, 64, 32",
        "-s",
        "BLOCK_K=32",
        "-o",
        str(out),
        "--jobs",
        "1",
    )
    assert first.returncode == 0, first.stderr
    assert marker.exists()  # the user named the file: it was imported
    stored = json.loads((out / "session.json").read_text())["kernel"]["signature"]
    assert [s["value"] for s in stored[7:12:2]] == [1, 1, 1]
    marker.unlink()

    again = run_irscope("sweep", str(out), "-s", "BLOCK_K=16,32", "--jobs", "1")
    assert again.returncode == 0, again.stderr
    assert "1 reused" in again.stderr
    assert not marker.exists()  # the session named the file: rebuilt from its stored source
    session = Session.open(out)
    assert sorted(e.config.constexprs["BLOCK_K"] for e in session.entries) == [16, 32]
    for entry in session.entries:
        func = func_line(session.variant(entry).listing(Stage.TTIR))
        assert "%stride_am:" in func and "%stride_ak:" not in func
