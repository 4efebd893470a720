"""What a vector store's sparse side answers (issue 38): ragbeam's sparse vectors
(``--sparse``, ``transforms/embed/sparse.py``) scored as Milvus and Qdrant score them,
the inner product of a query and each chunk's stored vector, on one finished ragbeam
run per dev domain, against ``ragbeam eval``'s BM25 in the same run.

    python benchmarks/store_sparse.py --ragbeam-output DIR

Variants, each over every chunk of a domain (scope ``doc`` filters that ranking to the
question's documents, as a store's filter does):

* ``terms``: today's scheme: the query's terms at their IDF from the ``terms`` table,
  which leaves out of a term's count the chunks that hold it only from their
  document's title; the store adds no IDF (Milvus's inner product, Qdrant without a
  modifier);
* ``store-idf``: the scheme before it in Qdrant: a query of 1 per term, the store's own
  IDF (``Modifier.IDF``), which counts every index a chunk's vector holds, the
  title's too;
* ``tf``: the scheme before it in Milvus: a query of 1 per term and no IDF at all;
* ``eval``: ``ragbeam eval``'s BM25 (``evaluate/retrieval.BM25Retriever``: bm25s's k1
  1.5, the index's own average length, unhashed terms, the title left out as
  ``terms`` leaves it).

Scored as ``retrieval.py`` scores "what ragbeam indexes" (budget fill, evidence pages),
scopes ``all`` and ``doc``, 600 / 1,500 tokens. With ``--vectors CACHE`` (the MiniLM
vectors ``dense_two_vectors.py`` keeps), each variant is also scored as a store's hybrid
query: its sparse ranking fused (RRF, k 60) with the dense one of a ``--text-vector``
run's two vectors, as ``dense_two_vectors.py`` scores "max".
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections import Counter
from collections.abc import Sequence

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np
from retrieval_bench import pipelines, rescore, score

VARIANTS = ("terms", "store-idf", "tf", "eval")


class StoreSparseRanker:
    """A store's sparse search over ``texts``' sparse vectors (``variant``: above)."""

    name = "bm25"

    def __init__(self, texts: Sequence, variant: str) -> None:
        from scipy.sparse import csr_matrix

        from ragbeam.transforms.embed.sparse import (
            TermFrequencies,
            counted_indices,
            encode_sparse_document,
        )

        vectors = [encode_sparse_document(t).as_row() for t in texts]
        counted = Counter()
        for vector in vectors:
            counted.update(vector["indices"] if variant == "store-idf"
                           else counted_indices(vector))
        self._frequencies = TermFrequencies(len(vectors), counted)
        self._variant = variant
        self._columns: dict[int, int] = {}
        rows, columns, values = [], [], []
        for row, vector in enumerate(vectors):
            for index, value in zip(vector["indices"], vector["values"], strict=True):
                rows.append(row)
                columns.append(self._columns.setdefault(index, len(self._columns)))
                values.append(value)
        self._matrix = csr_matrix((np.asarray(values, dtype=np.float32), (rows, columns)),
                                  shape=(len(vectors), max(len(self._columns), 1)))

    def rank(self, query: str) -> list[int]:
        from ragbeam.transforms.embed.sparse import encode_sparse_query

        vector = encode_sparse_query(query, self._frequencies)
        weights = np.zeros(self._matrix.shape[1], dtype=np.float32)
        for index, value in zip(vector.indices, vector.values, strict=True):
            column = self._columns.get(index)
            if column is not None:  # tf: 1 per term, no IDF anywhere
                weights[column] = 1.0 if self._variant == "tf" else value
        scores = self._matrix @ weights
        return np.argsort(-scores, kind="stable").tolist()


def _dense_rankings(cache, chunks, indexed, questions, data: pathlib.Path,
                    domain: str) -> dict[str, list[int]]:
    """Each question's dense ranking of a ``--text-vector`` run: the closer of a chunk's
    two vectors (``dense_two_vectors.py``'s "max", margin 0), from the cache only."""
    from dense_two_vectors import cached

    from ragbeam.evaluate.retrieval import max_sim, ranking_of
    from ragbeam.transforms.embed.text import text_vector_text_for

    _, pages = pipelines.page_material(data, domain)
    plain = score.prepare("ragbeam", chunks, pages)
    matrices = [cached(cache, [text_vector_text_for(t) for t in plain.index_texts], "passage",
                       False),
                cached(cache, indexed.dense_texts, "passage", False)]
    query = cached(cache, [q.question for q in questions], "query", False)
    return {q.id: ranking_of(max_sim(query[i], matrices, [0.0, 0.0]))
            for i, q in enumerate(questions)}


def _hybrid(sparse: StoreSparseRanker, dense: dict[str, list[int]]):
    """A store's hybrid query: the sparse and the dense rankings fused by RRF, each
    filtered to ``among`` first (scope ``doc``), as ``score.py``'s store ranker does."""
    from ragbeam.evaluate.retrieval import reciprocal_rank_fusion

    def rank(question, among):
        rankings = [sparse.rank(question.question), dense[question.id]]
        if among is not None:
            rankings = [[i for i in r if i in among] for r in rankings]
        return reciprocal_rank_fusion(rankings)
    return rank


def main(argv: list[str] | None = None) -> int:
    import ragbeam.evaluate.retrieval as retrieval

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rescore.add_run_arguments(parser)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--vectors", type=pathlib.Path,
                        help="the MiniLM vector cache: also score each variant in hybrid")
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants {sorted(unknown)} (known: {', '.join(VARIANTS)})")

    current: dict = {}
    today = retrieval.make_retriever

    def make(name, texts, cache=None, dense=None, text_vector=None):
        if name != "bm25" or current["variant"] == "eval":
            return today(name, texts, cache, dense, text_vector)
        return StoreSparseRanker(texts, current["variant"])

    retrieval.make_retriever = make
    cache = None
    if args.vectors:
        cache = retrieval.EmbeddingCache(model="minilm")
        cache.load(args.vectors)
    results: dict = {}
    domains = [d for d in args.domains.split(",") if d]
    for domain, questions, chunks, indexed in rescore.indexed_domains(args, domains):
        dense = (_dense_rankings(cache, chunks, indexed, questions, args.data, domain)
                 if cache else None)
        for variant in variants:
            current["variant"] = variant
            cells = rescore.cells_of(score.score(indexed, questions, "bm25"))
            results.setdefault(variant, {})[domain] = cells
            print(f"{domain} {variant}: {cells}", file=sys.stderr, flush=True)
            if dense is not None:
                sparse = make("bm25", indexed.index_texts)
                cells = rescore.cells_of(score.score_rankings(indexed, questions,
                                                              _hybrid(sparse, dense)))
                results.setdefault(f"{variant} + dense", {})[domain] = cells
                print(f"{domain} {variant} + dense: {cells}", file=sys.stderr, flush=True)
    if not results:
        return 0
    rescore.print_cells(dict(sorted(results.items(), key=lambda item: "+" in item[0])))
    if args.json:
        args.json.write_text(json.dumps({"cells": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
