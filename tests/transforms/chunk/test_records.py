"""Chunk rows and their ids (``chunk/records.py``, ``ids.py``): a chunk's id is its
document, the chunk layer's key, its level, context and text, and how many chunks
with that identity came before it; never its offsets. So an edit above a chunk
leaves its id alone (only its offsets and index move: an upsert of the same id),
and the changes of an edit are only the chunks it touched. The whole nights:
tests/pipeline/test_incremental.py."""

from __future__ import annotations

import pytest

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.records import chunk_rows
from ragbeam.transforms.chunk.sizing import CharSizer
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan

CONFIG = "c" * 32
H, P = BlockKind.HEADING, BlockKind.PARAGRAPH


def _document(blocks: list[tuple[BlockKind, int, str]]) -> Document:
    parts, spans, cursor = [], [], 0
    for kind, level, text in blocks:
        if parts:
            parts.append("\n\n")
            cursor += 2
        spans.append(TextSpan(cursor, cursor + len(text), kind, level=level))
        parts.append(text)
        cursor += len(text)
    text = "".join(parts)
    return Document(SourceFile("/corpus/guide.md", "guide", len(text)), "h", "text/markdown",
                    text, tuple(spans), title="Guide")


def _guide(install: str) -> Document:
    return _document([
        (H, 1, "Guide"), (P, 0, "What the tool does. " * 4),
        (H, 2, "Install"), (P, 0, install),
        (H, 2, "Usage"), (P, 0, "Call the command with a file. It prints a summary. " * 6),
        (H, 2, "Limits"), (P, 0, "Files over a gigabyte are refused. " * 3),
        (H, 2, "Repeat"), (P, 0, "Same words."), (H, 2, "Repeat"), (P, 0, "Same words."),
    ])


def _rows(doc: Document, strategy: str) -> list[dict]:
    options = ChunkOptions(size=120, unit="chars")
    chunks = build_strategy(strategy, options).chunk(doc).chunks
    return chunk_rows(doc, chunks, strategy, CONFIG, CharSizer())


def _by_identity(rows: list[dict]) -> dict[tuple, dict]:
    """Rows by what identifies a chunk: level, context, text and its repeat number."""
    seen: dict[tuple, int] = {}
    out = {}
    for row in rows:
        identity = (row["level"], row["context"], row["text"])
        seen[identity] = seen.get(identity, 0) + 1
        out[(*identity, seen[identity])] = row
    return out


@pytest.mark.parametrize("strategy", ["structure", "parent_child"])
def test_an_edit_above_a_chunk_moves_it_but_keeps_its_id(strategy):
    before = _by_identity(_rows(_guide("Run the installer."), strategy))
    after = _by_identity(_rows(_guide("Run the installer. Then restart the shell and check "
                                      "the version it prints."), strategy))
    kept = set(before) & set(after)
    moved = [key for key in kept if after[key]["char_start"] != before[key]["char_start"]]
    assert moved, "the edit must move some untouched chunk, or this test shows nothing"
    for key in kept:  # every untouched chunk keeps its id, wherever it now starts
        assert after[key]["chunk_id"] == before[key]["chunk_id"], key
    # The chunks the edit touched, and only they, have new ids.
    new = {r["chunk_id"] for r in after.values()} - {r["chunk_id"] for r in before.values()}
    assert new == {after[key]["chunk_id"] for key in set(after) - kept} != set()


def test_ids_name_the_document_the_chunk_key_the_context_and_repeats():
    rows = _rows(_guide("Run the installer."), "structure")
    assert len({r["chunk_id"] for r in rows}) == len(rows)  # two "Same words." chunks too
    other_doc = _document([(H, 1, "Guide"), (P, 0, "What the tool does. " * 4)])
    other_doc = Document(SourceFile("/corpus/other.md", "other", 1), "h", "text/markdown",
                         other_doc.text, other_doc.spans, title="Guide")
    same_text = _rows(_document([(H, 1, "Guide"), (P, 0, "What the tool does. " * 4)]),
                      "structure")
    assert {r["chunk_id"] for r in _rows(other_doc, "structure")}.isdisjoint(
        r["chunk_id"] for r in same_text)
    options = ChunkOptions(size=120, unit="chars")
    doc = _guide("Run the installer.")
    chunks = build_strategy("structure", options).chunk(doc).chunks
    assert {r["chunk_id"] for r in chunk_rows(doc, chunks, "structure", "d" * 32, CharSizer())
            }.isdisjoint(r["chunk_id"] for r in rows)
