"""Boilerplate that repeats across a corpus: licence texts, disclaimers, notices.

Page furniture repeats inside one document; a licence block repeats across
documents: every Project Gutenberg e-book ends with the same licence, every
report of one company carries the same disclaimer. No single document shows
that, so this step looks at the whole run (``dofn.RemoveCorpusBoilerplate``):

1. every cleaned paragraph or list item of at least ``MIN_WORDS`` words gets a
   fingerprint of its words (case-folded, whitespace-collapsed);
2. a fingerprint found in at least ``MIN_DOCUMENTS`` different documents of the
   run is boilerplate;
3. each document loses its boilerplate blocks, unless they would take more
   than ``MAX_SHARE`` of its words: then the documents are copies or versions
   of one text, not carriers of one notice, and nothing is removed.

No strings or file names are known in advance: a block is boilerplate only by
repetition. The price is that a document's text depends on the other documents
of the run (same input set → same output; an incremental run sees only the
documents it re-processes, so a notice shared by fewer of those stays).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from itertools import groupby

from ragbeam.transforms.types import BlockKind, Document

MIN_WORDS = 12
MIN_DOCUMENTS = 3
MAX_SHARE = 0.3
BLOCK_SEPARATOR = "\n\n"
_CANDIDATE_KINDS = {BlockKind.PARAGRAPH, BlockKind.LIST_ITEM}


def _blocks(doc: Document) -> list[tuple[int, int, int, BlockKind]]:
    """``(block, start, end, kind)`` of each cleaned block, in order."""
    out = []
    for block, spans in groupby(doc.spans, key=lambda span: span.block):
        spans = list(spans)
        out.append((block, spans[0].start, spans[-1].end, spans[0].kind))
    return out


def _fingerprint(text: str) -> str | None:
    words = text.casefold().split()
    if len(words) < MIN_WORDS:
        return None
    return hashlib.sha1(" ".join(words).encode("utf-8")).hexdigest()[:20]


def block_fingerprints(doc: Document) -> set[str]:
    """Fingerprints of the document's paragraphs and list items long enough to count."""
    found = set()
    for _, start, end, kind in _blocks(doc):
        if kind in _CANDIDATE_KINDS and (fp := _fingerprint(doc.text[start:end])):
            found.add(fp)
    return found


def remove_boilerplate(doc: Document, boilerplate: frozenset[str] | set[str]) -> Document:
    """The document without its blocks whose fingerprint is in ``boilerplate``.

    Adds ``clean_boilerplate_blocks_removed`` (and the words it removed) to the
    metadata; unchanged when nothing matches or more than ``MAX_SHARE`` would go.
    """
    blocks = _blocks(doc)
    drop = set()
    for block, start, end, kind in blocks:
        if kind in _CANDIDATE_KINDS and _fingerprint(doc.text[start:end]) in boilerplate:
            drop.add(block)
    dropped_words = sum(len(doc.text[s:e].split()) for b, s, e, _ in blocks if b in drop)
    total_words = len(doc.text.split())
    if not drop or dropped_words > MAX_SHARE * total_words:
        return replace(doc, metadata={**doc.metadata, "clean_boilerplate_blocks_removed": "0"})
    parts: list[str] = []
    spans = []
    cursor = 0
    index = 0
    for block, group in groupby(doc.spans, key=lambda span: span.block):
        if block in drop:
            continue
        group = list(group)
        start, end = group[0].start, group[-1].end
        if parts:
            parts.append(BLOCK_SEPARATOR)
            cursor += len(BLOCK_SEPARATOR)
        shift = cursor - start
        parts.append(doc.text[start:end])
        spans.extend(replace(span, start=span.start + shift, end=span.end + shift, block=index)
                     for span in group)
        cursor += end - start
        index += 1
    metadata = {**doc.metadata, "clean_boilerplate_blocks_removed": str(len(drop)),
                "clean_boilerplate_words_removed": str(dropped_words)}
    return replace(doc, text="".join(parts), spans=tuple(spans), metadata=metadata)
