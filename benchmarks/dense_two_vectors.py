"""Two dense vectors per chunk, scored by their maximum (issue 38, diagnostics): the chunk
text's ``e(text)`` and what ragbeam embeds today, ``e(dense_text_for(...))`` (document
label > nearest heading + text); a chunk's dense score for a question ``q`` is
``max(cos(q, e(text)) - margin, cos(q, e(dense text)))``, what a store's multivector
column with MaxSim (late-interaction) scoring returns for a row holding both vectors,
and what ``retrieval.py`` scores for a ragbeam run made with ``--text-vector``
(``ragbeam.evaluate.retrieval.max_sim``, the one implementation; margin 0).

    python benchmarks/dense_two_vectors.py --ragbeam-output DIR --domains reference,sec-10-q \\
        --margins 0,0.02 --json out.json

Why: the header in the vector helps a question that names the document (sec-10-q's
"in the company's 10-Q for …") and dilutes one that names none (financial-qa-10k's
"the Company"); one fused vector with a fixed weight (``dense_header_fusion.py``)
cannot serve both, a maximum lets each question take the closer vector.

Rows, per domain, as ``retrieval.py`` scores them (``score.py``'s budget fill,
evidence hit and ``doc`` scope as a filter of one index over the domain):

* ``text``: e(text) alone, hybrid with BM25 over the chunk text (retrieval.py's
  ``ragbeam`` row; reproduces it cell for cell);
* ``header + text``: e(dense text) alone, hybrid with BM25 over ``sparse_text_for``
  (``ragbeam-contextual``, today's default);
* ``max`` / ``max m=…``: both vectors, hybrid with BM25 over ``sparse_text_for``.

Vectors come from ``--vectors`` (the benchmark's cache); a text missing from it stops
the run unless ``--embed`` (embedding a whole domain on a CPU takes minutes; what it embeds
is saved to ``--vectors`` after each domain).
``--check JSON`` compares the ``text`` and ``header + text`` rows with a
``retrieval.py`` results file and fails on any difference.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections.abc import Sequence

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np
from retrieval_bench import pipelines, score, sets

from ragbeam.evaluate.retrieval import max_sim, ranking_of  # what --text-vector runs score
from ragbeam.transforms.embed.text import text_vector_text_for

BASELINES = {"text": "ragbeam", "header + text": "ragbeam-contextual"}


def rankers(bm25_texts: Sequence[str], dense_rankings: dict[str, list[int]]):
    """Dense and hybrid rankers over precomputed dense rankings (question id → ranking),
    filtered to ``among`` as score.py's store ranker does."""
    from ragbeam.evaluate.retrieval import BM25Retriever, reciprocal_rank_fusion

    bm25 = BM25Retriever(bm25_texts)

    def dense(q, among):
        r = dense_rankings[q.id]
        return r if among is None else [i for i in r if i in among]

    def hybrid(q, among):
        rankings = [bm25.rank(q.question), dense_rankings[q.id]]
        if among is not None:
            rankings = [[i for i in r if i in among] for r in rankings]
        return reciprocal_rank_fusion(rankings)
    return {"dense": dense, "hybrid": hybrid}


def cached(cache, texts: Sequence[str], role: str, embed: bool) -> np.ndarray:
    if not embed:
        missing = sum(1 for t in set(texts) if cache._key(t, role) not in cache._vectors)
        if missing:
            raise SystemExit(f"{missing} {role} texts have no cached vector (--embed to embed)")
    return cache.encode(texts, role=role)


def cells(figures: dict) -> str:
    return "  ".join(f"{r} {s} {figures[r][s]['600']['hits']}/{figures[r][s]['1500']['hits']}"
                     for r in ("dense", "hybrid") for s in score.SCOPES)


def moved(before: dict, after: dict) -> dict:
    """Per retriever, scope and budget: question ids gained and lost."""
    out = {}
    for r in ("dense", "hybrid"):
        for s in score.SCOPES:
            for b in ("600", "1500"):
                was, now = set(before[r][s][b]["hit_ids"]), set(after[r][s][b]["hit_ids"])
                if was != now:
                    out[f"{r} {s} {b}"] = {"gained": sorted(now - was),
                                           "lost": sorted(was - now)}
    return out


