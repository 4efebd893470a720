"""Sparse lexical vectors (``--sparse``): a chunk's terms as hashed indices with
BM25 term weights, and a query encoded into the same space (pure).

The scheme, ``SPARSE_SCHEME`` (also in the chunks schema metadata under
``ragbeam.sparse`` and in ``run.json``, so anyone can encode a query the same way):

* **terms**: ``lexical.tokenize`` of the chunk's contextual header (document label,
  heading path, table lines) and of its text (``text.sparse_fields_for``), the
  tokenizer ``ragbeam eval``'s BM25 uses (stop words, Snowball stems by language,
  jieba words and character bigrams for CJK);
* **index** of a term: the first 4 bytes of BLAKE2b of its UTF-8 bytes, big
  endian, masked to 31 bits (fits Milvus's and Qdrant's uint32 indices and an
  int32 column; no vocabulary to ship or keep in sync: a new term needs nothing);
* **document value**: BM25's saturated term frequency,
  ``tf·(k1+1) / (tf + k1·(1 − b + b·length/AVERAGE_TERMS))`` with Lucene's k1
  and b and a fixed average length, so a chunk's vector depends on the chunk
  alone (incremental runs, any runner, any load give the same values); ``tf``
  counts the header's and the text's occurrences, ``length`` is the text's terms plus
  ``HEADER_LENGTH_WEIGHT`` × the header's (``lexical.indexed_terms``, the rule of
  ``ragbeam eval``'s BM25: a long heading path does not make a chunk long);
* **query value**: 1 per distinct term. The inverse document frequency comes
  from the store (Qdrant's ``Modifier.IDF``), from BM25 in ``ragbeam eval``, or
  is left out (Milvus's sparse inner product: term-frequency scoring). A store
  counts every indexed term of a chunk in its frequencies, the document's title in
  the label too; ``ragbeam eval``'s BM25 leaves out the terms a chunk has from its
  document's title alone (``lexical.bm25_terms``), which its benchmark scores (issue
  38, docs/benchmarks.md: 244 → 260 questions at 600 tokens on the five dev
  domains). Carrying that frequency to a store needs the query to carry the weights
  (a table of frequencies written with the chunks, the store's modifier off): not
  done yet.

Indices are sorted and unique (two terms that share an index add their values).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragbeam.schemas.chunks import ChunkRow
from ragbeam.transforms.embed.lexical import (
    HEADER_LENGTH_WEIGHT,
    FieldedText,
    indexed_terms,
    tokenize,
)
from ragbeam.transforms.embed.text import chunk_sparse_fields

SPARSE_METADATA_KEY = "ragbeam.sparse"
K1 = 1.2
B = 0.75
# The BM25 length (``lexical.indexed_terms``: the text's terms and the header's at
# HEADER_LENGTH_WEIGHT) of an average chunk at the default 96-token size: a fixed
# constant of the scheme, not a statistic of the run (the shared corpus's mean, 36.9;
# 41.4 with the header's terms counted in full; scheme /1 had 52, the contextual text
# at 128 tokens; held-out documents were not looked at for it).
AVERAGE_TERMS = 37
INDEX_MASK = 0x7FFFFFFF
SPARSE_SCHEME: dict[str, Any] = {
    # /3: a label word a heading holds is indexed again (text.sparse_fields_for); /2 the
    # header's length at HEADER_LENGTH_WEIGHT
    "scheme": "ragbeam-bm25-hashed/3",
    "text": "contextual header and text less note markers, two fields "
            "(transforms/embed/text.sparse_fields_for)",
    "tokenizer": "ragbeam.transforms.embed.lexical.tokenize: case folding, stop words and "
                 "Snowball stems of the guessed language (en de fr es it pt nl), jieba "
                 "words + character bigrams for CJK",
    "index": "blake2b(term.utf8, digest_size=4) big-endian & 0x7fffffff",
    "document_value": "tf*(k1+1)/(tf+k1*(1-b+b*length/average_terms)), tf = header tf + "
                      "text tf, length = text terms + header_length_weight * header terms "
                      "(transforms/embed/lexical.indexed_terms)",
    "query_value": "1 per distinct term; IDF from the store (Qdrant Modifier.IDF)",
    "k1": K1,
    "b": B,
    "average_terms": AVERAGE_TERMS,
    "header_length_weight": HEADER_LENGTH_WEIGHT,
    "encode_query": "ragbeam.encode_sparse_query",
}


@dataclass(frozen=True)
class SparseVector:
    """Sorted, unique ``indices`` with their ``values``."""

    indices: tuple[int, ...]
    values: tuple[float, ...]

    def as_dict(self) -> dict[int, float]:
        """``{index: value}``: what pymilvus takes for a sparse vector."""
        return dict(zip(self.indices, self.values, strict=True))

    def as_row(self) -> dict[str, list]:
        """The ``chunks.sparse`` column's value."""
        return {"indices": list(self.indices), "values": list(self.values)}

    def __len__(self) -> int:
        return len(self.indices)


def term_index(term: str) -> int:
    digest = hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "big") & INDEX_MASK


def _vector(weights: Mapping[str, float]) -> SparseVector:
    by_index: dict[int, float] = {}
    for term, weight in weights.items():
        index = term_index(term)
        by_index[index] = by_index.get(index, 0.0) + weight
    indices = tuple(sorted(by_index))
    return SparseVector(indices, tuple(round(by_index[i], 6) for i in indices))


def encode_sparse_document(text: str | FieldedText, language: str | None = None
                           ) -> SparseVector:
    """What is indexed of a chunk (its header and text, ``text.sparse_fields_for``; a
    plain string is all text) → its sparse vector."""
    counts, length = indexed_terms(text, language)
    norm = K1 * (1 - B + B * length / AVERAGE_TERMS)
    return _vector({term: tf * (K1 + 1) / (tf + norm) for term, tf in counts.items()})


def encode_sparse_query(text: str, language: str | None = None) -> SparseVector:
    """A search query → a sparse vector in the space of ``chunks.sparse``: weight 1
    per distinct term (``language``: en, de, fr, es, it, pt or nl; guessed from
    stop words when not given, like the documents' own)."""
    return _vector(dict.fromkeys(tokenize(text, language), 1.0))


def with_sparse_vector(row: ChunkRow) -> ChunkRow:
    """A chunk row with ``sparse`` filled in (kept when it has one)."""
    if row.get("sparse") is not None:
        return dict(row)
    return {**row, "sparse": encode_sparse_document(chunk_sparse_fields(row)).as_row()}
