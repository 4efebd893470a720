"""benchmarks/bm25_header_field.py (issue 38, diagnostics): the BM25F rescoring of
finished runs reproduces today's BM25 at ``1:1`` and follows Robertson & Zaragoza's
form for the named variants (synthetic chunks)."""

from __future__ import annotations

import pathlib
import sys

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from bm25_header_field import FIELDED, FieldedBM25, HeaderFieldBM25  # noqa: E402

from ragbeam.evaluate.retrieval import BM25Retriever  # noqa: E402

LABEL = "Acme Corp · Form 10-K · fiscal year 2023"
SECTIONS = {
    "a": (f"{LABEL} > Item 7 > Inventory Valuation", "Inventory is valued at standard cost."),
    "b": (f"{LABEL} > Item 8 > Critical Audit Matters > Inventory Valuation Provisions",
          "Total liabilities | 22,750"),
    "c": (f"{LABEL} > Item 1 > Products", "The company designs and markets boats and sails."),
    "d": ("", "Boats leave the harbour at nine; sails are stored in the shed."),
}


def _index() -> tuple[list[str], dict[str, tuple[str, str, str]]]:
    texts, fields = [], {}
    for header, body in SECTIONS.values():
        text = f"{header}\n\n{body}" if header else body
        texts.append(text)
        if header:
            fields[text] = (body, header, LABEL)
    return texts, fields


def test_one_to_one_is_todays_bm25():
    texts, fields = _index()
    today = BM25Retriever(texts)
    same = HeaderFieldBM25(texts, fields, 1, 1, None)
    for query in ("How is inventory valued?", "boats and sails", "audit provisions", "Acme"):
        assert same.rank(query) == today.rank(query)


def test_the_header_length_weight_is_the_products_bm25_over_its_fields():
    from ragbeam.transforms.embed.lexical import HEADER_LENGTH_WEIGHT, FieldedText

    split = [FieldedText(*SECTIONS[k]) for k in SECTIONS]
    keyed = {t: (t.text, t.header, LABEL) for t in split if t.header}
    product = BM25Retriever(split)
    same = HeaderFieldBM25(split, keyed, 1, HEADER_LENGTH_WEIGHT, None)
    for query in ("How is inventory valued?", "boats and sails", "audit provisions", "Acme"):
        assert same.rank(query) == product.rank(query)


def test_a_header_term_counts_once_and_the_header_length_is_its_own():
    texts, fields = _index()
    # "valuation" is in the headers of a and b only; b's header is long, but as its own
    # field it is normalised by the headers' average length, not added to the text's
    assert set(FieldedBM25(texts, fields, FIELDED["rz2"]).rank("valuation")[:2]) == {0, 1}
    header = f"{LABEL} > Inventory > Inventory Notes"
    texts, fields = [f"{header}\n\nx", "Inventory y"], {f"{header}\n\nx": ("x", header, LABEL)}

    def weight(variant: str) -> float:
        return FieldedBM25(texts, fields, FIELDED[variant])._postings["inventori"][0][1]

    assert weight("rz2-once") < weight("rz2")


def test_without_a_header_the_fielded_form_is_plain_bm25_over_the_text():
    texts = [body for _, body in SECTIONS.values()]
    plain = FieldedBM25(texts, {}, FIELDED["rz3"])
    today = BM25Retriever(texts)
    for query in ("boats", "inventory cost", "sails shed"):
        assert plain.rank(query) == today.rank(query)