def main(argv: list[str] | None = None) -> int:
    from ragbeam.evaluate.retrieval import EmbeddingCache

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ragbeam-output", type=pathlib.Path, required=True,
                        help="DIR/<domain> (or DIR/<domain>-*) per domain")
    parser.add_argument("--data", type=pathlib.Path, default=sets.DEFAULT_DATA)
    parser.add_argument("--vectors", type=pathlib.Path,
                        default=sets.REPO.parent / "data" / "retrieval-work" / "vectors-minilm.npz")
    parser.add_argument("--embed", action="store_true", help="embed texts missing from the cache")
    parser.add_argument("--closing", action="store_true",
                        help="allow a closing domain (scored once, by the lead, with "
                             "retrieval.py's run of it)")
    parser.add_argument("--domains", default="reference")
    parser.add_argument("--margins", default="0,0.02",
                        help="what e(text)'s cosine is handicapped by in the maximum")
    parser.add_argument("--check", type=pathlib.Path,
                        help="retrieval.py results JSON the baseline rows must reproduce")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    cache = EmbeddingCache(model="minilm")
    cache.load(args.vectors)
    margins = [float(m) for m in args.margins.split(",") if m]
    check = json.loads(args.check.read_text()) if args.check else None
    results: dict = {}
    bad = 0
    for domain in [d for d in args.domains.split(",") if d]:
        if sets.DOMAINS[domain].role != "dev" and not args.closing:
            raise SystemExit(f"{domain} is not a dev domain (the closing one: --closing)")
        output = pipelines.ragbeam_run_dir(args.ragbeam_output, domain)
        questions = sets.load_questions(domain)
        _, indexes = pipelines.page_material(args.data, domain)
        chunks = pipelines.ragbeam_chunks_from_run(output, args.data)
        plain = score.prepare("ragbeam", chunks, indexes)
        contextual = score.prepare("ragbeam-contextual", chunks, indexes, contextual=True)
        e_text = cached(cache, plain.index_texts, "passage", args.embed)
        e_dense = cached(cache, contextual.dense_texts, "passage", args.embed)
        query = cached(cache, [q.question for q in questions], "query", args.embed)
        # The second vector of a --text-vector run: the chunk text less note markers.
        e_second = cached(cache, [text_vector_text_for(t) for t in plain.index_texts],
                          "passage", args.embed)
        rows = {"text": (plain, [e_text], [0.0]),
                "header + text": (contextual, [e_dense], [0.0])}
        for m in margins:
            rows["max" if m == 0 else f"max m={m:g}"] = (contextual, [e_second, e_dense], [m, 0.0])
        results[domain] = {}
        for name, (indexed, matrices, handicap) in rows.items():
            dense = {q.id: ranking_of(max_sim(query[qi], matrices, handicap))
                     for qi, q in enumerate(questions)}
            figures = {r: score.score_rankings(indexed, questions, rank)
                       for r, rank in rankers(indexed.index_texts, dense).items()}
            results[domain][name] = figures
            line = f"{domain:17} {name:14} {cells(figures)}"
            pipelines_checked = check["domains"][domain]["pipelines"] if check else {}
            # A retrieval.py run of a --text-vector ragbeam run scores "max" as its
            # ragbeam-contextual row; other runs score "header + text" there.
            max_run = (pipelines_checked.get("ragbeam-contextual", {}).get("timing") or {}
                       ).get("text_vectors", False)
            baseline = ({"text": "ragbeam", "max": "ragbeam-contextual"} if max_run
                        else BASELINES).get(name)
            if check and baseline:
                want = pipelines_checked[baseline]["retrieval"]
                same = all(want[r][s][b]["hit_ids"] == figures[r][s][b]["hit_ids"]
                           for r in figures for s in score.SCOPES for b in ("600", "1500"))
                bad += not same
                line += "  (= retrieval.py)" if same else "  DIFFERS from retrieval.py"
            print(line, flush=True)
        if args.embed:
            cache.save(args.vectors)  # after each domain: a later run embeds only what changed
        for name in results[domain]:
            if name.startswith("max"):
                for base in BASELINES:
                    for cell, change in moved(results[domain][base],
                                              results[domain][name]).items():
                        print(f"  {name} vs {base}, {cell}: +{change['gained']} "
                              f"-{change['lost']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
