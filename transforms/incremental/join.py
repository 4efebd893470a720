"""The tags of the values meeting in the incremental joins by doc id (``Join by doc
id`` of ``CompareWithPrevious``, ``Reconcile``), and the metrics namespace of the
incremental transforms."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

NAMESPACE = "ragbeam.incremental"

# Tags of the values meeting in the joins (``Join by doc id``, ``Reconcile``).
CURRENT, PREVIOUS, DOCUMENTS, CHUNKS, FAILURES, DIGESTS = (
    "current", "previous", "documents", "chunks", "failures", "digests")


def grouped_by_tag(values: Iterable[tuple[str, Any]]) -> dict[str, list[Any]]:
    """The values of one key of a tagged join, by tag."""
    grouped: dict[str, list[Any]] = {}
    for tag, value in values:
        grouped.setdefault(tag, []).append(value)
    return grouped
