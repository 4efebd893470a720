"""A plain text file's keyword headings ("CHAPTER XII", "Part 2 Methods") head its text
(``headings.mark_typed_headings``); nothing else in plain text is a heading. Through real
Tika, the single-file path."""

from __future__ import annotations

from made_pdfs import extract_and_clean

from ragbeam.transforms.chunk.base import HeadingIndex
from ragbeam.transforms.types import BlockKind

PARAGRAPH = ("The regiment had halted by the river, and the officers stood about the fire "
             "talking of the march that lay before them in the morning.")


def _paths(doc) -> dict[str, tuple[str, ...]]:
    index = HeadingIndex(doc)
    return {doc.text[s.start:s.end]: index.path_at(s.start) for s in doc.spans
            if s.kind is BlockKind.PARAGRAPH}


def test_a_novels_chapters_head_their_text():
    text = "\n\n".join(["PART 1", "CHAPTER I", PARAGRAPH, "CHAPTER II",
                        PARAGRAPH.replace("river", "bridge"), "PART 2", "CHAPTER 1",
                        "THE RETREAT", PARAGRAPH.replace("river", "forest")]) + "\n"
    doc = extract_and_clean(text.encode(), "novel.txt")
    paths = _paths(doc)
    assert paths[PARAGRAPH] == ("PART 1", "CHAPTER I")
    assert paths[PARAGRAPH.replace("river", "bridge")] == ("PART 1", "CHAPTER II")
    # A bare chapter number takes the title on the line after it.
    assert paths[PARAGRAPH.replace("river", "forest")] == ("PART 2", "CHAPTER 1 THE RETREAT")
    assert doc.metadata["clean_headings_detected"] == "5"  # the title joins its chapter


def test_lines_in_capitals_or_title_case_are_no_headings_in_plain_text():
    text = "\n\n".join(["ACME SUPPLY COMPANY", "Dear Mr. Smith,", PARAGRAPH,
                        "Yours Sincerely", "John Doe"]) + "\n"
    doc = extract_and_clean(text.encode(), "letter.txt")
    assert not any(s.kind is BlockKind.HEADING for s in doc.spans)
    assert doc.metadata["clean_headings_detected"] == "0"
