"""Chunks of one document → rows of the ``chunks`` table (pure)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from ragbeam.schemas.chunks import ChunkRow, build_chunk_row
from ragbeam.transforms.chunk.base import ContentsIndex
from ragbeam.transforms.chunk.sizing import Sizer
from ragbeam.transforms.chunk.table import TABLE_HEADER_KEY, TABLE_TITLE_KEY, with_table_headers
from ragbeam.transforms.embed.text import (
    CONTEXT_SEPARATOR,
    KIND_KEY,
    PERIOD_KEY,
    dense_text_for,
    document_label,
    headings_after_label,
)
from ragbeam.transforms.ids import chunk_ids_for
from ragbeam.transforms.types import Chunk, Document


def doc_label(doc: Document) -> str:
    """What names the document in its chunks' headers: its title, kind and period
    (``transforms/clean/title.py`` finds them)."""
    return document_label(doc.title, doc.metadata.get(KIND_KEY), doc.metadata.get(PERIOD_KEY))


def context_header(doc: Document, heading_path: tuple[str, ...],
                   label: str | None = None) -> str:
    """The document's label and the heading path, e.g. ``"Apple Inc. · Form 10-Q ·
    quarterly period ended December 31, 2022 > Item 2. … > Gross Margin"``.
    ``label``: the document's ``doc_label``, where the caller has it already.

    Stored apart from ``text`` so offsets stay exact; join them when embedding.
    """
    label = doc_label(doc) if label is None else label
    return CONTEXT_SEPARATOR.join(([label] if label else [])
                                  + headings_after_label(label, heading_path))


# chunks.metadata key: "1" on a chunk that is mostly a contents page's or an index's
# lines (navigation: it lists the document's headings or words, it answers nothing).
TOC_KEY = "toc"
MIN_TOC_SHARE = 0.5


def navigation_metadata(contents: ContentsIndex, chunk: Chunk) -> dict[str, str]:
    """``{"toc": "1"}`` for a chunk that is mostly contents lines, else nothing."""
    return {TOC_KEY: "1"} if contents.share(chunk.start, chunk.end) >= MIN_TOC_SHARE else {}


# A reference list's heading (a paper's "References", an encyclopedia article's
# "Bibliography", "Works cited"; the titles ``clean/headings.py`` finds a paper's
# reference list by), with or without its section number ("7 References", "VI. REFERENCES").
_REFERENCE_LIST = re.compile(
    r"^(?:(?:\d+(?:\.\d+)*|[IVXLC]+)\.?\s+)?"
    r"(?:references|bibliography|works\s+cited|literature\s+cited|literatur(?:verzeichnis)?|"
    r"r[ée]f[ée]rences(?:\s+bibliographiques)?|bibliographie)$", re.IGNORECASE)
# A line that reads as a citation entry: it starts with an entry's label ("[12]", "12. ",
# a wiki's "^ " or "↑") or names a year (author-year entries: "Brian Kulis. 2013. …").
_ENTRY_LINE = re.compile(r"^\s*(?:\[\d{1,4}\]|\d{1,4}\.\s|\^\s|↑)"
                         r"|(?<!\d)(?:1[6-9]|20)\d\d[a-z]?(?!\d)")
# The share of a chunk's characters (but its heading) on entry lines that makes it a
# reference list's: below it the chunk is a section the heading path misplaces (an
# appendix whose heading was not found), a guide's section about citing, or a note's
# quoted passage.
MIN_ENTRY_SHARE = 0.5


def in_reference_list(chunk: Chunk) -> bool:
    """Whether the chunk is a reference list's: a heading of its path names one, and its
    lines read mostly as citation entries (``MIN_ENTRY_SHARE``)."""
    if not any(_REFERENCE_LIST.match(heading.strip()) for heading in chunk.heading_path):
        return False
    lines = [line for line in chunk.text.split("\n") if line.strip()]
    if lines and _REFERENCE_LIST.match(lines[0].strip()):
        lines = lines[1:]
    total = sum(len(line) for line in lines)
    return total > 0 and sum(len(line) for line in lines
                             if _ENTRY_LINE.search(line)) >= MIN_ENTRY_SHARE * total


def without_navigation(doc: Document, chunks: list[Chunk]) -> list[Chunk]:
    """The chunks but those that are mostly a contents page's or an index's lines, and
    those of a reference list's entries (``in_reference_list``): kept out of the index. Contents
    and indexes list the document's headings and words and answer nothing (measured on
    the retrieval benchmark: docs/strategies.md). A reference list's entries are other
    works' titles, which repeat the document's own subject in a few words each: packed
    a hundred tokens to a chunk they outrank the passage that answers (a printed
    encyclopedia article's reference list is a third of its chunks); the document's
    text keeps them. A parent of other chunks stays (flagged ``toc`` where it is
    contents), but a reference list's parent whose children all went; parents are
    renumbered."""
    contents = ContentsIndex(doc)
    references = [in_reference_list(chunk) for chunk in chunks]
    parents = {chunk.parent for chunk in chunks if chunk.parent is not None}
    kept_children = {chunk.parent for i, chunk in enumerate(chunks)
                     if chunk.parent is not None and not references[i]}
    kept = [i for i, chunk in enumerate(chunks)
            if (i in parents and (not references[i] or i in kept_children))
            or (contents.share(chunk.start, chunk.end) < MIN_TOC_SHARE and not references[i])]
    if len(kept) == len(chunks):
        return chunks
    renumbered = {old: new for new, old in enumerate(kept)}
    return [replace(chunks[i], parent=renumbered[chunks[i].parent])
            if chunks[i].parent is not None else chunks[i] for i in kept]


def _collapsed(line: str) -> str:
    return " ".join(line.split())


def restates_next_header(chunk: Chunk, following: Chunk) -> bool:
    """Whether every line of ``chunk`` is a heading of its own path, or a heading, a
    table's title or a table's header row that the chunk right after it carries in its
    header: a section's heading and the title of the table that fills it ("Note 5 —
    Debt / Our long-term debt is as follows:"), a slide's title over its table, cut
    off as a chunk of their own, answer nothing that the next chunk does not say."""
    said = {_collapsed(h) for h in (*chunk.heading_path, *following.heading_path)}
    for key in (TABLE_TITLE_KEY, TABLE_HEADER_KEY):
        said.update(_collapsed(line) for line in following.metadata.get(key, "").split("\n"))
    lines = [_collapsed(line) for line in chunk.text.splitlines() if line.strip()]
    return bool(lines) and all(line in said for line in lines)


def without_restatements(chunks: list[Chunk]) -> list[Chunk]:
    """The chunks but those that only restate the next chunk's header
    (``restates_next_header``): kept out of the index, where their few words matched a
    question as well as the chunk they head and took its place in a context (measured
    on the retrieval benchmark: docs/benchmarks.md). A parent of other chunks stays;
    parents are renumbered."""
    parents = {chunk.parent for chunk in chunks if chunk.parent is not None}
    kept = [i for i, chunk in enumerate(chunks)
            if i in parents or i + 1 == len(chunks)
            or chunks[i + 1].level != chunk.level
            or not restates_next_header(chunk, chunks[i + 1])]
    if len(kept) == len(chunks):
        return chunks
    renumbered = {old: new for new, old in enumerate(kept)}
    return [replace(chunks[i], parent=renumbered[chunks[i].parent])
            if chunks[i].parent is not None else chunks[i] for i in kept]


def chunk_context(doc: Document, chunk: Chunk, label: str | None = None) -> str:
    """The contextual header of one chunk: title and heading path, plus, for a table
    chunk, the table's title and its header row where its text does not hold them.
    ``label``: the document's ``doc_label``, where the caller has it already."""
    context = context_header(doc, chunk.heading_path, label)
    return "\n".join(part for part in (context, chunk.metadata.get(TABLE_TITLE_KEY),
                                        chunk.metadata.get(TABLE_HEADER_KEY)) if part)


def chunk_contexts(doc: Document, chunks: list[Chunk]) -> list[str]:
    """``chunk_context`` of each chunk: the label made once, and each header once for
    the chunks that share it (the chunks of a section share their heading path)."""
    label = doc_label(doc)
    made: dict[tuple[tuple[str, ...], str | None, str | None], str] = {}
    contexts = []
    for chunk in chunks:
        key = (chunk.heading_path, chunk.metadata.get(TABLE_TITLE_KEY),
               chunk.metadata.get(TABLE_HEADER_KEY))
        context = made.get(key)
        if context is None:
            context = made[key] = chunk_context(doc, chunk, label)
        contexts.append(context)
    return contexts


def chunk_rows(
    doc: Document,
    chunks: list[Chunk],
    strategy: str,
    config_hash: str,
    token_counter: Sizer,
    extra_metadata: Mapping[str, str] | None = None,
    embed_text: bool = False,
) -> list[ChunkRow]:
    chunks = without_navigation(doc, without_restatements(with_table_headers(doc, chunks)))
    contexts = chunk_contexts(doc, chunks)
    contents = ContentsIndex(doc)
    ids = chunk_ids_for(doc.doc_id, config_hash,
                        ((str(c.level), context, c.text)
                         for c, context in zip(chunks, contexts, strict=True)))
    # What every row of the document shares, looked up once (tens of thousands of rows
    # a run).
    doc_id, text, source_uri, media_type = doc.doc_id, doc.text, doc.source.uri, doc.media_type
    extra = dict(extra_metadata or {})
    rows = []
    for index, (chunk, chunk_id, context) in enumerate(zip(chunks, ids, contexts, strict=True)):
        start, end = chunk.start, chunk.end
        page_start, page_end = doc.pages_of(start, end)
        raw_start, raw_end = doc.raw_range_of(start, end)
        metadata = {"raw_char_start": str(raw_start), "raw_char_end": str(raw_end)}
        if extra:
            metadata.update(extra)
        if chunk.metadata:
            metadata.update(chunk.metadata)
        if contents.share(start, end) >= MIN_TOC_SHARE:  # navigation_metadata
            metadata[TOC_KEY] = "1"
        rows.append(build_chunk_row(
            chunk_id=chunk_id,
            doc_id=doc_id,
            parent_id=ids[chunk.parent] if chunk.parent is not None else None,
            chunk_index=index,
            level=str(chunk.level),
            strategy=strategy,
            text=chunk.text,
            context=context,
            embed_text=(dense_text_for(context, chunk.text, chunk.heading_path)
                        if embed_text else None),
            char_start=start,
            char_end=end,
            page_start=page_start,
            page_end=page_end,
            heading_path=list(chunk.heading_path),
            # Exact, from the document's one tokenisation (sizing.TokenPass).
            token_count=token_counter.span(text, start, end),
            char_count=len(chunk.text),
            source_uri=source_uri,
            media_type=media_type,
            config_hash=config_hash,
            metadata=metadata,
        ))
    return rows
