"""Embedding throughput: ragbeam's RunInference stage against a plain encode loop.

    python benchmarks/embedding_throughput.py [--sentences 20000] [--repeats 2]

Sentences: every unique sentence (``split_sentences``) of the corpus documents'
cleaned text, shuffled with a fixed seed, the first ``--sentences`` of them
(unique, so the handler's de-duplication gains nothing here).

1. The best batch size for the plain loop, on a 2,000-sentence warm-up slice.
2. Interleaved ``--repeats`` times, best time of each:
   * **plain loop**: ``model.encode(sentences, batch_size=best,
     normalize_embeddings=True)`` on a model loaded beforehand;
   * **pipeline stage**: a DirectRunner (FnApiRunner, in_memory) pipeline
     ``Create((key, sentence)) → RunInference(SentenceEmbeddingHandler) →
     count``, timed from ``run()`` to the end, model loading included.
   A 64-sentence run gives the fixed cost of a run (runner start, model
   load), reported apart: it does not grow with the input.
3. Precision and backends on the first ``--backend-sentences`` (1,000):
   speed-up over fp32 torch, best of the same interleaved rounds, and the
   cosine of each vector with its fp32 twin, min and mean (``bf16`` torch;
   ``onnx``, ``openvino`` and ``openvino`` bf16 when their extras are
   installed). A backend's first load exports the model to ONNX once
   (``transforms/embed/exported.py``); its load time is printed.

One torch thread, as the pipeline's workers use (``EmbeddingOptions.torch_threads``).

``--whole-pipeline``: the whole of ``ragbeam run --strategy semantic``
(extraction, cleaning, planning, embedding, cutting, Parquet) against the
plain ``model.encode`` ceiling for the same sentences, with 1 and 2 workers:

* the sentences are the ones the pipeline embeds, computed with its own code
  (extract, clean, plan), de-duplicated: the ceiling encodes each once;
* ceiling with W workers: W processes, each with the model already loaded and
  one torch thread, encode their share (every W-th sentence) at once; timed
  from the start of the encoding to the last process done;
* pipeline with W workers: ``ragbeam run --strategy semantic
  --embedding-threads W --extract-processes W`` (the default runner, one
  process: W is what it picks by itself on a W-core machine), and for W > 1
  also ``--direct_running_mode multi_processing --direct_num_workers W`` (Beam
  worker processes); wall time of the command, model loading, start-up and
  everything else included;
* rounds alternate the variants; medians; ratio = ceiling time / pipeline time
  (target ≥ 0.8), with the load average.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
TEXT_SUFFIXES = {".txt", ".md", ".html", ".pdf", ".docx", ".epub", ".rtf", ".odt", ".csv",
                 ".pptx", ".msg", ".eml"}


def corpus_sentences(corpus: pathlib.Path, limit: int, seed: int = 0) -> list[str]:
    from ragbeam.evaluate.segmentation import cleaned_text
    from ragbeam.transforms.chunk.sentences import split_sentences

    seen: dict[str, None] = {}
    for path in sorted(corpus.rglob("*")):
        if path.suffix.lower() not in TEXT_SUFFIXES or "bad" in path.parts:
            continue
        try:
            text = cleaned_text(str(path))
        except Exception:
            continue
        for s, e in split_sentences(text):
            seen.setdefault(text[s:e], None)
    sentences = list(seen)
    random.Random(seed).shuffle(sentences)
    return sentences[:limit]


def plain_loop(model, sentences: list[str], batch_size: int) -> float:
    started = time.perf_counter()
    model.encode(sentences, batch_size=batch_size, normalize_embeddings=True,
                 show_progress_bar=False)
    return time.perf_counter() - started


def pipeline_stage(sentences: list[str], batch_size: int) -> float:
    import apache_beam as beam
    from apache_beam.metrics import Metrics
    from apache_beam.metrics.metric import MetricsFilter
    from apache_beam.ml.inference.base import KeyedModelHandler, RunInference

    from ragbeam.pipeline.runner import make_pipeline, pipeline_options
    from ragbeam.transforms.embed.handler import SentenceEmbeddingHandler
    from ragbeam.transforms.embed.model import EmbeddingOptions

    def count(_: object) -> None:
        Metrics.counter("benchmark", "embedded").inc()

    pipeline = make_pipeline(pipeline_options([]))
    _ = (pipeline
         | "Sentences" >> beam.Create(list(enumerate(sentences)))
         | "Embed sentences" >> RunInference(KeyedModelHandler(
             SentenceEmbeddingHandler(EmbeddingOptions(batch_size=batch_size))))
         | "Count" >> beam.Map(count))
    started = time.perf_counter()
    result = pipeline.run()
    result.wait_until_finish()
    elapsed = time.perf_counter() - started
    counters = result.metrics().query(MetricsFilter().with_name("embedded"))["counters"]
    assert sum(c.committed for c in counters) == len(sentences), counters
    return elapsed


def compare_pipeline(sentences: list[str], model, best: int, repeats: int) -> None:
    plain, staged = [], []
    for _ in range(repeats):
        plain.append(plain_loop(model, sentences, best))
        staged.append(pipeline_stage(sentences, best))
        print(f"  repeat: plain {len(sentences) / plain[-1]:.0f}/s, "
              f"pipeline {len(sentences) / staged[-1]:.0f}/s", flush=True)
    # Fixed cost of a run (runner start, model load on the first batch): a tiny run.
    overhead = min(pipeline_stage(sentences[:64], best) for _ in range(repeats))
    plain_rate, staged_rate = len(sentences) / min(plain), len(sentences) / min(staged)
    steady_rate = len(sentences) / max(min(staged) - overhead, 1e-9)
    print(f"\nplain model.encode loop, batch {best}: {plain_rate:.0f} sentences/s")
    print(f"pipeline embedding stage (DirectRunner): {staged_rate:.0f} sentences/s "
          f"including {overhead:.1f} s fixed cost per run (runner start, model load)")
    print(f"ratio pipeline / plain loop: {staged_rate / plain_rate:.3f} "
          f"(without the fixed cost: {steady_rate / plain_rate:.3f})")


def compare_precisions(sentences: list[str], fp32_model, batch_size: int, repeats: int) -> None:
    """bf16 and the other backends against fp32 torch on the same sentences.

    Every model is loaded first (the load time of a backend includes its
    one-off export when nothing is cached yet); then the models are timed
    interleaved, ``repeats`` rounds, best of each, so load on a shared machine
    hits all of them alike and each speed-up is a ratio from the same rounds.
    """
    from ragbeam.transforms.embed.model import (
        EmbeddingOptions,
        encode_texts,
        load_sentence_model,
    )

    models = {"fp32 torch": fp32_model}
    for precision, backend in (("bf16", "torch"), ("fp32", "onnx"), ("fp32", "openvino"),
                               ("bf16", "openvino")):
        label = f"{precision} {backend}"
        started = time.perf_counter()
        try:
            models[label] = load_sentence_model(EmbeddingOptions(precision=precision,
                                                                 backend=backend))
        except Exception as exc:  # a backend whose extra is not installed
            print(f"  {label:14s} unavailable: {type(exc).__name__}: {str(exc)[:160]}")
            continue
        print(f"  {label:14s} loaded in {time.perf_counter() - started:.1f} s", flush=True)
    best = dict.fromkeys(models, float("inf"))
    for _ in range(repeats):
        for label, model in models.items():
            best[label] = min(best[label], plain_loop(model, sentences, batch_size))
    reference = encode_texts(fp32_model, sentences, batch_size)
    chars = sum(len(s) for s in sentences)
    print(f"\nprecision/backend on {len(sentences)} sentences ({chars / len(sentences):.0f} "
          f"chars mean), batch {batch_size}, best of {repeats} interleaved rounds:")
    for label, model in models.items():
        vectors = encode_texts(model, sentences, batch_size)
        cosine = np.sum(vectors * reference, axis=1)
        print(f"  {label:14s} {len(sentences) / best[label]:7.0f} sentences/s  "
              f"speed-up {best['fp32 torch'] / best[label]:4.2f}x  cosine to fp32 "
              f"min {cosine.min():.6f} mean {cosine.mean():.6f}", flush=True)


# --- whole pipeline against the encode ceiling -------------------------------------

def pipeline_sentences(files: list[pathlib.Path]) -> list[str]:
    """What ``--strategy semantic`` embeds for these files, by the pipeline's own steps."""
    from ragbeam.pipeline.config import ExtractOptions
    from ragbeam.transforms.chunk.base import ChunkOptions
    from ragbeam.transforms.chunk.semantic import SemanticStrategy
    from ragbeam.transforms.clean.document import CleanOptions
    from ragbeam.transforms.extract.single_file import read_local_file

    extractor = ExtractOptions().file_extractor()  # the run's guarded single-file path
    strategy = SemanticStrategy(ChunkOptions(), {})
    sentences: list[str] = []
    for path in files:
        try:
            doc = extractor.extract_and_clean(read_local_file(path), CleanOptions())
        except Exception:
            continue  # an error row in the pipeline too: nothing embedded
        sentences += strategy.embedding_inputs(doc, strategy.plan(doc))
    return sentences


