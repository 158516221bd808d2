"""A kept Triton key (frontends/triton/source_key.py) that is not what irscope wrote is never used: a worker
then takes Triton's own key and writes it again where a file can be written. The file is data: it never runs
code, and it is read without following a link, bounded; but a key in it that is another Triton build's would
name that build's entries in Triton's cache, so a file reached through a link is not read at all."""

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
        json.dumps({**GOOD, "key": triton.__version__ + "x" * (1 << 20)}).encode(),  # past MAX_KEY_BYTES
        b"[" * 100_000 + b"]" * 100_000,  # nested past Python's stack
        b"",
    ],
    ids=["text", "binary", "list", "no-version", "other-version", "number", "foreign-key", "huge", "deep", "empty"],
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


def test_a_link_in_its_place_is_neither_read_nor_written_through(kept, own_key, tmp_path):
    outside = tmp_path / "outside.json"
    planted = json.dumps({**GOOD, "key": own_key + "-planted"})
    outside.write_text(planted)
    kept.symlink_to(outside)
    assert as_worker(kept.parent.parent)["key"] == own_key  # a valid-looking key behind a link: not read
    assert outside.read_text() == planted  # its target never written,
    assert kept.is_symlink()  # and the link left as it is (irscope replaces only a regular file)


def test_a_keys_folder_that_is_a_link_is_neither_read_nor_written_into(kept, own_key, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / kept.name).write_text(json.dumps({**GOOD, "key": own_key + "-planted"}))
    kept.parent.rmdir()
    kept.parent.symlink_to(elsewhere)
    assert as_worker(kept.parent.parent)["key"] == own_key
    assert [p.name for p in elsewhere.iterdir()] == [kept.name]  # nothing added there
    assert json.loads((elsewhere / kept.name).read_text())["key"] == own_key + "-planted"  # nor replaced
