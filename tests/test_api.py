"""The Python API (irscope/api.py) on kernels named as the CLI names them: built-ins and files written here.

Kernels given as objects (a function from a script or a notebook cell) are tests/test_object_kernels.py; the
notebook itself runs in tests/test_notebooks.py.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from written_kernels import ROW_SOFTMAX, ROW_SOFTMAX_SIGNATURE

import irscope
from irscope.errors import CompileFailed, NoGpu, UsageError


def test_the_api_functions_survive_importing_the_subpackages_that_were_named_like_them():
    # A subpackage named irscope.capture would replace the function on its first import.
    code = (
        "import irscope, irscope.capturing.pipeline, irscope.diffing.render, irscope.annotating.findings, "
        "irscope.session.sweep, irscope.measure.bench, irscope.report.html\n"
        "import inspect\n"
        "names = ['capture', 'sweep', 'diff', 'annotate', 'bench', 'open', 'html']\n"
        "print([n for n in names if not inspect.isfunction(getattr(irscope, n))])\n"
        "import sys; print(sorted(m for m in ('torch', 'triton', 'textual') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"
    # and `import irscope` alone stays light: no compiler, torch or textual until a call needs one
    light = subprocess.run(
        [
            sys.executable,
            "-c",
            "import irscope, sys; print([m for m in ('torch','triton','textual') if m in sys.modules])",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert light.stdout.strip() == "[]"


def test_capture_a_built_in_by_name_gives_every_stage_by_its_name():
    v = irscope.capture("square_kernel", {"BLOCK_SIZE": 256, "num_warps": 8}, arch="sm_90")
    assert ".entry square_kernel" in v.listings["ptx"]
    assert "tt.func" in v.listings["ttir"] and 'ttg.num-warps" = 8' in v.listings["ttgir"]
    assert v.config.values()["BLOCK_SIZE"] == 256 and v.arch == "sm_90"
    assert v.resources is not None and v.resources.registers > 0
    assert len(repr(v)) < 300  # not the 38,000-character dataclass repr


def test_a_kernel_file_written_here_with_a_signature(tmp_path):
    path = tmp_path / "softmax_rows.py"
    path.write_text(ROW_SOFTMAX)
    v = irscope.capture(str(path), {"BLOCK": 1024}, signature=ROW_SOFTMAX_SIGNATURE, arch="sm_80", name="row_softmax")
    assert ".entry row_softmax" in v.listings["ptx"] and "sm_80" in v.listings["ptx"]
    # the reduction over the row is there: shuffles between lanes
    assert "shfl.sync.bfly" in v.listings["ptx"]


def test_sweep_diff_annotate_and_open(tmp_path):
    out = tmp_path / "square"
    session = irscope.sweep("square_kernel", {"BLOCK_SIZE": [128, 1024], "num_warps": [4]}, arch="sm_90", out=out)
    assert len(session) == 2
    small, large = list(session)
    assert {small.config.values()["BLOCK_SIZE"], large.config.values()["BLOCK_SIZE"]} == {128, 1024}
    d = irscope.diff(small, large)
    removed, added = d.counts()
    assert (len(d.removed), len(d.added)) == (removed, added) and removed + added > 0
    assert all(line.text for line in d.added)
    assert "BLOCK_SIZE=128" in d.summary() and "registers" in d.summary()
    a = irscope.annotate(large)
    assert a.findings and all(f.title for f in a.findings)
    assert sum(line.python_line is not None for line in a.lines) > 10
    again = irscope.open(out)
    assert len(again) == 2 and {v.identity() for v in again} == {small.identity(), large.identity()}
    # running the same sweep again reuses the session: nothing compiles twice, nothing is added
    assert (
        len(irscope.sweep("square_kernel", {"BLOCK_SIZE": [128, 1024], "num_warps": [4]}, arch="sm_90", out=out)) == 2
    )


def test_a_sweep_without_out_goes_to_the_cache_and_is_found_again():
    first = irscope.sweep("square_kernel", {"BLOCK_SIZE": [256]}, arch="sm_90")
    second = irscope.sweep("square_kernel", {"BLOCK_SIZE": [256, 512]}, arch="sm_90")
    assert first.path == second.path and len(second) == 2


def test_one_failing_variant_is_kept_and_the_sweep_goes_on(tmp_path):
    from written_kernels import ASSERTED_COPY, ASSERTED_COPY_SIGNATURE

    path = tmp_path / "asserted.py"
    path.write_text(ASSERTED_COPY)
    session = irscope.sweep(
        f"{path}:asserted_copy",
        {"BLOCK_SIZE": [64, 96, 128]},
        config={"FLOOR": 64},
        signature=ASSERTED_COPY_SIGNATURE,
        arch="sm_90",
        out=tmp_path / "s",
    )
    ok = {v.config.values()["BLOCK_SIZE"]: v.ok for v in (session.variant(e, partial=True) for e in session.entries)}
    assert ok == {64: True, 96: False, 128: True}
    with pytest.raises(CompileFailed) as failed:
        irscope.capture(
            f"{path}:asserted_copy", {"BLOCK_SIZE": 96, "FLOOR": 64}, signature=ASSERTED_COPY_SIGNATURE, arch="sm_90"
        )
    assert failed.value.variant is not None and not failed.value.variant.ok
    assert "asserted_copy" in str(failed.value)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: irscope.capture("no_such_kernel"), "no_such_kernel"),
        (lambda: irscope.capture("square_kernel", {"NOPE": 1}, arch="sm_90"), "NOPE"),
        (lambda: irscope.capture("square_kernel", [("BLOCK_SIZE", 128)], arch="sm_90"), "mapping"),  # type: ignore[arg-type]
        (lambda: irscope.capture("square_kernel", arch="sm_1000"), "sm_1000"),
        (lambda: irscope.diff(*[irscope.capture("square_kernel", arch="sm_90")] * 2, stage="nope"), "nope"),
        (lambda: irscope.open("/nonexistent/irscope-session"), "irscope-session"),
        (lambda: irscope.capture(3.5), "float"),
    ],
)
def test_bad_input_is_one_irscope_error_naming_it(call, words):
    with pytest.raises(UsageError) as raised:
        call()
    message = str(raised.value)
    assert words in message and "\n" not in message


def test_bench_without_a_gpu_says_so():
    with pytest.raises(NoGpu, match="needs a CUDA GPU"):
        irscope.bench("square_kernel", {"BLOCK_SIZE": 256})


SCRIPT = """
import json
import irscope
import triton
import triton.language as tl


