"""What an embedder sees of a chunk: its contextual header (title, heading path,
a table's header row), a blank line, then its text, with no heading twice.

Pure, and below the Chunk stage: chunk rows get their ``embed_text`` from here, and
the Embed stage embeds the same text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Between the parts of a heading path in a chunk's ``context`` ("Guide > Install").
CONTEXT_SEPARATOR = " > "
# Between the title, kind and period of the document label ("Apple Inc. · Form 10-Q").
LABEL_SEPARATOR = " · "
# documents.metadata keys cleaning sets (``transforms/clean/title.py``): where the title
# (the ``title`` column) came from, what the document is and the period it covers.
TITLE_SOURCE_KEY = "title_source"
KIND_KEY = "document_kind"
PERIOD_KEY = "document_period"


def document_label(title: str | None, kind: str | None, period: str | None) -> str:
    """One line naming a document: title, kind and period, each once ("Apple Inc. ·
    Form 10-Q · quarterly period ended December 31, 2022")."""
    parts: list[str] = []
    for part in (title, kind, period):
        if part and not any(part.casefold() in other.casefold() for other in parts):
            parts.append(part)
    return LABEL_SEPARATOR.join(parts)


def _collapsed(line: str) -> str:
    return " ".join(line.split())


def header_for_text(context: str, text: str) -> str:
    """``context`` without the heading that ``text`` already starts with.

    A chunk that begins at a heading (every ``structure`` section does) has that
    heading as its first line and as the last part of its heading path; the
    embedder should see it once. Only a whole first line counts: a paragraph that
    merely begins with the heading's words keeps its full header.
    """
    path_line, newline, rest = context.partition("\n")
    parts = path_line.split(CONTEXT_SEPARATOR) if path_line else []
    first_line = next((line for line in text.splitlines() if line.strip()), "")
    if parts and _collapsed(parts[-1]) == _collapsed(first_line):
        path_line = CONTEXT_SEPARATOR.join(parts[:-1])
    return "\n".join(part for part in (path_line, rest if newline else "") if part)


def embed_text_for(context: str, text: str) -> str:
    """What an embedder sees: the contextual header, a blank line, then the text; a
    heading is never repeated (``header_for_text``)."""
    header = header_for_text(context, text)
    return f"{header}\n\n{text}" if header else text


def chunk_embedding_text(row: Mapping[str, Any]) -> str:
    """What a chunk is embedded from: its contextual header, then its text."""
    if row.get("embed_text"):
        return str(row["embed_text"])
    return embed_text_for(row.get("context") or "", row["text"])
