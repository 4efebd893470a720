"""Choose a strategy from what a document contains (pure).

Signals, tried in this order (thresholds in ``Detection``):

1. question-answer pairs (``faq.question_starts``), enough of them and dense
   enough → ``faq``;
2. most non-empty lines start with a timestamp → ``log``;
3. tables hold most of the text → ``table``;
4. at least a few heading spans → ``structure``;
5. long text with almost no sentence ends or line breaks (OCR output, text
   run together) → ``sliding``;
6. long prose without headings → the long-prose strategy (``semantic``) when
   it is enabled and registered;
7. otherwise the default, ``recursive``.

Each answer comes with a reason in words, stored as
``documents.metadata.route_reason``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ragbeam.transforms.charsets import CJK_SENTENCE_ENDS, SEMICOLONS, SENTENCE_ENDS
from ragbeam.transforms.chunk.faq import question_starts
from ragbeam.transforms.chunk.log import timestamped_line_share
from ragbeam.transforms.route.table import Detection
from ragbeam.transforms.types import BlockKind, Document

_BOUNDARY = re.compile(
    rf"[{re.escape(SENTENCE_ENDS)}{SEMICOLONS}](?=\s|$)|[{CJK_SENTENCE_ENDS}]|\n")


def detect_strategy(doc: Document, detection: Detection,
                    is_available: Callable[[str], bool]) -> tuple[str, str, str]:
    """``(strategy, signal, reason)``: ``signal`` is a short name for metrics."""
    text = doc.text
    length = len(text)
    pairs = question_starts(text)
    if (len(pairs) >= detection.faq_min_pairs
            and length / len(pairs) <= detection.faq_max_chars_per_pair):
        return "faq", "qa_pairs", f"content: {len(pairs)} question-answer pairs"
    lines = sum(1 for line in text.split("\n") if line.strip())
    share = timestamped_line_share(text)
    if lines >= detection.log_min_lines and share >= detection.log_min_share:
        return "log", "timestamps", f"content: {share:.0%} of lines start with a timestamp"
    in_tables = sum(s.end - s.start for s in doc.spans if s.kind is BlockKind.TABLE)
    if length and in_tables / length >= detection.table_min_share:
        return "table", "tables", f"content: tables hold {in_tables / length:.0%} of the text"
    headings = sum(1 for s in doc.spans if s.kind is BlockKind.HEADING)
    if headings >= detection.structure_min_headings:
        return "structure", "headings", f"content: {headings} headings"
    if length >= detection.ocr_min_chars:
        per_1000 = len(_BOUNDARY.findall(text)) * 1000 / length
        if per_1000 < detection.ocr_max_boundaries_per_1000:
            return ("sliding", "no_separators",
                    f"content: {per_1000:.2f} sentence ends or line breaks per 1000 "
                    "characters (OCR-like)")
    prose = detection.long_prose
    if length >= prose.min_chars and headings == 0:
        if prose.enabled and is_available(prose.strategy):
            return (prose.strategy, "long_prose",
                    f"content: long prose without headings ({length} characters)")
        reason = (f"content: long prose without headings ({length} characters); "
                  f"{prose.strategy} {'not registered' if prose.enabled else 'not enabled'}")
        return detection.default, "long_prose_fallback", reason
    return (detection.default, "default",
            "content: no Q/A pairs, timestamps, tables or headings")
