"""Sparse lexical vectors (``--sparse``): the scheme is pinned, the tokenizer is the
evaluation's, and a query lands in the documents' space."""

from __future__ import annotations

import hashlib
import math
from collections import Counter

import pytest

import ragbeam
from ragbeam.evaluate.retrieval import BM25Retriever
from ragbeam.transforms.embed.lexical import (
    HEADER_LENGTH_WEIGHT,
    FieldedText,
    indexed_terms,
    tokenize,
)
from ragbeam.transforms.embed.sparse import (
    AVERAGE_TERMS,
    K1,
    SPARSE_SCHEME,
    B,
    TermFrequencies,
    counted_indices,
    encode_sparse_document,
    encode_sparse_query,
    inverse_document_frequency,
    term_index,
    with_sparse_vector,
)
from ragbeam.transforms.embed.term_table import (
    ALL_CHUNKS_INDEX,
    count_terms,
    term_frequencies,
    term_rows,
)

# No term is rarer than another: each distinct query term weighs the same.
EVEN = TermFrequencies(chunks=10, frequencies={})


def test_a_term_index_is_31_bits_of_blake2b_as_the_scheme_says():
    digest = hashlib.blake2b(b"calibr", digest_size=4).digest()
    assert term_index("calibr") == int.from_bytes(digest, "big") & 0x7FFFFFFF
    assert all(0 <= term_index(t) < 2**31 for t in ("a", "显存", "jahr", ""))
    assert SPARSE_SCHEME["average_terms"] == AVERAGE_TERMS and SPARSE_SCHEME["k1"] == K1
    assert SPARSE_SCHEME["scheme"] == "ragbeam-bm25-hashed/4"
    assert SPARSE_SCHEME["header_length_weight"] == HEADER_LENGTH_WEIGHT


def test_document_values_are_saturated_term_frequencies_and_indices_sorted():
    vector = encode_sparse_document("Calibration solutions. Calibration values, calibrated.")
    terms = tokenize("Calibration solutions. Calibration values, calibrated.")
    assert terms.count("calibr") == 3
    assert list(vector.indices) == sorted(set(vector.indices))
    weights = vector.as_dict()
    once = weights[term_index("solut")]
    thrice = weights[term_index("calibr")]
    assert once < thrice < (K1 + 1) * once  # more occurrences weigh more, but saturate
    # A longer text lowers the weight of the same single occurrence (length normalisation).
    longer = encode_sparse_document("solutions " + "boats leave at nine " * 30).as_dict()
    assert longer[term_index("solut")] < once


def test_a_query_is_each_distinct_term_at_its_idf_in_the_documents_space():
    frequencies = TermFrequencies(chunks=10, frequencies={term_index("calibr"): 2})
    query = encode_sparse_query("Where are the calibration solutions? Calibration!",
                                frequencies)
    idf = lambda n: round(math.log(1 + (10 - n + 0.5) / (n + 0.5)), 6)  # noqa: E731
    assert query.as_dict() == {term_index("calibr"): idf(2), term_index("solut"): idf(0)}
    assert inverse_document_frequency(2, 10) == pytest.approx(idf(2))
    document = encode_sparse_document("Calibration solutions are on the top shelf.")
    assert set(query.indices) <= set(document.indices)
    assert ragbeam.encode_sparse_query is encode_sparse_query
    # Chinese: jieba words and bigrams on both sides.
    zh = encode_sparse_query("显存优化", EVEN)
    assert set(zh.indices) <= set(encode_sparse_document("现有系统的显存优化方案").indices)


def test_the_terms_are_those_the_evaluation_scores():
    """One tokenizer: a chunk BM25 finds for a question shares the question's indices."""
    texts = ["Boats may only be taken out before sunset.", "Samples go to the freezer."]
    assert BM25Retriever(texts).rank("When are boats taken out?")[0] == 0
    query = set(encode_sparse_query("When are boats taken out?", EVEN).indices)
    assert query & set(encode_sparse_document(texts[0]).indices)
    assert not query & set(encode_sparse_document(texts[1]).indices)


def test_a_row_gets_the_vector_of_its_contextual_text_and_keeps_one_it_has():
    row = {"text": "Wear a life jacket.", "context": "Guide > Safety", "embed_text": None}
    filled = with_sparse_vector(row)
    assert filled["sparse"] == encode_sparse_document(
        FieldedText("Guide > Safety", "Wear a life jacket.", "Guide > Safety")).as_row()
    assert term_index("safeti") in filled["sparse"]["indices"]
    kept = {**row, "sparse": {"indices": [1], "values": [0.5]}}
    assert with_sparse_vector(kept)["sparse"] == {"indices": [1], "values": [0.5]}
    assert "sparse" not in row  # not modified in place


# A section's chunk under a long heading path, and a longer chunk under a short one; each
# says "calibration" once. The header is the same words in every chunk of its section.
LONG_HEADER = FieldedText(
    "Laboratory handbook > Part II: instruments, procedures and equipment > Maintenance "
    "schedules, service records and inspection intervals > Pipettes",
    "Calibration is done monthly.")
SHORT_HEADER = FieldedText(
    "Laboratory handbook",
    "Calibration of the balance is repeated whenever the room temperature changes by "
    "more than two degrees, after the balance is moved, and after each cleaning.")
OTHERS = ["Samples go to the freezer within two hours.", "Boats leave at nine.",
          "The main building has Wi-Fi."]


