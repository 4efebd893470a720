"""Hashing before the join: the same sha256 that Read records, or None when Read would refuse."""

from __future__ import annotations

from ragbeam.transforms.identity import hashing
from ragbeam.transforms.identity.hashing import hash_file
from ragbeam.transforms.ids import sha256_hex


def test_streamed_hash_equals_the_hash_read_records(tmp_path, monkeypatch):
    monkeypatch.setattr(hashing, "HASH_BLOCK_BYTES", 7)  # several blocks, last one short
    data = bytes(range(256)) * 3
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    assert hash_file(str(path), len(data), max_bytes=10_000) == sha256_hex(data)


def test_a_gzip_file_is_hashed_as_stored_not_inflated(tmp_path):
    import gzip

    path = tmp_path / "f.txt.gz"
    path.write_bytes(gzip.compress(b"hello"))
    assert hash_file(str(path), path.stat().st_size, 10_000) == sha256_hex(path.read_bytes())


def test_files_read_would_refuse_get_no_hash(tmp_path):
    path = tmp_path / "big.bin"
    path.write_bytes(b"x" * 100)
    assert hash_file(str(path), 100, max_bytes=99) is None
    assert hash_file(str(tmp_path / "missing.bin"), 1, max_bytes=99) is None
