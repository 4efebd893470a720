"""Sparse lexical vectors (``--sparse``): the scheme is pinned, the tokenizer is the
evaluation's, and a query lands in the documents' space."""

from __future__ import annotations

import hashlib
from collections import Counter

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
    encode_sparse_document,
    encode_sparse_query,
    term_index,
    with_sparse_vector,
)


def test_a_term_index_is_31_bits_of_blake2b_as_the_scheme_says():
    digest = hashlib.blake2b(b"calibr", digest_size=4).digest()
    assert term_index("calibr") == int.from_bytes(digest, "big") & 0x7FFFFFFF
    assert all(0 <= term_index(t) < 2**31 for t in ("a", "显存", "jahr", ""))
    assert SPARSE_SCHEME["average_terms"] == AVERAGE_TERMS and SPARSE_SCHEME["k1"] == K1
    assert SPARSE_SCHEME["scheme"] == "ragbeam-bm25-hashed/3"
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


def test_a_query_is_one_per_distinct_term_in_the_documents_space():
    query = encode_sparse_query("Where are the calibration solutions? Calibration!")
    assert query.as_dict() == {term_index("calibr"): 1.0, term_index("solut"): 1.0}
    document = encode_sparse_document("Calibration solutions are on the top shelf.")
    assert set(query.indices) <= set(document.indices)
    assert ragbeam.encode_sparse_query is encode_sparse_query
    # Chinese: jieba words and bigrams on both sides.
    zh = encode_sparse_query("显存优化")
    assert set(zh.indices) <= set(encode_sparse_document("现有系统的显存优化方案").indices)


def test_the_terms_are_those_the_evaluation_scores():
    """One tokenizer: a chunk BM25 finds for a question shares the question's indices."""
    texts = ["Boats may only be taken out before sunset.", "Samples go to the freezer."]
    assert BM25Retriever(texts).rank("When are boats taken out?")[0] == 0
    query = set(encode_sparse_query("When are boats taken out?").indices)
    assert query & set(encode_sparse_document(texts[0]).indices)
    assert not query & set(encode_sparse_document(texts[1]).indices)


def test_a_row_gets_the_vector_of_its_contextual_text_and_keeps_one_it_has():
    row = {"text": "Wear a life jacket.", "context": "Guide > Safety", "embed_text": None}
    filled = with_sparse_vector(row)
    assert filled["sparse"] == encode_sparse_document(
        FieldedText("Guide > Safety", "Wear a life jacket.")).as_row()
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
