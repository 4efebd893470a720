"""Token-level retrieval figures: how much of the reference text the top k chunks cover.

Chroma's chunking evaluation ("Evaluating Chunking Strategies for Retrieval",
Smith & Troynikov 2024): each question carries reference excerpts of its
answer document; the k best-ranked chunks are retrieved, and

* recall = reference characters covered by a retrieved chunk / reference characters;
* precision = reference characters covered / characters of the retrieved chunks
  (summed: text retrieved twice through overlap is paid twice);
* IoU = covered / (retrieved characters + reference characters − covered).

All three are means over questions, in percent, like the published tables.
Chroma counts positions in the text (its implementation measures character
ranges of the corpus although the paper says "tokens"); so does this module,
in the cleaned text the chunks' offsets point into. A parent-child child
retrieves its parent (what a user would send on), each parent once.
Questions without ``references`` use their ``answer_text`` as the one excerpt.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

DEFAULT_K = 5


def locate_excerpt(text: str, excerpt: str) -> tuple[int, int] | None:
    """``(start, end)`` of ``excerpt`` in ``text``: exact, else with any whitespace
    run matching any other and case folded (extraction re-wraps lines)."""
    start = text.find(excerpt)
    if start >= 0:
        return start, start + len(excerpt)
    words = excerpt.split()
    if not words:
        return None
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
    match = pattern.search(text)
    return (match.start(), match.end()) if match else None


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def _covered(references: list[tuple[int, int]], retrieved: Sequence[tuple[int, int]]) -> int:
    """Reference characters inside the union of the retrieved spans."""
    union = _merge(retrieved)
    return sum(max(0, min(e, re_) - max(s, rs)) for rs, re_ in references for s, e in union)


@dataclass(frozen=True)
class SpanScore:
    recall: float
    precision: float
    iou: float


def score_spans(references: Sequence[tuple[int, int]],
                retrieved_in_doc: Sequence[tuple[int, int]], retrieved_chars: int) -> SpanScore:
    """One question: reference spans and retrieved spans of the answer document,
    and the characters of everything retrieved (any document)."""
    refs = _merge(references)
    ref_chars = sum(e - s for s, e in refs)
    covered = _covered(refs, retrieved_in_doc)
    recall = covered / ref_chars if ref_chars else 0.0
    precision = covered / retrieved_chars if retrieved_chars else 0.0
    union = retrieved_chars + ref_chars - covered
    return SpanScore(recall, precision, covered / union if union else 0.0)


def mean_scores(scores: Sequence[SpanScore]) -> Mapping[str, float | int]:
    n = len(scores)
    if not n:
        return {"questions": 0, "recall": 0.0, "precision": 0.0, "iou": 0.0}
    return {"questions": n,
            "recall": round(100 * sum(s.recall for s in scores) / n, 2),
            "precision": round(100 * sum(s.precision for s in scores) / n, 2),
            "iou": round(100 * sum(s.iou for s in scores) / n, 2)}
