"""Recursive chunking throughput next to LangChain and chonkie, in the same run.

    pip install -e '.[bench]'      # langchain-text-splitters, chonkie
    python benchmarks/chunking_speed.py [--corpus ../shared/corpus] [--repeats 5]

All three split the same cleaned corpus texts (extracted and cleaned as the
pipeline does, see ``chunking_quality.py``), one document at a time, at 400
and 1000 characters with no overlap, and every one produces the same kind of
output — a list of ``(text, start, end)``: each chunk's string and its
character offsets in the document — so the timings compare equal work:

* ragbeam ``split_recursive`` (``transforms/chunk/recursive.py``): computes
  spans (paragraph → sentence by the project's segmenter, sentencex → line →
  clause → comma → word, hard cap), then the strings are sliced from them;
* LangChain ``RecursiveCharacterTextSplitter`` (default separators) with
  ``add_start_index=True``: builds the strings, then finds each one's start
  in the text (``create_documents``); end = start + length;
* chonkie ``RecursiveChunker`` with its character tokenizer: its chunks carry
  text, ``start_index`` and ``end_index``.

What differs and is not equalised: the rules (ragbeam's sentence level runs a
real sentence segmenter; LangChain and chonkie cut at ". " and similar
strings), so the chunk counts differ; the table prints them.

Each library is timed ``--repeats`` times, interleaved with the others so that
load on a shared machine hits all of them alike; the best time of each is
reported as MB/s of UTF-8 text, with the ratio to the fastest other library.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from collections.abc import Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from chunking_quality import DEFAULT_CORPUS, load_corpus

from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.chunk.sizing import CharSizer

Chunks = list[tuple[str, int, int]]  # (text, start, end): the same output for every library
Splitter = Callable[[str], Chunks]


def ragbeam_splitter(size: int) -> Splitter:
    sizer = CharSizer()

    def split(text: str) -> Chunks:
        return [(text[s:e], s, e) for s, e in split_recursive(text, size, sizer).spans]

    return split


def langchain_splitter(size: int) -> Splitter:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0,
                                              add_start_index=True)

    def split(text: str) -> Chunks:
        out = []
        for doc in splitter.create_documents([text]):
            start = doc.metadata["start_index"]
            out.append((doc.page_content, start, start + len(doc.page_content)))
        return out

    return split


def chonkie_splitter(size: int) -> Splitter:
    from chonkie import RecursiveChunker

    chunker = RecursiveChunker(tokenizer="character", chunk_size=size)
    return lambda text: [(c.text, c.start_index, c.end_index) for c in chunker.chunk(text)]


SPLITTERS = {"ragbeam": ragbeam_splitter, "langchain": langchain_splitter,
             "chonkie": chonkie_splitter}


def time_once(split: Splitter, texts: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    chunks = sum(len(split(text)) for text in texts)
    return time.perf_counter() - started, chunks


def exact_share(split: Splitter, texts: list[str]) -> float:
    """Share of chunks whose offsets give back their text (checked outside the timing)."""
    total = exact = 0
    for text in texts:
        for chunk, start, end in split(text):
            total += 1
            exact += text[start:end] == chunk
    return exact / total if total else 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--size", type=int, nargs="+", default=[400, 1000])
    args = parser.parse_args(argv)
    texts = [doc.text for doc in load_corpus(args.corpus)]
    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(f"{len(texts)} documents, {megabytes:.2f} MB of cleaned text, "
          f"best of {args.repeats} interleaved runs\n")
    print(f"{'size':>5} {'splitter':<10} {'MB/s':>7} {'chunks':>7} {'offsets exact':>13} "
          f"{'vs fastest other':>17}")
    for size in args.size:
        splitters = {name: make(size) for name, make in SPLITTERS.items()}
        best = dict.fromkeys(splitters, float("inf"))
        counts: dict[str, int] = {}
        for _ in range(args.repeats):
            for name, split in splitters.items():
                seconds, counts[name] = time_once(split, texts)
                best[name] = min(best[name], seconds)
        speed = {name: megabytes / seconds for name, seconds in best.items()}
        for name, split in splitters.items():
            others = max(v for k, v in speed.items() if k != name)
            print(f"{size:>5} {name:<10} {speed[name]:>7.2f} {counts[name]:>7} "
                  f"{exact_share(split, texts):>13.1%} {speed[name] / others:>16.2f}x")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
