"""A file's sha256, streamed from wherever it is (``transforms/storage.py``): the
content identity that Read records, computed earlier where a decision needs it (the
incremental comparison, files of a shared size in ``IdentifyContent``, the dry run
and a night without a pipeline)."""

from __future__ import annotations

import hashlib

from ragbeam.transforms import storage

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
        # As stored (no decompression by extension), as in Read: the bytes on disk.
        with storage.open_read(uri) as f:
            while block := f.read(HASH_BLOCK_BYTES):
                digest.update(block)
    except Exception:
        return None
    return digest.hexdigest()
