"""What the sink counts in the rows it writes (pure), for ``run.json``.

Counted per shard as it is written and summed at finalize, so the counts are
those of the committed output, exactly once, on every runner, without reading
the output back. Each function gives the counter names a row adds 1 to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ragbeam.schemas.documents import GOOD_STATUSES
from ragbeam.transforms.errors import INCOMPLETE_KEY
from ragbeam.transforms.write.rows import DROPPED_KEY, ERROR_CARRIED_KEY, GAVE_UP_KEY

# Chunks with nothing to search for that the chunk stage did not emit
# (``transforms/chunk/searchable.py``): its documents metadata, summed for run.json.
DROPPED_CHUNKS_KEY = f"chunk_{DROPPED_KEY}"  # how chunked_document_row names a stat
DROPPED_CHUNKS_COUNTER = "chunks_dropped_unsearchable"


def document_counters(row: Mapping[str, Any]) -> list[str]:
    status = row["status"]
    metadata = row.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        metadata = dict(metadata)
    counters = [f"status:{status}"]
    if metadata.get(ERROR_CARRIED_KEY) == "true":
        counters.append(f"carried:{status}")
    if metadata.get(GAVE_UP_KEY) == "true":
        counters.append("gave_up")
    if metadata.get(INCOMPLETE_KEY) and status in GOOD_STATUSES:  # some text missing
        counters.append(f"incomplete:{metadata[INCOMPLETE_KEY]}")
    if status == "ok":  # chunked in this run (an unchanged row carries an old count)
        dropped = metadata.get(DROPPED_CHUNKS_KEY, "0")
        counters.extend([DROPPED_CHUNKS_COUNTER] * (int(dropped) if dropped.isdigit() else 0))
    return counters


def error_counters(row: Mapping[str, Any]) -> list[str]:
    return [f"type:{row['stage']}: {row['error_type']}", f"class:{row['error_class']}"]


def change_counters(row: Mapping[str, Any]) -> list[str]:
    return [f"op:{row['op']}"]


def chunk_counters(row: Mapping[str, Any]) -> list[str]:
    return ["rows", "embedded"] if row.get("embedding") is not None else ["rows"]


TABLE_COUNTERS: Mapping[str, Callable[[Mapping[str, Any]], list[str]]] = {
    "chunks": chunk_counters,
    "documents": document_counters,
    "errors": error_counters,
    "changes": change_counters,
}
