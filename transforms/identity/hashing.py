"""A file's sha256, streamed from any Beam filesystem: the content identity that
Read records, computed earlier where a decision needs it (the incremental
comparison, files of a shared size in ``IdentifyContent``)."""

from __future__ import annotations

import hashlib

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics import Metrics

from ragbeam.transforms.types import SourceFile

HASH_BLOCK_BYTES = 1 << 20
# The counters' namespace since before this stage had its own package: run.json's
# ``reads`` and ``identity`` read them under it (``pipeline/runner.py``).
NAMESPACE = "ragbeam.incremental"


def hash_file(uri: str, size_bytes: int, max_bytes: int) -> str | None:
    """sha256 of a file's bytes, streamed; None when Read would refuse or fail on it
    (too large, unreadable), so the document is simply processed and Read records why."""
    if size_bytes > max_bytes or size_bytes < 0:
        return None
    digest = hashlib.sha256()
    try:
        # UNCOMPRESSED, as in Read: the hash is of the bytes on disk.
        with FileSystems.open(uri, compression_type=CompressionTypes.UNCOMPRESSED) as f:
            while block := f.read(HASH_BLOCK_BYTES):
                digest.update(block)
    except Exception:
        return None
    return digest.hexdigest()


def counted_hash(source: SourceFile, max_bytes: int) -> str | None:
    """``hash_file``, counted in ``reads.files_hashed`` and ``reads.bytes_hashed``."""
    content_hash = hash_file(source.uri, source.size_bytes, max_bytes)
    Metrics.counter(NAMESPACE, "files_hashed").inc()
    if content_hash is not None:
        Metrics.counter(NAMESPACE, "bytes_hashed").inc(source.size_bytes)
    return content_hash
