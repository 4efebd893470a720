"""CPU time of the Chunk stage's work (strategy + chunk rows) with tokens counted once
per document, against counting every span again (no memo, no shared pass, one count
per row), in one run over the same cleaned documents.

    taskset -c 0 python benchmarks/token_counting.py [--corpus DIR] [--repeat 3]

Documents (default: the shared corpus without ``bad/``) are extracted and cleaned
once (``ragbeam.chunk_file``'s path), routed by the default table; then each pass
chunks them all and builds their chunk rows, as ``ChunkDocument`` does:

* **before**: each strategy with its own token sizer that counts every text it
  is asked about, the rows counted with another one, one count per row;
* **after**: the process's shared sizer (``sizing.shared_token_sizer``): each
  document tokenised once (``sizing.TokenPass``), every span's exact count and
  every row's ``token_count`` taken from that pass.

Passes alternate; CPU seconds (user + sys) per pass are printed with the number of
chunks whose text differs (must be 0) and of rows whose ``token_count`` differs.
"""

from __future__ import annotations

import argparse
import pathlib
import resource
import sys

DEFAULT_CORPUS = pathlib.Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class CountEveryTime:
    """The token sizer as it was: every call tokenises (no memo, no known pass)."""

    unit = "tokens"

    def __init__(self, encoding: str) -> None:
        from ragbeam.transforms.chunk.sizing import TokenSizer

        self._inner = TokenSizer(encoding)

    def size(self, text: str) -> int:
        return self._inner._count(text)

    def span(self, text: str, start: int, end: int) -> int:
        return self._inner._count(text[start:end])

    def prefix_within(self, text: str, limit: int) -> int:
        return self._inner.prefix_within(text, limit)

    def token_starts(self, text: str) -> list[int] | None:
        return self._inner.token_starts(text)

    def span_token_starts(self, text: str, start: int, end: int) -> list[int] | None:
        starts = self._inner.token_starts(text[start:end])
        return None if starts is None else [start + s for s in starts]


def main(argv: list[str]) -> int:
    from ragbeam.pipeline.config import ExtractOptions
    from ragbeam.transforms.chunk import sizing
    from ragbeam.transforms.chunk.base import ChunkOptions
    from ragbeam.transforms.chunk.records import chunk_rows
    from ragbeam.transforms.chunk.strategies import build_strategy
    from ragbeam.transforms.clean.document import CleanOptions
    from ragbeam.transforms.extract.single_file import read_local_file
    from ragbeam.transforms.route.router import RouteOptions, route_document

    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    files = sorted(p for p in args.corpus.rglob("*") if p.is_file() and "bad" not in p.parts
                   and p.name not in ("MANIFEST.csv", "headers_truth.json", "README.md"))
    extractor = ExtractOptions().file_extractor()
    docs = []
    for path in files:
        try:
            docs.append(extractor.extract_and_clean(read_local_file(path), CleanOptions()))
        except Exception:  # a file the default run also fails on
            continue
    options = ChunkOptions()
    decisions = [route_document(doc, RouteOptions()) for doc in docs]

    def one_pass(before: bool) -> list[list[tuple[str, int]]]:
        if before:
            make = lambda: CountEveryTime(options.encoding)  # noqa: E731
            original = sizing.make_sizer
            sizing_make = lambda unit, encoding, model=None: (  # noqa: E731
                make() if unit == "tokens" else original(unit, encoding, model))
        out = []
        for doc, decision in zip(docs, decisions, strict=True):
            if before:
                import ragbeam.transforms.chunk.base as base

                saved, base.make_sizer = base.make_sizer, sizing_make
                try:
                    strategy = build_strategy(decision.strategy, options, decision.params)
                finally:
                    base.make_sizer = saved
                rows_sizer = make()
            else:
                sizing._shared_token_sizer.cache_clear()
                strategy = build_strategy(decision.strategy, options, decision.params)
                rows_sizer = sizing.shared_token_sizer(options.encoding)
            result = strategy.chunk(doc)
            rows = chunk_rows(doc, result.chunks, decision.strategy, "h", rows_sizer)
            out.append([(row["text"], row["token_count"]) for row in rows])
        return out

    one_pass(True), one_pass(False)  # warm both (encoding, imports)
    times = {True: 0.0, False: 0.0}
    results = {}
    for _ in range(args.repeat):
        for before in (True, False):
            start = _cpu()
            results[before] = one_pass(before)
            times[before] += _cpu() - start
    texts_differ = sum(a[0] != b[0] for x, y in zip(results[True], results[False], strict=True)
                       for a, b in zip(x, y, strict=True))
    counts_differ = sum(a[1] != b[1] for x, y in zip(results[True], results[False], strict=True)
                        for a, b in zip(x, y, strict=True))
    n = sum(len(x) for x in results[True])
    print(f"{len(docs)} documents, {n} chunks, {args.repeat} repeats (CPU s per pass)")
    print(f"  before: {times[True] / args.repeat:.3f}   after: {times[False] / args.repeat:.3f}"
          f"   ratio {times[False] / times[True]:.2f}")
    print(f"  chunk texts differing: {texts_differ}; token_count differing: {counts_differ}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
