"""A chunk that only restates the next chunk's header is left out of the index
(``chunk/records.py`` ``without_restatements``): a section's heading and its table's
title cut off as a chunk of their own, on synthetic chunks."""

from __future__ import annotations

from ragbeam.transforms.chunk.records import restates_next_header, without_restatements
from ragbeam.transforms.chunk.table import TABLE_HEADER_KEY, TABLE_TITLE_KEY
from ragbeam.transforms.types import Chunk, ChunkLevel

HEADING = ("Notes", "Note 5 — Debt")
LEAD = Chunk(0, 60, "Note 5 — Debt\n\nOur long-term debt is as follows (in millions):",
             heading_path=HEADING)
TABLE = Chunk(62, 120, "| Notes due 2030 | 1,000 | 1,000", heading_path=HEADING,
              metadata={TABLE_TITLE_KEY: "Our long-term debt is as follows (in millions):",
                        TABLE_HEADER_KEY: "| | 2023 | 2022"})
PROSE = Chunk(122, 180, "We repaid 200 of notes in the quarter.", heading_path=HEADING)


def test_a_chunk_that_only_restates_the_next_chunks_header_is_left_out():
    # The table's chunk carries the heading and the table's title in its header.
    assert restates_next_header(LEAD, TABLE)
    assert without_restatements([LEAD, TABLE, PROSE]) == [TABLE, PROSE]
    # a table's header row alone, which the next chunk repeats in its header
    header_row = Chunk(0, 16, "| | 2023 | 2022", heading_path=HEADING)
    assert without_restatements([header_row, TABLE]) == [TABLE]


def test_a_chunk_saying_more_or_the_last_chunk_stays():
    said_more = Chunk(0, 80, "Note 5 — Debt\n\nWe issued notes in May.", heading_path=HEADING)
    assert not restates_next_header(said_more, TABLE)
    assert without_restatements([TABLE, LEAD]) == [TABLE, LEAD]
    # the next chunk's header holds the heading only, not the lead's other line: kept
    assert without_restatements([LEAD, PROSE]) == [LEAD, PROSE]


def test_parents_stay_and_childrens_parents_are_renumbered():
    parent = Chunk(0, 60, LEAD.text, level=ChunkLevel.PARENT, heading_path=HEADING)
    child = Chunk(0, 60, LEAD.text, level=ChunkLevel.CHILD, parent=0, heading_path=HEADING)
    assert without_restatements([parent, child]) == [parent, child]
    restating_child = Chunk(0, 60, LEAD.text, level=ChunkLevel.CHILD, parent=1,
                            heading_path=HEADING)
    table_child = Chunk(62, 120, TABLE.text, level=ChunkLevel.CHILD, parent=1,
                        heading_path=HEADING, metadata=TABLE.metadata)
    assert without_restatements([PROSE, parent, restating_child, table_child]) == [
        PROSE, parent, table_child]
