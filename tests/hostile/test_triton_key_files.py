"""A kept Triton key (frontends/triton/source_key.py) that is not what irscope wrote is never used: a worker
then takes Triton's own key and writes it again where a file can be written. The file is data: its worst is a
wrong cache key for Triton (a compile again), never code, and it is read with irscope's bounded reader."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import triton
import triton.runtime.cache
from triton_key_worker import as_worker

pytestmark = pytest.mark.triton_api

GOOD = {"triton": triton.__version__}


@pytest.fixture(scope="module")
def own_key() -> str:
    return triton.runtime.cache.triton_key()


@pytest.fixture
def kept(tmp_path) -> Path:
    """The file this Triton's key is kept in, under an empty cache (found by a first worker, then removed)."""
    place = Path(as_worker(tmp_path)["file"])
    place.unlink()
    return place


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b"\xff\xfe binary",
        json.dumps(["a list"]).encode(),
        json.dumps({"key": "3.0.0-old"}).encode(),  # no version
        json.dumps({"triton": "0.0.1", "key": "0.0.1-x"}).encode(),  # another Triton's
        json.dumps({**GOOD, "key": 42}).encode(),
        json.dumps({**GOOD, "key": "not-starting-with-the-version"}).encode(),
        json.dumps({**GOOD, "key": triton.__version__ + "x" * (1 << 20)}).encode(),  # past MAX_KEY_CHARS
        b"",
    ],
    ids=["text", "binary", "list", "no-version", "other-version", "number", "foreign-key", "huge", "empty"],
)
def test_a_kept_key_that_does_not_check_out_is_replaced_by_tritons_own(kept, own_key, content):
    kept.write_bytes(content)
    assert as_worker(kept.parent.parent)["key"] == own_key
    assert json.loads(kept.read_text()) == {**GOOD, "key": own_key}


def test_a_folder_or_a_fifo_in_its_place_is_neither_read_nor_replaced(kept, own_key):
    kept.mkdir()
    assert as_worker(kept.parent.parent)["key"] == own_key
    assert kept.is_dir() and not any(kept.iterdir())
    kept.rmdir()
    os.mkfifo(kept)  # a FIFO would block a plain open: the bounded reader opens it without waiting
    assert as_worker(kept.parent.parent)["key"] == own_key
    assert kept.is_fifo()


def test_a_link_in_its_place_is_not_written_through(kept, own_key, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    kept.symlink_to(outside)
    assert as_worker(kept.parent.parent)["key"] == own_key
    assert outside.read_text() == "keep me"  # its target never written,
    assert kept.is_symlink()  # and the link left as it is (irscope replaces only a regular file)