def test_a_header_counts_its_terms_in_full_and_a_fraction_of_its_length():
    counts, length = indexed_terms(LONG_HEADER)
    header, text = tokenize(LONG_HEADER.header), tokenize(LONG_HEADER.text)
    assert counts == indexed_terms(LONG_HEADER.joined())[0]  # the joined text's terms
    assert length == len(text) + HEADER_LENGTH_WEIGHT * len(header)
    assert indexed_terms(LONG_HEADER, header_length_weight=1.0)[1] == len(header + text)
    # a plain string is all text; a field without header is its text
    assert indexed_terms("Boats leave at nine.") == (Counter(tokenize("Boats leave at nine.")), 3)
    assert indexed_terms(FieldedText("", "Boats leave at nine.")) == indexed_terms(
        "Boats leave at nine.")


def test_a_long_heading_path_does_not_push_a_short_chunk_below_a_longer_one():
    """Counted in full in the length (the header as text), the long path makes the
    monthly-calibration chunk the longer one and it loses to the balance chunk; as a
    field it is the shorter chunk and ranks first, in the evaluation's BM25 and in the
    sparse vectors alike."""
    assert HEADER_LENGTH_WEIGHT < 1
    fielded = [LONG_HEADER, SHORT_HEADER, *OTHERS]
    joined = [t.joined() if isinstance(t, FieldedText) else t for t in fielded]
    query = "Is there a word on calibration?"
    assert BM25Retriever(joined).rank(query)[:2] == [1, 0]
    assert BM25Retriever(fielded).rank(query)[:2] == [0, 1]
    calibr = term_index("calibr")
    assert (encode_sparse_document(LONG_HEADER.joined()).as_dict()[calibr]
            < encode_sparse_document(SHORT_HEADER.joined()).as_dict()[calibr])
    long_value = encode_sparse_document(LONG_HEADER).as_dict()[calibr]
    assert long_value > encode_sparse_document(SHORT_HEADER).as_dict()[calibr]
    # the scheme's formula, with the header's length weighed
    _, length = indexed_terms(LONG_HEADER)
    assert long_value == round((K1 + 1) / (1 + K1 * (1 - B + B * length / AVERAGE_TERMS)), 6)


# Two filings: every chunk's header names its company (the label's title), and only
# Bolt's text speaks of annual reports in full.
ACME = "Acme Robotics · Form 10-K · FY2022"
BOLT = "Bolt Motors · Form 10-K · FY2022"
FILINGS = [FieldedText(f"{ACME} > Item 7", text, "Acme Robotics") for text in (
    "Revenue grew by 12 percent on robot sales.", "Our reports can be found on the website.",
    "Operating costs rose with freight prices.", "The board approved a dividend.",
    "Robot sales in Europe doubled.")] + [
    FieldedText(f"{BOLT} > Item 1", "Annual reports are available on the investor website.",
                "Bolt Motors"),
    FieldedText(f"{BOLT} > Item 7", "Motor sales fell.", "Bolt Motors")]


def test_the_title_s_terms_are_kept_in_the_vector_and_marked_title_only():
    vector = encode_sparse_document(FILINGS[0])
    acme, robot, form = term_index("acm"), term_index("robot"), term_index("form")
    assert {acme, term_index("10")} <= set(vector.indices) and form in vector.indices
    assert acme in vector.title_only and form not in vector.title_only  # the kind counts
    assert robot not in vector.title_only  # its text says "robot" too
    assert counted_indices(vector.as_row()) == [i for i in vector.indices if i != acme]
    # no title, or a plain string: every term counts
    assert encode_sparse_document(FILINGS[0]._replace(name="")).title_only == ()
    assert encode_sparse_document(FILINGS[0].joined()).title_only == ()


def test_the_terms_table_counts_chunks_less_their_title_only_terms():
    rows = [{"sparse": encode_sparse_document(chunk).as_row()} for chunk in FILINGS]
    counts = count_terms([*rows, {"sparse": None}])  # a row without a vector adds nothing
    assert counts[ALL_CHUNKS_INDEX] == len(FILINGS)
    assert counts[term_index("acm")] == 0 and counts[term_index("bolt")] == 0
    assert counts[term_index("form")] == len(FILINGS) and counts[term_index("sale")] == 3
    table = term_rows(counts)
    assert [r["index"] for r in table] == sorted(r["index"] for r in table)
    frequencies = term_frequencies(table)
    assert frequencies.chunks == len(FILINGS)
    assert frequencies.frequencies[term_index("sale")] == 3


def _store_ranking(question: str, frequencies: TermFrequencies) -> list[int]:
    """The chunks by a store's sparse inner product (Milvus, Qdrant without modifier)."""
    query = encode_sparse_query(question, frequencies).as_dict()
    vectors = [encode_sparse_document(chunk).as_dict() for chunk in FILINGS]
    scores = [sum(query.get(i, 0.0) * v for i, v in vector.items()) for vector in vectors]
    return sorted(range(len(FILINGS)), key=lambda i: -scores[i])


def test_a_store_ranks_the_named_document_first_with_the_title_left_out():
    """The question names Acme; Bolt's chunk has the more of its other words. With the
    title's words counted as every chunk's own (a store's own IDF), "acme" is in five of
    seven chunks and worth little: Bolt's chunk comes first. Left out, as ``ragbeam
    eval``'s BM25 leaves it out, the name is rare and Acme's chunk comes first."""
    question = "Where are Acme Robotics' annual reports available?"
    rows = [{"sparse": encode_sparse_document(chunk).as_row()} for chunk in FILINGS]
    assert _store_ranking(question, term_frequencies(term_rows(count_terms(rows))))[0] == 1
    every_index = Counter(i for row in rows for i in row["sparse"]["indices"])
    assert _store_ranking(question, TermFrequencies(len(rows), every_index))[0] == 5