_worker_model = None


def _load_worker_model() -> None:
    global _worker_model
    from ragbeam.transforms.embed.model import EmbeddingOptions, load_sentence_model

    _worker_model = load_sentence_model(EmbeddingOptions())


def _encode_share(share: list[str]) -> float:
    started = time.perf_counter()
    _worker_model.encode(share, batch_size=64, normalize_embeddings=True,
                         show_progress_bar=False)
    return time.perf_counter() - started


def ceiling_seconds(pools: dict, sentences: list[str], workers: int) -> float:
    started = time.perf_counter()
    pools[workers].map(_encode_share, [sentences[i::workers] for i in range(workers)])
    return time.perf_counter() - started


def pipeline_seconds(staging: pathlib.Path, workers: int, beam_workers: bool = False) -> float:
    """One ``ragbeam run --strategy semantic``: ``workers`` cores through the default
    runner's threads (one process), or through that many Beam worker processes."""
    import subprocess
    import tempfile

    if beam_workers:
        extra = ["--direct_running_mode", "multi_processing", "--direct_num_workers",
                 str(workers)]
    else:
        extra = ["--embedding-threads", str(workers), "--extract-processes", str(workers)]
    with tempfile.TemporaryDirectory(prefix="ragbeam-semantic-") as tmp:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "ragbeam.pipeline.cli", "run", "--input",
                        str(staging), "--output", f"{tmp}/out", "--strategy", "semantic",
                        *extra], check=True, capture_output=True,
                       env={**os.environ, "HF_HUB_OFFLINE": "1"})
        return time.perf_counter() - started


