"""Build the cleaned ``Document`` from extracted blocks (pure).

The cleaned text is the blocks' cleaned texts joined by blank lines; a span map
remembers, for every block, where it landed in the cleaned text, which page it
came from and its range in Tika's raw text. Chunk offsets, pages and raw
offsets all come from that one map.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragbeam.transforms.clean.text import (
    normalize_code_whitespace,
    normalize_unicode,
    normalize_whitespace,
    remove_control_characters,
)
from ragbeam.transforms.types import BlockKind, Document, ExtractedDocument, TextSpan

BLOCK_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class CleanOptions:
    """Switches for each cleaning step (all part of the config fingerprint)."""

    unicode_nfkc: bool = True


def clean_block_text(text: str, kind: BlockKind, options: CleanOptions) -> str:
    text = remove_control_characters(text)
    if options.unicode_nfkc:
        text = normalize_unicode(text)
    if kind is BlockKind.CODE:
        return normalize_code_whitespace(text)
    return normalize_whitespace(text)


def clean_document(extracted: ExtractedDocument, options: CleanOptions) -> Document:
    parts: list[str] = []
    spans: list[TextSpan] = []
    cursor = 0
    for block in extracted.blocks:
        text = clean_block_text(block.text, block.kind, options)
        if not text:
            continue
        if parts:
            parts.append(BLOCK_SEPARATOR)
            cursor += len(BLOCK_SEPARATOR)
        spans.append(TextSpan(start=cursor, end=cursor + len(text), kind=block.kind,
                              page=block.page, level=block.level,
                              raw_start=block.raw_start, raw_end=block.raw_end))
        parts.append(text)
        cursor += len(text)
    return Document(
        source=extracted.source,
        content_hash=extracted.content_hash,
        media_type=extracted.media_type,
        text="".join(parts),
        spans=tuple(spans),
        metadata=dict(extracted.metadata),
        title=extracted.title,
        language=extracted.language,
        page_count=extracted.page_count,
    )
