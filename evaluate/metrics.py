"""Label-free figures of a run: what the chunks look like, without any questions.

Definitions (all over *indexed* chunks: parents of parent-child are context,
not index entries, and are only counted in ``parents``):

* size distribution in chars and tokens: mean, median, p5, p95;
* ``share_at_cap``: chunks whose size, in the run's ``--size-unit``, is at
  least ``AT_CAP_RATIO`` of ``--chunk-size`` (the cap cut them, not the text);
* ``share_tiny``: chunks under ``TINY_RATIO`` of the cap;
* ``mid_sentence_break_rate``: share of chunks whose end is not a sentence end
  (see ``ends_mid_sentence``);
* ``index_tokens``: sum of ``token_count``;
* ``overlap_redundancy``: share of indexed tokens spent on characters another
  chunk of the same document already covers (0 without overlap);
* ``furniture_removed``: page headers/footers/page numbers the cleaner removed,
  summed from the ``documents.metadata`` counters.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ragbeam.evaluate.run_data import ChunkRow, DocumentRow, RunData, base_media_type

AT_CAP_RATIO = 0.98
TINY_RATIO = 0.1
ALL = "all"

_CLOSERS = "”’\"'」』）)】》]"
# A sentence ends with . ! ? … or their full-width forms, optionally followed by
# closing quotes/brackets. ASCII marks count only before whitespace or the end
# (so "3.2" and "e.g" are not sentence ends); CJK marks count anywhere.
_SENTENCE_END = re.compile(rf"(?:[。！？]|……|…|[.!?])[{re.escape(_CLOSERS)}]*$")
_ASCII_END = re.compile(rf"[.!?][{re.escape(_CLOSERS)}]*$")
# Counters the cleaner writes into documents.metadata for removed page furniture.
_FURNITURE_KEY = re.compile(r"furniture", re.IGNORECASE)


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of already sorted values (q in 0..100)."""
    if not sorted_values:
        return 0.0
    pos = (len(sorted_values) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def distribution(values: Iterable[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"mean": 0.0, "median": 0.0, "p5": 0.0, "p95": 0.0, "min": 0, "max": 0}
    return {
        "mean": round(sum(ordered) / len(ordered), 1),
        "median": round(percentile(ordered, 50), 1),
        "p5": round(percentile(ordered, 5), 1),
        "p95": round(percentile(ordered, 95), 1),
        "min": ordered[0],
        "max": ordered[-1],
    }


def ends_mid_sentence(doc_text: str, char_end: int, chunk_text: str) -> bool:
    """True when a chunk stops inside a sentence.

    A chunk ends cleanly when its last visible character closes a sentence, or
    when the document's text continues with a line break (headings, list
    items and table rows end at line ends, not full stops), or at the end of
    the document.
    """
    stripped = chunk_text.rstrip()
    rest = doc_text[char_end:]
    following = rest.lstrip(" \t\u00a0\u3000")
    if not following or following[0] in "\n\r\f\u2028\u2029":
        return False
    if not stripped:
        return True
    if _SENTENCE_END.search(stripped):
        ascii_end = _ASCII_END.search(stripped)
        # "3.|2": an ASCII mark directly followed by more text is not an end.
        return bool(ascii_end) and not rest[:1].isspace()
    return True


def _chunk_ends_mid_sentence(chunk: ChunkRow, texts: Mapping[str, str]) -> bool:
    if chunk.doc_id in texts:
        return ends_mid_sentence(texts[chunk.doc_id], chunk.char_end, chunk.text)
    # Without the document text, judge by the chunk's own last characters.
    return not _SENTENCE_END.search(chunk.text.rstrip())


def overlap_duplicate_tokens(chunks: Sequence[ChunkRow]) -> float:
    """Tokens of ``chunks`` (one document) spent on characters covered earlier.

    Chunks are taken by start offset; a chunk's characters below the end of
    everything seen so far are duplicates, charged at its own tokens per char.
    """
    duplicate = 0.0
    covered_until = -1
    for c in sorted(chunks, key=lambda c: (c.char_start, c.char_end)):
        dup_chars = max(0, min(covered_until, c.char_end) - c.char_start)
        duplicate += c.token_count * dup_chars / max(c.char_end - c.char_start, 1)
        covered_until = max(covered_until, c.char_end)
    return duplicate


def furniture_removed(metadata: Mapping[str, str]) -> int:
    """Sum of the cleaner's header/footer/page-number removal counters."""
    total = 0
    for key, value in metadata.items():
        if _FURNITURE_KEY.search(key) and str(value).strip().isdigit():
            total += int(value)
    return total


def chunk_figures(chunks: Sequence[ChunkRow], texts: Mapping[str, str], cap: int, unit: str
                  ) -> dict[str, Any]:
    """Figures of one group of chunks (a strategy, or a strategy × media type)."""
    indexed = [c for c in chunks if c.indexed]
    parent_rows = [c for c in chunks if not c.indexed]
    parents = len(parent_rows)
    sizes_in_unit = [c.token_count if unit == "tokens" else c.char_count for c in indexed]
    n = len(indexed)
    mid = sum(_chunk_ends_mid_sentence(c, texts) for c in indexed)
    by_doc: dict[str, list[ChunkRow]] = defaultdict(list)
    for c in indexed:
        by_doc[c.doc_id].append(c)
    index_tokens = sum(c.token_count for c in indexed)
    duplicate = sum(overlap_duplicate_tokens(group) for group in by_doc.values())
    return {
        "chunks": n,
        "parents": parents,
        # What a retrieved child really costs in the context (parent-child).
        "parent_tokens": distribution(c.token_count for c in parent_rows),
        "documents": len(by_doc),
        "chars": distribution(c.char_count for c in indexed),
        "tokens": distribution(c.token_count for c in indexed),
        "share_at_cap": round(sum(s >= AT_CAP_RATIO * cap for s in sizes_in_unit) / n, 4)
        if n else 0.0,
        "share_tiny": round(sum(s < TINY_RATIO * cap for s in sizes_in_unit) / n, 4)
        if n else 0.0,
        "mid_sentence_breaks": mid,
        "mid_sentence_break_rate": round(mid / n, 4) if n else 0.0,
        "index_tokens": index_tokens,
        "overlap_redundancy": round(duplicate / index_tokens, 4) if index_tokens else 0.0,
    }


def run_figures(run: RunData) -> dict[str, Any]:
    """Label-free figures per strategy, and per strategy × media type.

    Returns ``{"cap": {...}, "by_strategy": {strategy: figures},
    "by_strategy_media_type": {strategy: {media_type: figures}}, "documents": {...}}``.
    """
    cap, unit = run.chunk_cap
    groups: dict[str, dict[str, list[ChunkRow]]] = defaultdict(lambda: defaultdict(list))
    for c in run.chunks:
        groups[c.strategy][base_media_type(c.media_type)].append(c)
    by_strategy: dict[str, Any] = {}
    by_media: dict[str, Any] = {}
    docs_by_strategy: dict[str, list[DocumentRow]] = defaultdict(list)
    for d in run.documents:
        if d.status == "ok" and d.strategy:
            docs_by_strategy[d.strategy].append(d)
    for strategy in sorted(groups):
        media = groups[strategy]
        all_chunks = [c for cs in media.values() for c in cs]
        figures = chunk_figures(all_chunks, run.texts, cap, unit)
        figures["furniture_removed"] = sum(furniture_removed(d.metadata)
                                           for d in docs_by_strategy[strategy])
        by_strategy[strategy] = figures
        by_media[strategy] = {m: chunk_figures(cs, run.texts, cap, unit)
                              for m, cs in sorted(media.items())}
    statuses: dict[str, int] = defaultdict(int)
    for d in run.documents:
        statuses[d.status] += 1
    return {
        "cap": {"size": cap, "unit": unit},
        "documents": dict(sorted(statuses.items())),
        "furniture_removed": sum(furniture_removed(d.metadata) for d in run.documents),
        "by_strategy": by_strategy,
        "by_strategy_media_type": by_media,
    }
