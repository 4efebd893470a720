"""Sparse lexical vectors (``--sparse``): a chunk's terms as hashed indices with
BM25 term weights, and a query encoded into the same space with BM25's inverse
document frequencies (pure).

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
* **title_only**: the indices a chunk has only from its document's title (its
  label's first part, ``lexical.bm25_terms``), kept beside the vector;
* **document frequencies**: the run's ``terms`` table, for each index the number
  of chunks that hold it other than through their title alone
  (``term_frequencies.py``), summed over the whole output, carried chunks too;
* **query value**: BM25's inverse document frequency of each distinct term,
  ``ln(1 + (N − n + 0.5) / (n + 0.5))`` with ``N`` the output's chunks and ``n``
  the term's count in the ``terms`` table. A store scores the inner product, which
  is then BM25: Milvus's sparse inner product and Qdrant's sparse vector without a
  modifier (a store's own IDF would count every indexed term, the title's too).

Why the title stays out of the frequencies: every chunk's header repeats its
document's label, so counted as the chunk's own words the title made a company's or
an article's name as common as its document is long, worth almost nothing to a
question that names it (issue 38, docs/benchmarks.md: ``ragbeam eval``'s BM25 244 →
260 questions at 600 tokens on the five dev domains). The frequencies of a run are
the whole output's, so the query must use the ``terms`` table of the run the store
was synced from (``ragbeam.load_term_frequencies``).

Indices are sorted and unique (two terms that share an index add their values).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragbeam.schemas.chunks import ChunkRow
from ragbeam.transforms.embed.lexical import (
    HEADER_LENGTH_WEIGHT,
    FieldedText,
    bm25_terms,
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
    # /4: the query carries the IDF, from the terms table, which leaves the title out;
    # /3: a label word a heading holds is indexed again (text.sparse_fields_for); /2 the
    # header's length at HEADER_LENGTH_WEIGHT
    "scheme": "ragbeam-bm25-hashed/4",
    "text": "contextual header and text less note markers, two fields "
            "(transforms/embed/text.sparse_fields_for)",
    "tokenizer": "ragbeam.transforms.embed.lexical.tokenize: case folding, stop words and "
                 "Snowball stems of the guessed language (en de fr es it pt nl), jieba "
                 "words + character bigrams for CJK",
    "index": "blake2b(term.utf8, digest_size=4) big-endian & 0x7fffffff",
    "document_value": "tf*(k1+1)/(tf+k1*(1-b+b*length/average_terms)), tf = header tf + "
                      "text tf, length = text terms + header_length_weight * header terms "
                      "(transforms/embed/lexical.indexed_terms)",
    "title_only": "indices of terms the chunk has only from its document's title "
                  "(the label's first part; transforms/embed/lexical.bm25_terms)",
    "document_frequencies": "terms table: per index, the chunks holding it less their "
                            "title_only indices",
    "query_value": "ln(1+(N-n+0.5)/(n+0.5)) per distinct term, N = chunks, n = the "
                   "terms table's count (0 when absent); the store scores the inner "
                   "product, without an IDF of its own",
    "k1": K1,
    "b": B,
    "average_terms": AVERAGE_TERMS,
    "header_length_weight": HEADER_LENGTH_WEIGHT,
    "encode_query": "ragbeam.encode_sparse_query",
}


@dataclass(frozen=True)
class SparseVector:
    """Sorted, unique ``indices`` with their ``values``; for a chunk, ``title_only``:
    the indices it has only from its document's title (not counted in the document
    frequencies)."""

    indices: tuple[int, ...]
    values: tuple[float, ...]
    title_only: tuple[int, ...] = ()

    def as_dict(self) -> dict[int, float]:
        """``{index: value}``: what pymilvus takes for a sparse vector."""
        return dict(zip(self.indices, self.values, strict=True))

    def as_row(self) -> dict[str, list]:
        """The ``chunks.sparse`` column's value."""
        return {"indices": list(self.indices), "values": list(self.values),
                "title_only": list(self.title_only)}

    def __len__(self) -> int:
        return len(self.indices)


def term_index(term: str) -> int:
    digest = hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "big") & INDEX_MASK


def _by_index(weights: Mapping[str, float]) -> dict[int, float]:
    by_index: dict[int, float] = {}
    for term, weight in weights.items():
        index = term_index(term)
        by_index[index] = by_index.get(index, 0.0) + weight
    return by_index


def _vector(by_index: Mapping[int, float], title_only: tuple[int, ...] = ()
            ) -> SparseVector:
    indices = tuple(sorted(by_index))
    return SparseVector(indices, tuple(round(by_index[i], 6) for i in indices), title_only)


def encode_sparse_document(text: str | FieldedText, language: str | None = None
                           ) -> SparseVector:
    """What is indexed of a chunk (its header and text, ``text.sparse_fields_for``; a
    plain string is all text) → its sparse vector, with the indices it has only from
    its document's title."""
    counts, length, rarity_terms = bm25_terms(text, language)
    norm = K1 * (1 - B + B * length / AVERAGE_TERMS)
    by_index = _by_index({term: tf * (K1 + 1) / (tf + norm) for term, tf in counts.items()})
    counted = {term_index(term) for term in rarity_terms}
    return _vector(by_index, tuple(sorted(set(by_index) - counted)))


def counted_indices(sparse: Mapping[str, Any]) -> list[int]:
    """The indices of a ``chunks.sparse`` value that count in the document
    frequencies (the ``terms`` table): all but its ``title_only`` ones."""
    title_only = set(sparse.get("title_only") or ())
    return [i for i in sparse["indices"] if i not in title_only]


def inverse_document_frequency(documents: int, chunks: int) -> float:
    """BM25's (Lucene's) IDF of a term ``documents`` of ``chunks`` chunks hold."""
    return math.log(1 + (chunks - documents + 0.5) / (documents + 0.5))


@dataclass(frozen=True)
class TermFrequencies:
    """A run's document frequencies: ``chunks`` in its output and, per index, how many
    hold it (its ``terms`` table; ``ragbeam.load_term_frequencies`` reads one)."""

    chunks: int
    frequencies: Mapping[int, int]

    def idf(self, index: int) -> float:
        return inverse_document_frequency(self.frequencies.get(index, 0), self.chunks)


def encode_sparse_query(text: str, frequencies: TermFrequencies,
                        language: str | None = None) -> SparseVector:
    """A search query → a sparse vector in the space of ``chunks.sparse``: each
    distinct term weighted by its inverse document frequency in ``frequencies`` (the
    ``terms`` table of the run the store was synced from:
    ``ragbeam.load_term_frequencies(OUTPUT)``), so a store's inner product scores BM25.
    ``language``: en, de, fr, es, it, pt or nl; guessed from stop words when not given,
    like the documents' own."""
    indices = _by_index(dict.fromkeys(tokenize(text, language), 1.0))
    # two terms sharing an index add up, as in a chunk's vector
    return _vector({index: count * frequencies.idf(index) for index, count in indices.items()})


def with_sparse_vector(row: ChunkRow) -> ChunkRow:
    """A chunk row with ``sparse`` filled in (kept when it has one)."""
    if row.get("sparse") is not None:
        return dict(row)
    return {**row, "sparse": encode_sparse_document(chunk_sparse_fields(row)).as_row()}