@triton.jit
def script_relu(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


if __name__ == "__main__":
    sig = "*fp32:16, *fp32:16, i32"
    small = irscope.capture(script_relu, {"BLOCK": 128}, signature=sig, arch="sm_90")
    large = irscope.capture(script_relu, {"BLOCK": 2048}, signature=sig, arch="sm_90")
    d = irscope.diff(small, large)
    session = irscope.sweep(script_relu, {"BLOCK": [128, 512, 2048]}, signature=sig, arch="sm_90")
    print(json.dumps({
        "entry": ".entry script_relu" in large.listings["ptx"],
        "max": "max.f32" in large.listings["ptx"] or "max.NaN.f32" in large.listings["ptx"],
        "diff": [len(d.removed), len(d.added)],
        "sweep": len(session),
        "findings": [f.title for f in irscope.annotate(large).findings],
        "html": irscope.html(d)[:15],
    }))
"""


def test_the_same_calls_from_a_plain_script_with_the_kernel_defined_in_it(tmp_path):
    import json
    import os

    script = tmp_path / "relu_script.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, env={**os.environ}, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["entry"] and facts["max"]
    assert sum(facts["diff"]) > 0 and facts["sweep"] == 3
    assert facts["findings"] and facts["html"].lower().startswith("<!doctype html")


def test_in_ipython_variants_diffs_sessions_and_annotations_display_as_the_report_html(tmp_path):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    session = irscope.sweep("square_kernel", {"BLOCK_SIZE": [128, 1024]}, arch="sm_90", out=tmp_path / "s")
    small, large = session[0], session[1]
    for obj, marker in (
        (large, "square_kernel"),
        (irscope.diff(small, large), "BLOCK_SIZE=128"),
        (session, "square_kernel"),
        (irscope.annotate(large), "square_kernel"),
    ):
        data, _ = shell.display_formatter.format(obj)  # what Jupyter asks for: the object's _repr_html_
        assert data["text/html"] == obj._repr_html_()
        assert data["text/html"].startswith('<iframe sandbox="allow-scripts" srcdoc="'), type(obj)
        assert marker in data["text/html"]
        assert len(data["text/plain"]) < 300 and "\n" not in data["text/plain"]
