"""irscope installed from a wheel has its built-in kernels, its samples and its TUI stylesheet.

Why this test exists: kernel.py and measure/samples.py used to find the repository's
kernels/ and samples/ through ``__file__`` and ``..``, and app.tcss was not package
data. From a checkout (and so from the editable install every other test runs on) that
worked; installed with a plain ``pip install``, ``irscope list`` was empty,
``irscope dump square_kernel`` said unknown kernel, no runtime sample was found and the
TUI had no stylesheet. So this test builds a wheel of the checkout, installs it into a
fresh virtual environment and runs that installation from outside the checkout.

Fast (about 10 s): the wheel is built without build isolation and installed without
dependencies; the environment reuses this interpreter's installed packages (triton,
textual, click, ...) instead of downloading them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.wheel


class Installed:
    """A virtual environment with irscope installed from a wheel of the checkout."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.wheel: Path | None = None
        self.venv = root / "venv"
        bindir = self.venv / ("Scripts" if os.name == "nt" else "bin")
        self.python = bindir / "python"
        self.irscope = bindir / "irscope"
        self.cwd = root / "work"  # outside the checkout: nothing may be found relative to it
        self.cwd.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
        # Fresh caches, so that the compile below really runs from the installed files.
        env.update(
            IRSCOPE_CACHE_DIR=str(root / "irscope-cache"),
            TRITON_CACHE_DIR=str(root / "triton-cache"),
            PYTHONNOUSERSITE="1",
        )
        self.env = env

    def run(self, *args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(a) for a in args], capture_output=True, text=True, cwd=self.cwd, env=self.env, timeout=timeout
        )

    def python_code(self, code: str) -> subprocess.CompletedProcess:
        result = self.run(self.python, "-c", textwrap.dedent(code))
        assert result.returncode == 0, result.stderr
        return result


def _build_wheel(root: Path) -> Path:
    # Build from a copy: the build writes build/ and *.egg-info next to pyproject.toml,
    # which must not land in (or be read from) the checkout.
    src = root / "src"
    shutil.copytree(
        REPO,
        src,
        ignore=shutil.ignore_patterns(
            ".git", "tests", "build", "dist", ".venv", "*.egg-info", "__pycache__", ".pytest_cache", ".benchmarks"
        ),
    )
    # Without build isolation (this environment's setuptools) it needs no index and takes a second.
    isolation = ["--no-build-isolation", "--no-index"] if importlib.util.find_spec("setuptools") else []
    wheels = root / "wheels"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--disable-pip-version-check",
            "-q",
            *isolation,
            "-w",
            str(wheels),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"building the wheel failed:\n{result.stdout}\n{result.stderr}"
    (wheel,) = wheels.glob("irscope-*.whl")
    return wheel


