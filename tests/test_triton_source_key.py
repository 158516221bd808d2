"""Triton's hash of itself (``triton_key``), kept between irscope's workers (frontends/triton/source_key.py).

Each case runs a real process as irscope's workers are run (``IRSCOPE_WORKER`` set) against the installed
Triton, and compares with Triton's own function in this process, which is no worker and keeps it untouched.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import triton
import triton.runtime.cache
from triton_key_worker import as_worker

from irscope.capturing import capture_many
from irscope.frontends import resolve_kernel
from irscope.frontends.config import resolve_config
from irscope.paths import TRITON_KEYS
from irscope.stages import Stage

pytestmark = pytest.mark.triton_api  # run again under every other supported Triton (.ci/run)


@pytest.fixture(scope="module")
def tritons_own_key() -> str:
    return triton.runtime.cache.triton_key()


def test_the_first_worker_keeps_tritons_own_key_and_the_next_one_uses_what_was_kept(tmp_path, tritons_own_key):
    first = as_worker(tmp_path)
    kept = Path(first["file"])
    assert first["key"] == tritons_own_key
    assert kept.parent == tmp_path / TRITON_KEYS
    assert json.loads(kept.read_text()) == {"triton": triton.__version__, "key": tritons_own_key}
    # What the next worker reads is what it uses: a key written there (as by another Triton build of this
    # version) is the one Triton's compile then sees.
    kept.write_text(json.dumps({"triton": triton.__version__, "key": tritons_own_key + "-kept"}))
    second = as_worker(tmp_path)
    assert second == {"key": tritons_own_key + "-kept", "file": first["file"]}


def test_a_worker_that_has_the_key_already_keeps_it(tmp_path, tritons_own_key):
    kept = Path(as_worker(tmp_path)["file"])
    kept.write_text(json.dumps({"triton": triton.__version__, "key": tritons_own_key + "-kept"}))
    assert as_worker(tmp_path, computed=True)["key"] == tritons_own_key


def test_a_process_that_is_not_irscopes_worker_keeps_tritons_function_and_writes_nothing(tmp_path, tritons_own_key):
    assert as_worker(tmp_path, worker=False)["key"] == tritons_own_key
    assert not (tmp_path / TRITON_KEYS).exists()


def test_a_capture_through_workers_keeps_the_key_and_compiles_as_triton_does(cold_cache, tritons_own_key):
    kernel = resolve_kernel("square_kernel")
    configs = [resolve_config(kernel, {"BLOCK_SIZE": b}) for b in (128, 256, 512)]
    first = list(capture_many(kernel, configs, "sm_90", jobs=2))
    (kept,) = (cold_cache / TRITON_KEYS).iterdir()
    assert json.loads(kept.read_text())["key"] == tritons_own_key
    # Workers that read the kept key compile the same PTX and SASS as those that hashed Triton themselves.
    shutil.rmtree(cold_cache / "variants")
    again = list(capture_many(kernel, configs, "sm_90", jobs=2))
    assert [c.cached for c in again] == [False] * 3
    assert [c.variant.listing(Stage.PTX) for c in again] == [c.variant.listing(Stage.PTX) for c in first]
    assert [c.variant.listing(Stage.SASS) for c in again] == [c.variant.listing(Stage.SASS) for c in first]


def test_another_triton_or_an_edited_one_is_kept_apart(tmp_path):
    """A copy of the installed Triton (hard links: no space) is another folder, so another file; a source
    file of the copy written again (a new inode, as an edit or a reinstall makes) changes its name again."""
    installed = Path(triton.__file__).resolve().parent
    copy = tmp_path / "site" / "triton"
    try:
        shutil.copytree(installed, copy, copy_function=os.link, ignore=shutil.ignore_patterns("__pycache__"))
    except OSError as exc:
        pytest.skip(f"no hard links from {installed} to {tmp_path}: {exc}")
    ours = as_worker(tmp_path / "cache")["file"]
    theirs = as_worker(tmp_path / "cache", path=str(copy.parent))
    assert theirs["file"] != ours
    edited = copy / "language" / "core.py"
    text = edited.read_text()
    edited.unlink()
    edited.write_text(text + "\n# edited\n")
    after = as_worker(tmp_path / "cache", path=str(copy.parent))
    assert after["file"] not in (ours, theirs["file"])
    # and its key is Triton's own for the edited copy: the edit is in it
    assert after["key"] != theirs["key"] and after["key"].startswith(triton.__version__)