def whole_pipeline(corpus: pathlib.Path, max_files: int | None, repeats: int,
                   worker_counts: list[int]) -> None:
    import multiprocessing
    import shutil
    import statistics
    import tempfile

    files = sorted(p for p in corpus.rglob("*") if p.is_file() and p.parent != corpus
                   and p.suffix.lower() in TEXT_SUFFIXES
                   and not {"bad", "LICENSES"} & set(p.parts))[:max_files]
    staging = pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-semantic-in-"))
    for path in files:
        target = staging / path.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    sentences = list(dict.fromkeys(pipeline_sentences(
        sorted(p for p in staging.rglob("*") if p.is_file()))))
    print(f"{len(files)} files, {len(sentences)} distinct sentences to embed; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    context = multiprocessing.get_context("spawn")
    pools = {w: context.Pool(w, initializer=_load_worker_model) for w in worker_counts}
    times: dict[str, list[float]] = {}
    try:
        for w in worker_counts:  # models loaded before anything is timed
            pools[w].map(_encode_share, [sentences[:8]] * w)
        for round_index in range(repeats):
            variants = [(f"ceiling, {w} worker(s)",
                         lambda w=w: ceiling_seconds(pools, sentences, w))
                        for w in worker_counts]
            variants += [(f"pipeline, {w} worker(s)", lambda w=w: pipeline_seconds(staging, w))
                         for w in worker_counts]
            variants += [(f"pipeline, {w} Beam workers",
                          lambda w=w: pipeline_seconds(staging, w, beam_workers=True))
                         for w in worker_counts if w > 1]
            if round_index % 2:
                variants.reverse()
            for name, run in variants:
                seconds = run()
                times.setdefault(name, []).append(seconds)
                print(f"  round {round_index + 1}: {name:22s} {seconds:7.1f} s "
                      f"({len(sentences) / seconds:6.0f} sentences/s; "
                      f"load {os.getloadavg()[0]:.1f})", flush=True)
    finally:
        for pool in pools.values():
            pool.close()
        shutil.rmtree(staging, ignore_errors=True)
    print(f"\nmedians of {repeats} alternating rounds:")
    for w in worker_counts:
        ceiling = statistics.median(times[f"ceiling, {w} worker(s)"])
        pipeline = statistics.median(times[f"pipeline, {w} worker(s)"])
        print(f"  {w} worker(s): plain encode {len(sentences) / ceiling:6.0f} sentences/s, "
              f"whole pipeline {len(sentences) / pipeline:6.0f} sentences/s: "
              f"ratio {ceiling / pipeline:.2f} (target >= 0.8)")
        if f"pipeline, {w} Beam workers" in times:
            beam = statistics.median(times[f"pipeline, {w} Beam workers"])
            print(f"  {w} Beam worker processes (multi_processing): "
                  f"{len(sentences) / beam:6.0f} sentences/s: ratio {ceiling / beam:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--sentences", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--batch-sizes", default="16,32,64,128")
    parser.add_argument("--warmup", type=int, default=2000,
                        help="sentences for choosing the batch size")
    parser.add_argument("--skip-precision", action="store_true")
    parser.add_argument("--skip-pipeline", action="store_true",
                        help="only the precision/backend comparison")
    parser.add_argument("--backend-sentences", type=int, default=1000,
                        help="sentences for the precision/backend comparison")
    parser.add_argument("--whole-pipeline", action="store_true",
                        help="ragbeam run --strategy semantic against the encode ceiling")
    parser.add_argument("--max-files", type=int, help="with --whole-pipeline: the first N files")
    parser.add_argument("--workers", default="1,2", help="with --whole-pipeline")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.whole_pipeline:
        whole_pipeline(args.corpus, args.max_files, args.repeats,
                       [int(w) for w in args.workers.split(",")])
        return 0

    from ragbeam.transforms.embed.model import EmbeddingOptions, load_sentence_model

    sentences = corpus_sentences(args.corpus, args.sentences)
    chars = sum(len(s) for s in sentences)
    print(f"{len(sentences)} unique corpus sentences, {chars / len(sentences):.0f} chars mean")
    model = load_sentence_model(EmbeddingOptions())  # sets one torch thread
    warmup = sentences[:args.warmup]
    by_size = {int(b): plain_loop(model, warmup, int(b)) for b in args.batch_sizes.split(",")}
    for size, elapsed in by_size.items():
        print(f"  plain loop, batch {size:4d}: {len(warmup) / elapsed:7.0f} sentences/s (warm-up)")
    best = min(by_size, key=by_size.__getitem__)
    if not args.skip_pipeline:
        compare_pipeline(sentences, model, best, args.repeats)
    if not args.skip_precision:
        compare_precisions(sentences[:args.backend_sentences], model, best,
                           max(args.repeats, 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
