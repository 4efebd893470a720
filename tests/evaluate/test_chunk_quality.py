"""The mid-sentence break measure (``evaluate/chunk_quality.py``): a cut between two
rows of a table breaks no sentence; a cut inside a row, or inside prose, does."""

from __future__ import annotations

from ragbeam.evaluate.chunk_quality import count_breaks, quality_figures, table_row_ends
from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan

INTRO = "Questions asked about the project, one row each."
HEADER = "No | Title | Date"
# Cells ending in a question mark: sentence ends inside rows, none at a row's end.
ROWS = [f"{i} | Which version of the model runs on a card of {i} GB? | 2023-04-{i:02d}"
        for i in range(1, 13)]


def _document() -> Document:
    table = "\n".join([HEADER, *ROWS])
    text = f"{INTRO}\n\n{table}\n\nThe rows above were exported from the tracker."
    start = text.index(HEADER)
    end = start + len(table)
    return Document(SourceFile("t", "t", len(text)), "h", "text/csv", text,
                    (TextSpan(0, len(INTRO), BlockKind.PARAGRAPH),
                     TextSpan(start, end, BlockKind.TABLE),
                     TextSpan(end + 2, len(text), BlockKind.PARAGRAPH)))


def test_row_ends_are_the_ends_of_each_row_of_the_table():
    doc = _document()
    ends = table_row_ends(doc)
    assert [doc.text[:e].rsplit("\n", 1)[-1] for e in ends] == [HEADER, *ROWS]


def test_a_cut_between_rows_breaks_no_sentence_a_cut_inside_one_does():
    doc = _document()
    rows = table_row_ends(doc)
    between = doc.text.index(ROWS[5]) - 1  # the line break before the sixth row
    inside = doc.text.index(" of the model", doc.text.index(ROWS[4]))  # in a row's question
    prose = doc.text.index(" one row each")
    assert count_breaks(doc.text, [between, len(doc.text)], row_ends=rows).mid_sentence == 0
    # Without the rows, the same cut is charged: the row ends in a date, not a full stop.
    assert count_breaks(doc.text, [between, len(doc.text)]).mid_sentence == 1
    assert count_breaks(doc.text, [inside, len(doc.text)], row_ends=rows).mid_sentence == 1
    assert count_breaks(doc.text, [prose, len(doc.text)], row_ends=rows).mid_sentence == 1


def test_a_long_row_cut_inside_is_avoidable_where_a_row_end_was_in_reach():
    doc = _document()
    rows = table_row_ends(doc)
    inside = doc.text.index(" of the model", doc.text.index(ROWS[6]))
    # The stretch between the row ends around the cut is one row: under the cap.
    count = count_breaks(doc.text, [inside, len(doc.text)], cap_chars=200, row_ends=rows)
    assert (count.mid_sentence, count.forced) == (1, 0)


def test_the_recursive_chunker_cuts_the_table_between_rows_only():
    doc = _document()
    chunks = build_strategy("recursive", ChunkOptions(size=200, unit="chars")).chunk(doc).chunks
    assert len(chunks) > 3
    figures = quality_figures([(doc, chunks)], 200)
    assert figures.mid_sentence_breaks == 0, [c.text[-30:] for c in chunks]
