"""Files without Beam (``transforms/storage.py``) agree with Beam's ``FileSystems``, file
for file and to the same float of time: on a local disk, and on ``gs://`` against the
GCS API emulator (``tests/object_stores.py``). A run records the listing's times and
compares the next listing's with them, so a listing here and one in Beam must agree
exactly."""

from __future__ import annotations

import os
import pathlib
import re

import pytest
from apache_beam.io.filesystem import FileSystem
from hypothesis import given, settings
from hypothesis import strategies as st

from ragbeam.transforms import storage

from object_stores import gcs_emulator


def _beam():
    from apache_beam.io.filesystems import FileSystems
    from apache_beam.options.pipeline_options import PipelineOptions

    FileSystems.set_options(PipelineOptions([]))
    return FileSystems


def _beam_match(pattern: str) -> list[tuple]:
    found = _beam().match([pattern])[0].metadata_list
    return sorted((m.path, m.size_in_bytes, m.last_updated_in_seconds) for m in found)


def _match(pattern: str) -> list[tuple]:
    return sorted(tuple(info) for info in storage.match(pattern))


@settings(deadline=None)  # no time limit: the machine may be loaded
@given(st.text(alphabet="ab/.*?[]!^\\-", max_size=12))
def test_patterns_mean_what_they_mean_to_beam(pattern):
    assert storage.glob_regex(pattern) == FileSystem.translate_pattern(pattern)


def _tree(root: pathlib.Path) -> pathlib.Path:
    for name in ("a.txt", "b.md", "sub/c.txt", "sub/deeper/d.txt", "sub/[x].txt", ".hidden",
                 "other/e.TXT"):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name * 3)
    os.symlink(root / "sub", root / "link-to-sub")
    os.symlink(root / "missing", root / "broken")
    return root


PATTERNS = ("{r}/**", "{r}/*", "{r}/*.txt", "{r}/sub/**", "{r}/sub/", "{r}/[ab].*", "{r}/a.txt",
            "{r}/sub", "{r}/nothing/**", "{r}/no-such-file", "{r}/sub/*/*.txt", "{r}/?.md")


def test_a_local_listing_is_beam_s(tmp_path):
    root = _tree(tmp_path / "corpus")
    for pattern in PATTERNS:
        pattern = pattern.format(r=root)
        assert _match(pattern) == _beam_match(pattern), pattern
    assert [info.path for info in storage.match(f"{root}/**", limit=2)] == [
        m.path for m in _beam().match([f"{root}/**"], [2])[0].metadata_list]


def test_local_files_are_read_written_copied_renamed_and_deleted(tmp_path):
    path = str(tmp_path / "new" / "folder" / "f.bin")
    storage.write_bytes(path, b"\x00\x01" * 10)  # its folders are made
    assert storage.exists(path) and storage.read_bytes(path) == b"\x00\x01" * 10
    storage.copy(path, str(tmp_path / "g.bin"))
    storage.rename(str(tmp_path / "g.bin"), str(tmp_path / "h.bin"))
    assert not storage.exists(str(tmp_path / "g.bin"))
    assert storage.read_bytes(str(tmp_path / "h.bin")) == b"\x00\x01" * 10
    storage.delete([str(tmp_path / "new")])  # a folder, with what it holds
    assert not storage.exists(path)
    with pytest.raises(FileNotFoundError):
        storage.delete([str(tmp_path / "new")])
    # Gzip is bytes like any other: never inflated by its name.
    storage.write_bytes(str(tmp_path / "x.gz"), b"not gzip")
    assert storage.read_bytes(str(tmp_path / "x.gz")) == b"not gzip"


BUCKET = "ragbeam-storage"


@pytest.fixture(scope="module")
def gcs(tmp_path_factory):
    with gcs_emulator(tmp_path_factory.mktemp("gcs"), BUCKET) as endpoint:
        storage._gcs_client.cache_clear()  # a client for this emulator
        yield endpoint
    storage._gcs_client.cache_clear()


def test_a_gcs_listing_is_beam_s_to_the_same_time(gcs):
    base = f"gs://{BUCKET}/corpus"
    for name in ("a.txt", "b.md", "sub/c.txt", "sub/deeper/d.txt", "sub/[x].txt"):
        storage.write_bytes(f"{base}/{name}", name.encode() * 3)
    for pattern in PATTERNS:
        pattern = pattern.format(r=base)
        assert _match(pattern) == _beam_match(pattern), pattern
    assert _match(f"{base}/**") and all(re.match(r"gs://", p) for p, _, _ in _match(f"{base}/**"))


def test_gcs_objects_are_read_copied_renamed_and_deleted(gcs, tmp_path):
    base = f"gs://{BUCKET}/files"
    with storage.create(f"{base}/f.bin") as f:
        for _ in range(3):
            f.write(b"0123456789")
    assert storage.read_bytes(f"{base}/f.bin") == b"0123456789" * 3
    assert storage.exists(f"{base}/f.bin") and not storage.exists(base)  # no folders
    storage.copy(f"{base}/f.bin", f"{base}/g.bin")
    storage.rename(f"{base}/g.bin", f"{base}/h.bin")
    assert not storage.exists(f"{base}/g.bin")
    local = str(tmp_path / "down" / "h.bin")
    storage.copy(f"{base}/h.bin", local)  # from one file system to another
    assert pathlib.Path(local).read_bytes() == b"0123456789" * 3
    storage.copy(local, f"{base}/back/h.bin")
    assert _beam().open(f"{base}/back/h.bin").read() == b"0123456789" * 3
    with pytest.raises(FileNotFoundError):
        storage.delete([f"{base}/nothing.bin"])
    storage.delete([f"{base}/"])  # a prefix: everything below it
    assert storage.match(f"{base}/**") == []
