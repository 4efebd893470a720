"""Label-free figures of a run: what the chunks look like, without any questions.

Definitions (all over *indexed* chunks: parents of parent-child are context,
not index entries, and are only counted in ``parents``):

* size distribution in chars and tokens: mean, median, p5, p95;
* ``share_at_cap``: chunks whose size, in the run's ``--size-unit``, is at
  least ``AT_CAP_RATIO`` of ``--chunk-size`` (the cap cut them, not the text);
* ``share_tiny``: chunks under ``TINY_RATIO`` of the cap;
* ``mid_sentence_break_rate``: share of chunks, each document's last aside,
  whose end is not a sentence end by the project's one sentence segmenter —
  the same ``count_breaks`` as ``benchmarks/chunking_quality.py`` and the tests
  (``evaluate/chunk_quality.py``);
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

from ragbeam.evaluate.chunk_quality import NO_BREAKS, BreakCount, count_breaks
from ragbeam.evaluate.run_data import ChunkRecord, DocumentRecord, RunData, base_media_type
from ragbeam.transforms.chunk.sentences import sentence_ends

AT_CAP_RATIO = 0.98
TINY_RATIO = 0.1
ALL = "all"

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


def ends_mid_sentence(doc_text: str, char_end: int) -> bool:
    """True when a chunk ending at ``char_end`` stops inside a sentence."""
    return not sentence_ends(doc_text).is_end(char_end)


def document_breaks(chunks: Sequence[ChunkRecord], texts: Mapping[str, str], cap_chars: int | None
                    ) -> BreakCount:
    """Mid-sentence breaks among indexed chunks, document by document."""
    by_doc: dict[str, list[int]] = defaultdict(list)
    for c in chunks:
        if c.doc_id in texts:  # eval always loads the texts; a row without one is skipped
            by_doc[c.doc_id].append(c.char_end)
    total = NO_BREAKS
    for doc_id, ends in by_doc.items():
        total += count_breaks(texts[doc_id], ends, cap_chars)
    return total


def overlap_duplicate_tokens(chunks: Sequence[ChunkRecord]) -> float:
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


def chunk_figures(chunks: Sequence[ChunkRecord], texts: Mapping[str, str], cap: int, unit: str
                  ) -> dict[str, Any]:
    """Figures of one group of chunks (a strategy, or a strategy × media type)."""
    indexed = [c for c in chunks if c.indexed]
    parent_rows = [c for c in chunks if not c.indexed]
    parents = len(parent_rows)
    sizes_in_unit = [c.token_count if unit == "tokens" else c.char_count for c in indexed]
    n = len(indexed)
    breaks = document_breaks(indexed, texts, cap if unit == "chars" else None)
    by_doc: dict[str, list[ChunkRecord]] = defaultdict(list)
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
        "breaks_counted": breaks.counted,
        "mid_sentence_breaks": breaks.mid_sentence,
        "mid_sentence_break_rate": round(breaks.mid_sentence / breaks.counted, 4)
        if breaks.counted else 0.0,
        "forced_breaks": breaks.forced if unit == "chars" else None,
        "index_tokens": index_tokens,
        "overlap_redundancy": round(duplicate / index_tokens, 4) if index_tokens else 0.0,
    }


def run_figures(run: RunData) -> dict[str, Any]:
    """Label-free figures per strategy, and per strategy × media type.

    Returns ``{"cap": {...}, "by_strategy": {strategy: figures},
    "by_strategy_media_type": {strategy: {media_type: figures}}, "documents": {...}}``.
    """
    cap, unit = run.chunk_cap
    groups: dict[str, dict[str, list[ChunkRecord]]] = defaultdict(lambda: defaultdict(list))
    for c in run.chunks:
        groups[c.strategy][base_media_type(c.media_type)].append(c)
    by_strategy: dict[str, Any] = {}
    by_media: dict[str, Any] = {}
    docs_by_strategy: dict[str, list[DocumentRecord]] = defaultdict(list)
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
