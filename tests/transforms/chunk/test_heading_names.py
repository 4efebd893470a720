"""A run-in heading is named in heading paths by its title, not by the opening of its
paragraph (``chunk/heading_names.py``); every other heading keeps its whole text. The
run-in examples are lines of real filings (a 10-Q's MD&A, a 10-K's exhibit)."""

from __future__ import annotations

import pytest

from ragbeam.transforms.chunk.heading_names import heading_name
from ragbeam.transforms.types import BlockKind

from helpers import paged_doc
from helpers import paragraph_paths as paths

H, P = BlockKind.HEADING, BlockKind.PARAGRAPH


@pytest.mark.parametrize(("heading", "title"), [
    ("Section 2.3 No Duplication. Nothing herein entitles any Business Employee or other "
     "person to duplicative benefits.", "Section 2.3 No Duplication."),
    ("Section 9.2 Effect of Change in Control. This Section 9.2 shall apply in the event of "
     "a Change in Control.", "Section 9.2 Effect of Change in Control."),
    ("Income from Continuing Operations Before Provision/(Benefit) for Taxes on "
     "Income––The decreases in Income from continuing operations before",
     "Income from Continuing Operations Before Provision/(Benefit) for Taxes on Income"),
    ("4.4. Deferred Stock Units. For each Nonemployee Director who receives all or a portion "
     "of his or her Annual Cash", "4.4. Deferred Stock Units."),
    ("Section 3.1 Administrator. The Plan shall be administered by the Administrator.",
     "Section 3.1 Administrator."),  # a whole sentence: two words in lower case will do
    ("Liquidity — We expect our cash on hand to cover the operating needs of the next year.",
     "Liquidity"),
    ("Research and Development: Research and development expenses are charged to expense "
     "as incurred.", "Research and Development"),  # a note's policy, after a colon
    ("Revenue Recognition:", "Revenue Recognition"),  # a label: its colon introduces text
])
def test_a_run_in_heading_is_named_by_its_title(heading, title):
    assert heading_name(heading) == title


@pytest.mark.parametrize("heading", [
    "Item 7. Management’s Discussion and Analysis of Financial Condition and Results of "
    "Operations.",
    "Item 1A. Risk Factors.",
    "Note 22 – Segment and Revenue Information",
    "Goodwill Impairment Assessment – Flexibles Latin America Reporting Unit within the "
    "Flexibles Segment",
    "Values – What do we use to achieve our mission and vision?",  # a subtitle's question
    "Cyber attacks impacting our networks or systems could have an adverse effect on our "
    "business.",  # a risk factor's heading is one sentence: no break in it
    "Sales to the U.S. Government and Other Customers",
    "ITEM 5. MARKET FOR REGISTRANT’S COMMON EQUITY, RELATED STOCKHOLDER MATTERS AND ISSUER "
    "PURCHASES OF EQUITY SECURITIES",
    "2.1 Overview. Scope of the Standard",
    "Outlook. Guidance Raised",  # two words, not in lower case: a title's second part
    "Note 2: Significant Accounting Policies",
])
def test_any_other_heading_keeps_its_whole_text(heading):
    assert heading_name(heading) == heading


def test_a_run_in_heading_heads_its_section_by_its_title():
    doc = paged_doc([
        (H, 1, 1, "ARTICLE 2 BENEFITS"),
        (H, 2, 1, "Section 2.3 No Duplication. Nothing herein entitles any Business "
                  "Employee or other person to duplicative benefits."),
        (P, 0, 1, "Benefits paid under another plan reduce these."),
        (H, 2, 2, "Section 2.4 Funding of Benefits."),
        (P, 0, 2, "Benefits are unfunded obligations."),
    ])
    at = paths(doc)
    assert at["Benefits paid under another plan reduce these."] == (
        "ARTICLE 2 BENEFITS", "Section 2.3 No Duplication.")
    assert at["Benefits are unfunded obligations."] == (
        "ARTICLE 2 BENEFITS", "Section 2.4 Funding of Benefits.")
    # the document's text is unchanged: the sentence is still read where it stands
    assert "Nothing herein entitles any Business Employee" in doc.text
