"""Chunks of one document → rows of the ``chunks`` table (pure)."""

from __future__ import annotations

from collections.abc import Mapping

from ragbeam.schemas.chunks import ChunkRow, build_chunk_row
from ragbeam.transforms.chunk.sizing import Sizer
from ragbeam.transforms.chunk.table import TABLE_HEADER_KEY, TABLE_TITLE_KEY, with_table_headers
from ragbeam.transforms.embed.text import CONTEXT_SEPARATOR, embed_text_for
from ragbeam.transforms.ids import chunk_ids_for
from ragbeam.transforms.types import Chunk, Document


def context_header(doc: Document, heading_path: tuple[str, ...]) -> str:
    """Title and heading path, e.g. ``"Guide > Install > Linux"``.

    Stored apart from ``text`` so offsets stay exact; join them when embedding.
    """
    parts = [doc.title] if doc.title else []
    for heading in heading_path:
        if not parts or parts[-1] != heading:
            parts.append(heading)
    return CONTEXT_SEPARATOR.join(parts)


def chunk_context(doc: Document, chunk: Chunk) -> str:
    """The contextual header of one chunk: title and heading path, plus, for a table
    chunk, the table's title and its header row where its text does not hold them."""
    context = context_header(doc, chunk.heading_path)
    return "\n".join(part for part in (context, chunk.metadata.get(TABLE_TITLE_KEY),
                                        chunk.metadata.get(TABLE_HEADER_KEY)) if part)


def chunk_rows(
    doc: Document,
    chunks: list[Chunk],
    strategy: str,
    config_hash: str,
    token_counter: Sizer,
    extra_metadata: Mapping[str, str] | None = None,
    embed_text: bool = False,
) -> list[ChunkRow]:
    chunks = with_table_headers(doc, chunks)
    contexts = [chunk_context(doc, chunk) for chunk in chunks]
    ids = chunk_ids_for(doc.doc_id, config_hash,
                        ((str(c.level), context, c.text)
                         for c, context in zip(chunks, contexts, strict=True)))
    rows = []
    for index, (chunk, chunk_id, context) in enumerate(zip(chunks, ids, contexts, strict=True)):
        page_start, page_end = doc.pages_of(chunk.start, chunk.end)
        raw_start, raw_end = doc.raw_range_of(chunk.start, chunk.end)
        metadata = {"raw_char_start": str(raw_start), "raw_char_end": str(raw_end)}
        metadata.update(extra_metadata or {})
        metadata.update(chunk.metadata)
        rows.append(build_chunk_row(
            chunk_id=chunk_id,
            doc_id=doc.doc_id,
            parent_id=ids[chunk.parent] if chunk.parent is not None else None,
            chunk_index=index,
            level=str(chunk.level),
            strategy=strategy,
            text=chunk.text,
            context=context,
            embed_text=embed_text_for(context, chunk.text) if embed_text else None,
            char_start=chunk.start,
            char_end=chunk.end,
            page_start=page_start,
            page_end=page_end,
            heading_path=list(chunk.heading_path),
            # Exact, from the document's one tokenisation (sizing.TokenPass).
            token_count=token_counter.span(doc.text, chunk.start, chunk.end),
            char_count=len(chunk.text),
            source_uri=doc.source.uri,
            media_type=doc.media_type,
            config_hash=config_hash,
            metadata=metadata,
        ))
    return rows
