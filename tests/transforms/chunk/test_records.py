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


def _paper() -> Document:
    return _document([
        (H, 1, "A Parser"), (P, 0, "We parse scanned forms into fields with a small model. " * 3),
        (H, 2, "6 Conclusion"), (P, 0, "The parser reads forms faster than a clerk does. " * 2),
        (H, 2, "7 References"),
        (P, 0, "[1] A. Author. Parsing forms with small models. In Proc. Forms, 2019."),
        (P, 0, "[2] B. Author. Forms, fields and parsers. Journal of Forms, 2020."),
        (H, 2, "Appendix A"), (P, 0, "The form fields the parser knows, one per line. " * 2),
    ])


@pytest.mark.parametrize("strategy", ["structure", "parent_child"])
def test_a_reference_list_is_kept_out_of_the_index_the_sections_around_it_stay(strategy):
    rows = _rows(_paper(), strategy)
    texts = " ".join(row["text"] for row in rows)
    assert "Parsing forms with small models" not in texts
    assert "Forms, fields and parsers" not in texts
    assert "faster than a clerk" in texts and "one per line" in texts


_ENTRIES = "[1] A. Author. Parsing forms. In Proc. Forms, 2019.\n[2] B. Author. Fields. 2020."


@pytest.mark.parametrize("heading", ["References", "REFERENCES", "VI. References",
                                     "3.2 Bibliography", "Works cited", "Literaturverzeichnis"])
def test_reference_list_headings(heading):
    from ragbeam.transforms.chunk.records import in_reference_list
    from ragbeam.transforms.types import Chunk

    assert in_reference_list(Chunk(0, 1, _ENTRIES, heading_path=("A Paper", heading)))


@pytest.mark.parametrize("heading", ["Cross references", "References to the notes",
                                     "Reference data", "Notes"])
def test_headings_that_name_no_reference_list(heading):
    from ragbeam.transforms.chunk.records import in_reference_list
    from ragbeam.transforms.types import Chunk

    assert not in_reference_list(Chunk(0, 1, _ENTRIES, heading_path=("A Paper", heading)))


@pytest.mark.parametrize("text", [
    # author-year entries, a wiki's numbered entries, its "^" entries
    "References\n\nBrian Author. 2013. Metric learning. Foundations, 5(4):287.\n\n"
    "Tom Writer and Ann Other. 2019. Natural questions. TACL.",
    '12. "Harbour tides". The Quay Post. Retrieved March 9, 2019.\n\n13. "Tides" (PDF). '
    "Port Office.",
    '^ "Harbour Form 10-K". Port Office. July 27, 2023. pp. 9, 58.',
])
def test_citation_entries_are_a_reference_list(text):
    from ragbeam.transforms.chunk.records import in_reference_list
    from ragbeam.transforms.types import Chunk

    assert in_reference_list(Chunk(0, 1, text, heading_path=("A Paper", "References")))


@pytest.mark.parametrize("text", [
    # an appendix the heading path misplaces under the references
    "A Distant Supervision\nWhen training the final model we use the gold passages as "
    "positives and the highest ranked passages as negatives.",
    # a guide's section about citing
    "6 References\n\nThere are three options for citing references:\n\n- arabic numbers, "
    "i.e. [1], [3-5]\n- labels, i.e. [CE1]\n- author and year",
    # a note's quoted passage
    '"The interfering and unneighborly regulations of some States have given just cause '
    'of umbrage and complaint to others."',
])
def test_what_reads_as_no_citations_stays(text):
    from ragbeam.transforms.chunk.records import in_reference_list
    from ragbeam.transforms.types import Chunk

    assert not in_reference_list(Chunk(0, 1, text, heading_path=("A Paper", "References")))
