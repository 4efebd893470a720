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
