"""``ragbeam.evaluate.retrieval``'s BM25: what counts in a term's document frequency."""

from __future__ import annotations

from ragbeam.evaluate.retrieval import BM25Retriever
from ragbeam.transforms.embed.lexical import FieldedText, bm25_terms, tokenize

# Two companies' filings, every chunk headed by its document's label. Acme's chunks say
# "Acme" nowhere (a filing says "we"); one of Zenith's names Acme as a competitor.
ACME = "Acme Corp · Form 10-K · fiscal year 2023"
ZENITH = "Zenith Inc · Form 10-K · fiscal year 2023"
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


def _fielded(label: str, text: str, labelled: bool) -> FieldedText:
    return FieldedText(f"{label} > Business", text, label if labelled else "")


def test_a_document_label_does_not_make_the_document_name_common():
    # The label's words count in each chunk's term frequency but not in the document
    # frequency: "acme" is rare (one chunk's text says it), so every Acme chunk gets
    # its full weight and Acme's own answer comes first. Counted in the frequency, the
    # label made "acme" a word of 6 chunks in 8, worth almost nothing, and Zenith's
    # chunk, which says "reports" twice and "access", came first.
    labelled = BM25Retriever([_fielded(label, text, True) for label, text in CHUNKS])
    assert labelled.rank(QUESTION)[0] == 0
    counted = BM25Retriever([_fielded(label, text, False) for label, text in CHUNKS])
    assert counted.rank(QUESTION)[0] == 5


def test_a_term_a_heading_or_the_text_holds_counts_in_the_frequency():
    (term,) = tokenize("Business")
    (acme,) = tokenize("Acme")
    chunk = _fielded(ACME, "Revenue grew.", True)
    counts, _, rarity_terms = bm25_terms(chunk)
    assert counts[acme] == 1 and acme not in rarity_terms  # the label's alone
    assert term in rarity_terms  # the heading's
    assert set(tokenize("Revenue grew.")) <= rarity_terms
    said = bm25_terms(_fielded(ACME, "Acme's revenue grew.", True))
    assert acme in said.rarity_terms  # the text says it
    # a plain text (a peer's chunk) and a header without a label: every term counts
    assert bm25_terms("Acme's revenue grew.").rarity_terms == frozenset(
        tokenize("Acme's revenue grew."))
    plain = bm25_terms(_fielded(ACME, "Revenue grew.", False))
    assert plain.rarity_terms == frozenset(plain.counts)
