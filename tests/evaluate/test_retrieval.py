"""``ragbeam.evaluate.retrieval``'s BM25: what counts in a term's document frequency."""

from __future__ import annotations

from ragbeam.evaluate.retrieval import BM25Retriever
from ragbeam.transforms.embed.lexical import FieldedText, bm25_terms, tokenize
from ragbeam.transforms.embed.text import sparse_fields_for

# Two companies' filings, every chunk headed by its document's label. Acme's chunks say
# "Acme" nowhere (a filing says "we"); one of Zenith's names Acme as a competitor.
ACME = "Acme Corp · Form 10-K · fiscal year 2023 (FY2023)"
ZENITH = "Zenith Inc · Form 10-K · fiscal year 2023 (FY2023)"
CHUNKS = [
    (ACME, "Our annual reports are posted on our website."),
    (ACME, "Revenue grew in every segment."),
    (ACME, "We lease our headquarters."),
    (ACME, "Inventory is valued at the lower of cost or market."),
    (ACME, "Our employees number about 9,000."),
    (ZENITH, "Access our annual reports and other reports filed with the SEC on our website."),
    (ZENITH, "Acme is one of our competitors."),
    (ZENITH, "Zenith designs sensors."),
]
QUESTION = "Where can Acme's annual reports be accessed?"


def _indexed(label: str, text: str) -> FieldedText:
    return sparse_fields_for(f"{label} > Business", text, ("Business",))


def test_a_document_title_does_not_make_the_document_name_common():
    # The title's words count in each chunk's term frequency but not in the document
    # frequency: "acme" is rare (one chunk's text says it), so every Acme chunk gets
    # its full weight and Acme's own answer comes first. Counted in the frequency, the
    # title made "acme" a word of 6 chunks in 8, worth almost nothing, and Zenith's
    # chunk, which says "reports" twice and "access", came first.
    indexed = [_indexed(label, text) for label, text in CHUNKS]
    assert indexed[0].name == "Acme Corp"
    assert BM25Retriever(indexed).rank(QUESTION)[0] == 0
    counted = BM25Retriever([chunk._replace(name="") for chunk in indexed])
    assert counted.rank(QUESTION)[0] == 5


def test_the_label_kind_and_period_and_the_headings_count_in_the_frequency():
    (acme,) = tokenize("Acme")
    (business,) = tokenize("Business")
    counts, _, rarity_terms = bm25_terms(_indexed(ACME, "Revenue grew."))
    assert counts[acme] == 1 and acme not in rarity_terms  # the title's alone
    # the kind and the period ("FY" is seldom written in a filing's text: weighed by the
    # texts alone it raised every fiscal-year filing for a question naming a year)
    assert set(tokenize("Form 10-K FY2023")) <= rarity_terms
    assert business in rarity_terms  # a heading's
    assert set(tokenize("Revenue grew.")) <= rarity_terms
    said = bm25_terms(_indexed(ACME, "Acme's revenue grew."))
    assert acme in said.rarity_terms  # the text says it (and the label leaves it out)
    # a plain text (a peer's chunk) and a header without a title: every term counts
    assert bm25_terms("Acme's revenue grew.").rarity_terms == frozenset(
        tokenize("Acme's revenue grew."))
    plain = bm25_terms(FieldedText("Guide > Business", "Revenue grew."))
    assert plain.rarity_terms == frozenset(plain.counts)
