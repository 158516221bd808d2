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
    # Workers that read the kept key find Triton's own cache entries (its folders are named by a hash of
    # the whole cache key, Triton's key first): a key unlike Triton's would compile into new folders.
    made = set(Path(os.environ["TRITON_CACHE_DIR"]).glob("irscope/*/*"))
    shutil.rmtree(cold_cache / "variants")
    again = list(capture_many(kernel, configs, "sm_90", jobs=2))
    assert [c.cached for c in again] == [False] * 3
    assert set(Path(os.environ["TRITON_CACHE_DIR"]).glob("irscope/*/*")) == made
    for stage in (Stage.PTX, Stage.SASS):  # (workers answer in the order they finish)
        listings = {c.variant.config.key(): c.variant.listing(stage) for c in first}
        assert {c.variant.config.key(): c.variant.listing(stage) for c in again} == listings


def test_another_triton_or_an_edited_one_is_kept_apart(tmp_path):
    """A copy of the installed Triton is another folder, so another file; a file of the copy written again (an
    edit, a rebuild, a reinstall), even to the same size and modification time, is another state, so another
    file, and the copy's earlier one goes."""
    installed = Path(triton.__file__).resolve().parent
    copy = tmp_path / "site" / "triton"
    shutil.copytree(installed, copy, copy_function=_copy_or_link, ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    ours = as_worker(cache)["file"]
    edited = copy / "language" / "core.py"
    text = edited.read_bytes()
    theirs = as_worker(cache, path=str(copy.parent))
    assert theirs["file"] != ours and Path(theirs["file"]).exists()
    before = edited.stat()
    comment = text.index(b"\n#") + 2  # a comment's first character: the module still imports
    with open(edited, "r+b") as file:  # the same size, the same inode
        file.seek(comment)
        file.write(b"!" if text[comment : comment + 1] != b"!" else b"?")
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the modification time set back
    assert (edited.stat().st_size, edited.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    after = as_worker(cache, path=str(copy.parent))
    assert after["file"] not in (ours, theirs["file"])
    assert after["key"] != theirs["key"] and after["key"].startswith(
        triton.__version__
    )  # Triton's own: the edit is in it
    assert not Path(theirs["file"]).exists() and Path(ours).exists()  # that folder's earlier state goes, not others


def _copy_or_link(source: str, target: str) -> None:
    """The sources copied, the large binaries (libtriton, ptxas...) linked to: a hard link would change the
    installed file's change time, and with it the installed Triton's state, under the tests running beside
    this one (a key they had just hashed would not be kept)."""
    if os.path.getsize(source) > 1 << 20:
        os.symlink(source, target)
    else:
        shutil.copy2(source, target)
