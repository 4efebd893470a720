"""Log chunking: whole entries packed up to the size.

An *entry* is a line that starts with a timestamp plus every following line
that does not (a stack trace, a config dump, a wrapped message), so an entry
is never split across chunks while it fits. Entries are packed greedily up to
``size`` (``units.py``); only an entry over ``size`` on its own is split,
recursively, between its lines first. Each chunk records the timestamps of its
first and last entries in ``metadata.first_timestamp`` / ``last_timestamp``.

Recognised timestamps, at the start of a line, optionally after ``[``, ``(``
or ``<``: ISO 8601 dates with a time (``2016-12-19 16:31:46,143``,
``2016-12-19T16:31:46Z``), ``2016/12/19 16:31:46``, Apache access logs
(``19/Dec/2016:16:31:46``) and syslog (``Dec 19 16:31:46``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    SizedStrategy,
    spans_to_chunks,
)
from ragbeam.transforms.chunk.units import pack_units, units_between
from ragbeam.transforms.types import Chunk, Document

TIMESTAMP = re.compile(
    r"^[^\S\n]*[\[(<]?[^\S\n]*("
    r"\d{4}[-/]\d{2}[-/]\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2}(?: [+-]\d{4})?"
    r"|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}"
    r")",
    re.MULTILINE,
)


def entry_starts(text: str) -> list[tuple[int, str]]:
    """``(offset, timestamp)`` of every line that starts a log entry."""
    return [(m.start(), m.group(1)) for m in TIMESTAMP.finditer(text)]


def timestamped_line_share(text: str) -> float:
    """Share of non-empty lines that start with a timestamp (for routing)."""
    lines = sum(1 for line in text.split("\n") if line.strip())
    return len(entry_starts(text)) / lines if lines else 0.0


class LogStrategy(SizedStrategy):
    name = "log"

    def chunk(self, doc: Document) -> ChunkingResult:
        text = doc.text
        entries = entry_starts(text)
        offsets = [offset for offset, _ in entries]
        units = units_between(text, offsets, 0, len(text))
        spans, hard_cuts = pack_units(text, units, self.size, self.sizer, self.overlap)
        chunks: list[Chunk] = []
        for chunk in spans_to_chunks(doc, spans):
            first = bisect.bisect_right(offsets, chunk.start) - 1
            last = bisect.bisect_left(offsets, chunk.end) - 1
            if last >= 0:
                chunk = replace(chunk, metadata={
                    "first_timestamp": entries[max(first, 0)][1],
                    "last_timestamp": entries[last][1],
                })
            chunks.append(chunk)
        return ChunkingResult(chunks, {"hard_cuts": hard_cuts, "log_entries": len(entries)})
