"""benchmarks/store_sparse.py (issue 38): a store's sparse search, per variant, is the
inner product of the stored vectors and the query the variant's scheme encodes
(synthetic chunks)."""

from __future__ import annotations

import math
import pathlib
import sys

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from store_sparse import StoreSparseRanker  # noqa: E402

from ragbeam.transforms.embed.lexical import FieldedText  # noqa: E402
from ragbeam.transforms.embed.sparse import encode_sparse_document, term_index  # noqa: E402

ACME = "Acme Robotics · Form 10-K · FY2022"
CHUNKS = [FieldedText(f"{ACME} > Item 7", text, "Acme Robotics") for text in (
    "Revenue grew on robot sales.", "Our reports can be found on the website.",
    "The board approved a dividend.")] + [
    FieldedText("Bolt Motors · Form 10-K", "Annual reports are available on the website.",
                "Bolt Motors")]
QUESTION = "Where are Acme's annual reports?"


def _score(chunk: FieldedText, weights: dict[int, float]) -> float:
    vector = encode_sparse_document(chunk).as_dict()
    return sum(weights.get(i, 0.0) * v for i, v in vector.items())


def _idf(n: int, total: int = len(CHUNKS)) -> float:
    return math.log(1 + (total - n + 0.5) / (n + 0.5))


def test_each_variant_ranks_by_its_own_scheme():
    acme, annual, report = term_index("acm"), term_index("annual"), term_index("report")
    schemes = {
        # the title left out of the counts: "acme" in no chunk's count
        "terms": {acme: _idf(0), annual: _idf(1), report: _idf(2)},
        # every index counted, the title's too: "acme" in three of four chunks
        "store-idf": {acme: _idf(3), annual: _idf(1), report: _idf(2)},
        "tf": {acme: 1.0, annual: 1.0, report: 1.0},
    }
    for variant, weights in schemes.items():
        scores = [_score(chunk, weights) for chunk in CHUNKS]
        expected = sorted(range(len(CHUNKS)), key=lambda i: -scores[i])
        assert StoreSparseRanker(CHUNKS, variant).rank(QUESTION) == expected, variant
    assert StoreSparseRanker(CHUNKS, "terms").rank(QUESTION)[0] == 1  # Acme's reports
    assert StoreSparseRanker(CHUNKS, "store-idf").rank(QUESTION)[0] == 3  # Bolt's
