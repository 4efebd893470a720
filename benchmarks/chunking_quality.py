"""Chunk quality per strategy on the shared corpus: mid-sentence break rate,
chunk count, mean and median chunk size.

    python benchmarks/chunking_quality.py [--corpus ../shared/corpus] [--size 400 1000]

Documents are extracted and cleaned by the pipeline's one single-file path
(``ExtractOptions().file_extractor()``: an isolated Tika child with the run's
options and guards, then the Clean stage's rule), so the texts are those a
default run writes to ``documents.text`` (before language identification).
Inputs under ``bad/`` (deliberately broken files) are left out, and so are
documents the run refuses (error rows: nothing to chunk). The
definitions of the figures are in ``evaluate/chunk_quality.py``.
"""

from __future__ import annotations

import argparse
import csv
import pathlib
import sys
import time

from ragbeam.evaluate.chunk_quality import QualityFigures, quality_figures
from ragbeam.pipeline.config import ExtractOptions
from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.extract.single_file import read_local_file
from ragbeam.transforms.route.router import RouteOptions, route_document
from ragbeam.transforms.types import Document

DEFAULT_CORPUS = pathlib.Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
STRATEGIES = ("recursive", "structure", "parent_child", "fixed", "sliding")


def load_corpus(corpus: pathlib.Path) -> list[Document]:
    """Cleaned documents for every corpus file listed in MANIFEST.csv outside ``bad/``."""
    with open(corpus / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        paths = [row["path"] for row in csv.DictReader(f) if not row["path"].startswith("bad/")]
    files = ExtractOptions().file_extractor()
    documents = []
    for relative in sorted(paths):
        try:
            documents.append(files.extract_and_clean(read_local_file(corpus / relative),
                                                     CleanOptions()))
        except Exception:  # the pipeline turns these into error rows; no chunks to measure
            continue
    return documents


def measure(documents: list[Document], strategy: str, size: int) -> QualityFigures:
    chunker = build_strategy(strategy, ChunkOptions(size=size, unit="chars"))
    return quality_figures(((doc, chunker.chunk(doc).chunks) for doc in documents), size)


def measure_routed(documents: list[Document], size: int) -> QualityFigures:
    """Every document with the strategy the default routing table picks for it."""
    options, route = ChunkOptions(size=size, unit="chars"), RouteOptions()
    results = []
    for doc in documents:
        decision = route_document(doc, route)
        chunker = build_strategy(decision.strategy, options, decision.params)
        results.append((doc, chunker.chunk(doc).chunks))
    return quality_figures(results, size)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--size", type=int, nargs="+", default=[400, 1000])
    args = parser.parse_args(argv)
    started = time.perf_counter()
    documents = load_corpus(args.corpus)
    chars = sum(len(d.text) for d in documents)
    print(f"{len(documents)} documents, {chars:,} characters of cleaned text "
          f"(extracted and cleaned in {time.perf_counter() - started:.1f} s)\n")
    print(f"{'size':>5} {'strategy':<13} {'chunks':>7} {'mean':>6} {'median':>6} "
          f"{'breaks':>7} {'rate':>7} {'forced':>7} {'avoidable':>9}")
    for size in args.size:
        rows = [(name, measure(documents, name, size)) for name in STRATEGIES]
        rows.append(("(routed)", measure_routed(documents, size)))
        for name, q in rows:
            print(f"{size:>5} {name:<13} {q.chunks:>7} {q.mean_chars:>6.0f} "
                  f"{q.median_chars:>6.0f} {q.mid_sentence_breaks:>7} "
                  f"{q.mid_sentence_break_rate:>7.2%} {q.forced_breaks:>7} "
                  f"{q.avoidable_break_rate:>9.2%}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
