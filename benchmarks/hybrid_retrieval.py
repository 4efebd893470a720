"""BM25, dense and hybrid (reciprocal-rank fusion) side by side, on tuning and
held-out questions, per language; each with chunk text alone and with the
contextual header the pipeline embeds (title and heading path).

    ragbeam run --input ../shared/corpus --input ../data/heldout-16/docs --output out/both \\
      --exclude MANIFEST.csv --exclude '*.md5' --exclude headers_truth.json \\
      --exclude '*/LICENSES/*' --exclude README.md --exclude '*/bad/*'
    python benchmarks/hybrid_retrieval.py --output out/both [--json figures.json]

One process, one index per chunk text over both parts (as ``ragbeam eval``
builds it), the same budget and k; every figure is what ``ragbeam eval
--retriever all --chunk-text text|contextual`` prints for that question set.
The dense model's vectors are computed once per text and shared by dense and
hybrid.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
TUNING_QUESTIONS = REPO / "tests" / "data" / "questions.jsonl"
HELDOUT_QUESTIONS = REPO / "evaluate" / "heldout" / "questions.jsonl"


def main(argv: list[str] | None = None) -> int:
    from ragbeam.evaluate.evaluation import CHUNK_TEXTS, evaluate_retrieval, load_questions
    from ragbeam.evaluate.retrieval import RETRIEVERS, EmbeddingCache
    from ragbeam.evaluate.run_data import load_run

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", required=True, help="a run over both parts")
    parser.add_argument("--budget", type=int, default=600)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--dense-model", choices=("minilm", "e5"), default="minilm")
    parser.add_argument("--chunk-text", action="append", choices=CHUNK_TEXTS)
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    run = load_run(args.output)
    sets = {"tuning": load_questions(TUNING_QUESTIONS),
            "held-out": load_questions(HELDOUT_QUESTIONS)}
    cache = EmbeddingCache(model=args.dense_model)
    figures: dict[str, dict] = {}
    print(f"{len(run.indexed_chunks)} indexed chunks; budget {args.budget}, k {args.k}, "
          f"dense model {args.dense_model}", flush=True)
    print("| chunk text | retriever | tuning hits | tuning by language | held-out hits | "
          "held-out by language | held-out MRR |")
    print("| --- | --- | ---: | --- | ---: | --- | ---: |")
    for chunk_text in args.chunk_text or CHUNK_TEXTS:
        for retriever in RETRIEVERS:
            started = time.perf_counter()
            row = {}
            for name, questions in sets.items():
                row[name] = evaluate_retrieval(run, questions, retriever, args.budget, cache,
                                               args.k, chunk_text)
                row[name].pop("per_question")
            figures[f"{chunk_text}/{retriever}"] = row

            def langs(result: dict) -> str:
                return ", ".join(f"{lang} {v['hits']}/{v['questions']}"
                                 for lang, v in result["by_language"].items())

            t, h = row["tuning"], row["held-out"]
            print(f"| {chunk_text} | {retriever} | {t['hits']}/{t['questions']} | {langs(t)} "
                  f"| {h['hits']}/{h['questions']} | {langs(h)} | {h['mrr']} |  "
                  f"<!-- {time.perf_counter() - started:.0f} s -->", flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
