"""The dense vector as a fusion of two embeddings (issue 38, diagnostics): the chunk
text's and its short header's (``short_context``: document label, nearest heading,
table lines), ``normalize((1 - w) · e(text) + w · e(header))``, against today's one
embedding of "header + text" (``dense_text_for``), on one finished ragbeam run per
domain.

    python benchmarks/dense_header_fusion.py --ragbeam-output DIR --domains reference \\
        --weights 0,0.25,0.35,0.5 --work W

Why: embedded with the text, the header is a third of a chunk's word pieces and the
same in every chunk of a document (or a section), so it pulls them together: a
question that names the document (reference's Supreme Court article) ranks all of
its chunks alike, and one that names none (financial-qa-10k's "the Company") meets a
header's words instead of the passage. Weighted apart, the header still tells
documents apart at a fixed share of the vector. A header is embedded once for the
chunks that share it (a few hundred per domain).

``--joint-weights``: ``normalize((1 - w) · e(text) + w · e(header + text))`` instead,
two embeddings of every chunk.

Rows: ``header + text`` (today), ``w=0`` (the text alone) and each weight; dense and
hybrid (BM25 over ``sparse_text_for`` fused by RRF with the dense ranking), at 600 /
1,500 tokens, scopes ``all`` and ``doc``, as ``retrieval.py`` scores them.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np
from retrieval_bench import pipelines, score, sets


def main(argv: list[str] | None = None) -> int:
    from ragbeam.evaluate.budget import fill_context
    from ragbeam.evaluate.retrieval import BM25Retriever, EmbeddingCache, reciprocal_rank_fusion
    from ragbeam.transforms.embed.text import header_for_text, short_context

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ragbeam-output", type=pathlib.Path, required=True,
                        help="DIR/<domain> (or DIR/<domain>-*) per domain")
    parser.add_argument("--data", type=pathlib.Path, default=sets.DEFAULT_DATA)
    parser.add_argument("--work", type=pathlib.Path, required=True, help="vector cache")
    parser.add_argument("--domains", default="reference")
    parser.add_argument("--weights", default="0,0.25,0.35,0.5",
                        help="w of e(header) beside e(text)")
    parser.add_argument("--joint-weights", default="",
                        help="w of e(header + text) beside e(text): both embedded per chunk")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    cache = EmbeddingCache(model="minilm")
    vectors = args.work / "vectors-minilm.npz"
    cache.load(vectors)
    weights = [float(w) for w in args.weights.split(",") if w]
    results: dict = {}
    for domain in [d for d in args.domains.split(",") if d]:
        if sets.DOMAINS[domain].role != "dev":
            raise SystemExit(f"{domain} is not a dev domain")
        output = pipelines.ragbeam_run_dir(args.ragbeam_output, domain)
        questions = sets.load_questions(domain)
        _, indexes = pipelines.page_material(args.data, domain)
        indexed = score.prepare("ragbeam-contextual",
                                pipelines.ragbeam_chunks_from_run(output, args.data), indexes,
                                contextual=True)
        headers = [header_for_text(short_context(c.context, c.heading_path), c.text,
                                   c.heading_path)
                   for c in indexed.chunks]
        joined = cache.encode(indexed.dense_texts)
        text = cache.encode([c.text for c in indexed.chunks])
        header = cache.encode([h or " " for h in headers])
        header[[not h for h in headers]] = 0.0
        cache.save(vectors)
        units = score._units(indexed)
        by_doc: dict[str, list[int]] = {}
        for i, c in enumerate(indexed.chunks):
            by_doc.setdefault(c.doc, []).append(i)
        query = cache.encode([q.question for q in questions], role="query")
        bm25: dict[tuple, BM25Retriever] = {}
        rows = {"header + text": joined}
        for w in weights:
            fused = (1 - w) * text + w * header
            rows[f"w={w:g}"] = fused / np.linalg.norm(fused, axis=1, keepdims=True)
        for w in [float(x) for x in args.joint_weights.split(",") if x]:
            fused = (1 - w) * text + w * joined
            rows[f"joint w={w:g}"] = fused / np.linalg.norm(fused, axis=1, keepdims=True)
        results[domain] = {}
        for name, matrix in rows.items():
            cells = {}
            for scope in score.SCOPES:
                for retriever in ("dense", "hybrid"):
                    hits = {b: [] for b in score.BUDGETS}
                    for qi, q in enumerate(questions):
                        key = tuple(sorted(q.docs)) if scope == "doc" else ("*",)
                        positions = (list(range(len(units))) if scope == "all" else
                                     sorted(i for d in key for i in by_doc.get(d, ())))
                        sims = matrix[positions] @ query[qi]
                        ranking = [positions[j] for j in np.argsort(-sims, kind="stable")]
                        if retriever == "hybrid":
                            if key not in bm25:
                                bm25[key] = BM25Retriever([indexed.index_texts[i]
                                                           for i in positions])
                            lexical = [positions[j] for j in bm25[key].rank(q.question)]
                            ranking = reciprocal_rank_fusion([lexical, ranking])
                        for b in score.BUDGETS:
                            context = fill_context(ranking, units, b)
                            if score._hit(q, [int(u.chunk_id) for u in context.units], indexed):
                                hits[b].append(q.id)
                    cells[f"{retriever} {scope}"] = {str(b): sorted(h) for b, h in hits.items()}
            results[domain][name] = cells
            print(f"{domain} {name}: " + "  ".join(
                f"{k} {len(v['600'])} / {len(v['1500'])}" for k, v in cells.items()), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
