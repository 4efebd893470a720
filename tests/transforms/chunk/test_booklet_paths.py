"""Heading paths of a booklet: a bare cover, a body title, sections repeated inside."""

from __future__ import annotations

from ragbeam.transforms.types import BlockKind

from helpers import paged_doc
from helpers import paragraph_paths as paths

H, P = BlockKind.HEADING, BlockKind.PARAGRAPH


BOOKLET = paged_doc([
    (H, 1, 1, "Harbour Cranes"),
    (H, 2, 1, "Crane Operators Dental Plan"),
    (P, 0, 2, "A notice on the second page."),
    (H, 3, 3, "Summary of Benefits"),
    (P, 0, 3, "What the plan pays."),
    (H, 4, 3, "COVERED SERVICES"),
    (H, 5, 4, "Fillings"),
    (P, 0, 4, "Fillings are covered."),
    (H, 6, 5, "COVERED SERVICES"),
    (P, 0, 5, "More about fillings."),
    (H, 4, 6, "EXCLUSIONS"),
    (H, 6, 6, "EXCLUSIONS"),
    (P, 0, 6, "Whitening is not covered."),
])


def test_a_bare_covers_lines_head_none_of_the_booklets_pages():
    at = paths(BOOKLET)
    assert at["A notice on the second page."] == ()
    assert all("Harbour Cranes" not in path and "Crane Operators Dental Plan" not in path
               for path in at.values())


def test_the_one_heading_opening_the_body_does_not_parent_its_sections():
    at = paths(BOOKLET)
    assert at["What the plan pays."] == ("Summary of Benefits",)
    assert at["Fillings are covered."] == ("COVERED SERVICES", "Fillings")


def test_a_section_title_repeated_inside_it_is_not_nested_again():
    at = paths(BOOKLET)
    assert at["More about fillings."] == ("COVERED SERVICES", "Fillings")
    assert at["Whitening is not covered."] == ("EXCLUSIONS",)


def test_a_first_page_with_text_is_no_cover_and_a_title_over_sections_stays():
    doc = paged_doc([
        (H, 1, 1, "Learning to Retrieve"),
        (P, 0, 1, "We study retrieval."),
        (H, 2, 2, "Method"),
        (P, 0, 2, "We index passages."),
    ])
    assert paths(doc)["We index passages."] == ("Learning to Retrieve", "Method")


def test_a_page_header_joining_a_section_and_its_subsection_is_not_nested():
    doc = paged_doc([
        (H, 1, 1, "COVERED SERVICES"),
        (P, 0, 1, "The plan covers these."),
        (H, 2, 1, "Hospice Care"),
        (P, 0, 1, "Hospice care is covered."),
        (H, 3, 2, "COVERED SERVICES - HOSPICE CARE"),
        (P, 0, 2, "Respite care too."),
        (H, 3, 2, "COVERED SERVICES - RESPITE"),
        (P, 0, 2, "A new part."),
    ])
    at = paths(doc)
    assert at["Respite care too."] == ("COVERED SERVICES", "Hospice Care")
    # A part the path does not say is a heading of its own.
    assert at["A new part."] == ("COVERED SERVICES", "Hospice Care",
                                 "COVERED SERVICES - RESPITE")
