"""Defaults against the plain pipeline, tuning and held-out questions side by side.

    pip install -e '.[bench]'                  # langchain-text-splitters
    python benchmarks/heldout_retrieval.py --work out/heldout [--retriever bm25]

One index: every document of ``../shared/corpus`` (the *tuning* sources: the
rules and defaults were chosen on them) plus the held-out documents
(``evaluate/heldout/MANIFEST.csv``, fetched into ``--heldout-docs``; never used
to choose anything). Each configuration below indexes all of them; then
``ragbeam eval`` scores it twice with the same retriever, budget and k: with
the tuning questions (``tests/data/questions.jsonl``) and with the held-out
ones (``evaluate/heldout/questions.jsonl``), which ask only about held-out
documents. Configurations:

* ``ragbeam (defaults)``: ``ragbeam run --input … --output …`` without any
  chunking flag — what a user gets;
* ``plain SIZE/OVERLAP``: iscc-tika's plain text split by LangChain's
  ``RecursiveCharacterTextSplitter`` (``benchmarks/plain_pipeline.py``);
* any ``--also NAME=RUN OPTIONS`` (e.g. ``--also "recursive 1000c=--strategy
  recursive --chunk-size 1000 --size-unit chars"``).

Printed: hits at the budget (tuning, held-out, held-out by language) and the
token-level recall / IoU at k. Runs use the shared corpus minus its ``bad/``
folder (the plain pipeline has no per-file timeout for the hanging file).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shlex
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_HELDOUT = pathlib.Path(os.environ.get("RAGBEAM_HELDOUT_DIR",
                                              REPO.parent / "data" / "heldout-16")) / "docs"
TUNING_QUESTIONS = REPO / "tests" / "data" / "questions.jsonl"
HELDOUT_QUESTIONS = REPO / "evaluate" / "heldout" / "questions.jsonl"
EXCLUDES = ("MANIFEST.csv", "*.md5", "headers_truth.json", "LICENSES/*", "README.md", "bad/*")
RUN_EXCLUDES = ("MANIFEST.csv", "*.md5", "headers_truth.json", "*/LICENSES/*", "README.md",
                "*/bad/*")


def ragbeam(*args: str) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    subprocess.run([sys.executable, "-m", "ragbeam.cli", *args], check=True, env=env,
                   stdout=subprocess.DEVNULL)


def evaluate(output: pathlib.Path, questions: pathlib.Path, args: argparse.Namespace) -> dict:
    ragbeam("eval", "--output", str(output), "--questions", str(questions),
            "--budget", str(args.budget), "--retriever", args.retriever, "--k", str(args.k),
            "--dense-model", args.dense_model)
    result = json.loads((output / "eval.json").read_text(encoding="utf-8"))
    return result["retrieval"][args.retriever]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--heldout-docs", type=pathlib.Path, default=DEFAULT_HELDOUT)
    parser.add_argument("--work", type=pathlib.Path, required=True)
    parser.add_argument("--budget", type=int, default=600)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--retriever", choices=("bm25", "dense"), default="bm25")
    parser.add_argument("--dense-model", choices=("minilm", "e5"), default="minilm")
    parser.add_argument("--plain", nargs="*", default=["500/50", "1000/0", "1000/200"])
    parser.add_argument("--also", action="append", default=[], metavar="NAME=RUN OPTIONS")
    parser.add_argument("--skip-runs", action="store_true", help="evaluate existing outputs")
    args = parser.parse_args(argv)
    if not args.heldout_docs.is_dir():
        print(f"{args.heldout_docs} missing: fetch the files of evaluate/heldout/MANIFEST.csv")
        return 2
    inputs = ["--input", str(args.corpus), "--input", str(args.heldout_docs)]
    excludes = [a for g in RUN_EXCLUDES for a in ("--exclude", g)]
    configs: dict[str, pathlib.Path] = {}
    runs = [("ragbeam (defaults)", "default", [])]
    runs += [(name, f"also-{i}", shlex.split(options))
             for i, (name, options) in enumerate(a.split("=", 1) for a in args.also)]
    for label, folder, options in runs:
        output = args.work / folder
        if not args.skip_runs:
            ragbeam("run", *inputs, "--output", str(output), "--overwrite", *excludes, *options)
        configs[label] = output
    if args.plain:
        if not args.skip_runs:
            plain = [sys.executable, str(REPO / "benchmarks" / "plain_pipeline.py"),
                     "--input", str(args.corpus), "--input", str(args.heldout_docs),
                     "--work", str(args.work / "plain"), "--configs", *args.plain]
            plain += [a for g in EXCLUDES for a in ("--exclude", g)]
            subprocess.run(plain, check=True, stdout=subprocess.DEVNULL)
        for config in args.plain:
            configs[f"plain {config}"] = args.work / "plain" / config.replace("/", "-")
    print(f"{args.retriever} retrieval ({args.dense_model if args.retriever == 'dense' else ''})"
          f", {args.budget}-token budget; token-level figures at k = {args.k}")
    header = (f"{'configuration':<22} {'tuning':>7} {'held-out':>9}  {'held-out by language':<30}"
              f" {'tuning R/IoU':>13} {'held-out R/IoU':>15}  held-out at 200/400/1000 tokens")
    print(header)
    print("-" * len(header))
    for label, output in configs.items():
        tuning = evaluate(output, TUNING_QUESTIONS, args)
        heldout = evaluate(output, HELDOUT_QUESTIONS, args)
        languages = " ".join(f"{k} {v['hits']}/{v['questions']}"
                             for k, v in heldout["by_language"].items())
        tt, ht = tuning["token_level"], heldout["token_level"]
        print(f"{label:<22} {tuning['hits']:>3}/{tuning['questions']:<3} "
              f"{heldout['hits']:>4}/{heldout['questions']:<4}  {languages:<30} "
              f"{tt['recall']:>6.1f}/{tt['iou']:<6.2f} {ht['recall']:>8.1f}/{ht['iou']:<6.2f}  "
              + "/".join(str(round(heldout["recall_at_budget"][b] * heldout["questions"]))
                         for b in ("200", "400", "1000")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