def _make_venv(installed: Installed) -> None:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(installed.venv)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    # The dependencies come from this interpreter's site-packages, named in a .pth file
    # rather than through --system-site-packages: a .pth line puts a folder on sys.path
    # without running the .pth files inside it, and one of those is the editable install
    # of this checkout, whose finder would quietly serve anything the wheel lacks.
    ours = {*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        ours.add(site.getusersitepackages())
    purelib = subprocess.run(
        [str(installed.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        env=installed.env,
    ).stdout.strip()
    Path(purelib, "_irscope_test_deps.pth").write_text("\n".join(sorted(ours)) + "\n")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    try:
        import venv  # noqa: F401
    except ImportError:
        pytest.skip("the venv module is not available")
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip("pip is not available to build and install a wheel")
    root = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(root)
    installed = Installed(root)
    installed.wheel = wheel
    _make_venv(installed)
    # --ignore-installed: the editable install of this checkout is visible too, and pip
    # must install the wheel into the venv, not decide irscope is already there.
    result = installed.run(
        installed.python,
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--no-index",
        "--ignore-installed",
        "--disable-pip-version-check",
        "-q",
        wheel,
    )
    assert result.returncode == 0, f"installing the wheel failed:\n{result.stdout}\n{result.stderr}"
    return installed


def test_the_installed_irscope_and_its_data_come_from_the_wheel_not_the_checkout(installed):
    out = installed.python_code("""
        import json, irscope
        from irscope.paths import builtin_kernels_dir, samples_dir
        print(json.dumps([irscope.__file__, str(builtin_kernels_dir()), str(samples_dir())]))
    """).stdout
    for path in map(Path, json.loads(out)):
        assert path.is_relative_to(installed.venv), path
        assert not path.resolve().is_relative_to(REPO.resolve()), path


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_every_kernel_and_runtime_sample_of_the_checkout_is_installed(installed):
    out = installed.python_code("""
        import json
        from irscope.paths import builtin_kernels_dir, samples_dir
        print(json.dumps([str(builtin_kernels_dir()), str(samples_dir())]))
    """).stdout
    kernels, samples = map(Path, json.loads(out))
    assert _files(REPO / "kernels") - _files(kernels) == set()
    runtimes = {f for f in _files(REPO / "samples") if f.startswith("runtimes/")}
    assert len(runtimes) >= 5 and runtimes | {"README.md", "__init__.py"} <= _files(samples)


def test_the_wheel_carries_only_the_samples_irscope_reads_at_run_time(installed):
    """Issue 47: the samples were 59% of the wheel unpacked; the sessions, Inductor logs, ncu reports and
    traces are inputs the docs and tests name from a checkout, and irscope reads only the runtimes."""
    import zipfile

    with zipfile.ZipFile(installed.wheel) as wheel:
        entries = wheel.infolist()
    samples = [e for e in entries if e.filename.startswith("irscope/samples/")]
    shipped = {e.filename.removeprefix("irscope/samples/").split("/")[0] for e in samples}
    # (a session's stored source, a .py file, is found by setuptools as a module of a namespace package)
    data = {e.filename for e in samples if not e.filename.endswith(".py")}
    assert all(f.startswith(("irscope/samples/runtimes/", "irscope/samples/README.md")) for f in data), data
    assert {"runtimes", "README.md", "__init__.py"} <= shipped
    share = sum(e.file_size for e in samples) / sum(e.file_size for e in entries)
    assert share < 0.15, f"samples are {share:.0%} of the unpacked wheel"


def test_the_wheel_is_pure_python_for_every_platform(installed):
    """No compiled part: one ``py3-none-any`` wheel installs anywhere Python and Triton do."""
    assert installed.wheel.name.endswith("-py3-none-any.whl"), installed.wheel.name


def test_irscope_list_shows_the_builtin_kernels(installed):
    result = installed.run(installed.irscope, "list")
    assert result.returncode == 0, result.stderr
    assert "square_kernel" in result.stdout


def test_irscope_dump_compiles_a_builtin_kernel_down_to_sass(installed):
    result = installed.run(installed.irscope, "dump", "square_kernel", "--stage", "sass")
    assert result.returncode == 0, result.stderr
    assert any("FMUL" in line or "LDG" in line for line in result.stdout.splitlines()), result.stdout[:2000]


def test_the_runtime_samples_are_found(installed):
    out = installed.python_code("""
        from irscope.paths import runtime_samples_dir
        from irscope.measure.samples import SAMPLES_DIR
        assert SAMPLES_DIR == runtime_samples_dir(), SAMPLES_DIR
        print(len(list(runtime_samples_dir().glob("*.json"))))
    """).stdout
    assert int(out) >= 5


def test_the_wheels_metadata_has_project_urls_and_a_readme_that_works_on_an_index_page(installed):
    import re
    import zipfile

    with zipfile.ZipFile(installed.wheel) as wheel:
        (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = wheel.read(name).decode()
    head, _, description = metadata.partition("\n\n")
    urls = dict(
        line.removeprefix("Project-URL: ").split(", ", 1) for line in head.splitlines() if "Project-URL" in line
    )
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(urls)
    assert "Provides-Extra: all" in head and "Requires-Dist: triton>=3.5\n" in head  # no cap on Triton
    targets = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", description)
    assert targets and all(t.startswith("https://") for t in targets), [t for t in targets if "://" not in t]


def test_the_tui_opens_a_builtin_kernel_with_its_stylesheet(installed):
    # Built as `irscope tui square_kernel` builds it (make_app), from the wheel's kernels and runtime samples.
    out = installed.python_code("""
        import asyncio, json
        from irscope.tui.factory import make_app

        async def main():
            app = make_app("square_kernel")
            async with app.run_test(size=(120, 36)) as pilot:
                await pilot.pause()
                variants, search = app.query_one("#variants"), app.query_one("#search")
                print(json.dumps({"css": [str(p) for p in app.css_path], "rows": variants.row_count,
                                  "variants_height": str(variants.styles.height),
                                  "search_display": search.styles.display}))

        asyncio.run(main())
    """).stdout
    shown = json.loads(out.strip().splitlines()[-1])
    (css,) = map(Path, shown["css"])
    assert css.name == "app.tcss" and css.is_file() and css.is_relative_to(installed.venv)
    # Rules of app.tcss (Textual's defaults differ: height auto, display block).
    assert shown["variants_height"] == "9"  # #variants { height: 9; }
    assert shown["search_display"] == "none"  # #search { display: none; }
    assert shown["rows"] > 0


def test_irscope_run_records_a_program_from_the_installed_wheel(installed):
    """`irscope run` puts the wheel's own run/bootstrap/sitecustomize.py in front of the program."""
    program = installed.cwd / "prog.py"
    program.write_text(
        textwrap.dedent("""
        import torch
        import triton
        import triton.language as tl

        DEVICE = triton.runtime.driver.active.get_active_torch_device()


        @triton.jit
        def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


        x = torch.empty(1000, device=DEVICE)
        copy_kernel[(4,)](x, torch.empty_like(x), 1000, BLOCK=256)
    """)
    )
    installed.env["IRSCOPE_NO_GPU"] = "1"  # the program records its launches for sm_90, on any machine
    try:
        result = installed.run(installed.irscope, "run", "-o", "out", "--", installed.python, program, timeout=300)
    finally:
        del installed.env["IRSCOPE_NO_GPU"]
    assert result.returncode == 0, result.stderr
    index = json.loads((installed.cwd / "out" / "run.json").read_text())
    assert [k["name"] for k in index["kernels"]] == ["copy_kernel"] and index["kernels"][0]["session"]
