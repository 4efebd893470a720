"""Unnumbered title-case headings count only when prose follows them."""

from __future__ import annotations

from ragbeam.transforms.clean.headings import find_headings, heading_level, is_prose

BODY = ("The first word processors were dedicated machines that stored text on magnetic "
        "cards, and offices bought them to replace typewriters.")


def test_title_case_lines_followed_by_prose_are_level_two_headings():
    assert heading_level("The Rise of Personal Computers (1980s)") == (2, "title")
    paragraphs = ["The Rise of Personal Computers (1980s)", None,
                  "Key Features That Changed Word Processing", None]
    assert find_headings(paragraphs, [False, True, False, True]) == {0: 2, 2: 2}


def test_labels_table_cells_and_sentences_are_not_title_headings():
    assert heading_level("Locking shoulder") is None  # a figure label: "shoulder" is lower case
    assert heading_level("Figure 1: This is an example image.") is None
    # A title-case line over rows of numbers (a table's header cells) is no heading.
    assert find_headings(["Fiscal Year", None], [False, False]) == {}
    assert not is_prose("2015 2016 1,234 5,678 12 34 56 78 90")
    assert is_prose(BODY)
    # At the end of the document nothing follows: no heading.
    assert find_headings([BODY, "Future of Word Processing"], [True, False]) == {}
