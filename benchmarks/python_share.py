"""ragbeam's own Python work per document against Tika's extraction, in CPU time.

    python benchmarks/python_share.py [--corpus ../data/large-docs] [--repeat 3]
        [--profile N] [--fingerprints FILE] [--compare FILE]

Every file of the corpus (a folder with a ``MANIFEST.csv``: the large-document
corpus by default, ``benchmarks/large_docs.py build``) is extracted once by the
pipeline's ``EmbeddedTika`` (text layers only, ``--ocr off``, one warm extractor,
in this process: Tika's CPU time), then taken through the per-document Python
steps of a default ``ragbeam run``, each timed in CPU seconds of this process
(user + system; nothing else runs in it meanwhile):

* ``parse``: ``build_extracted_document`` (XHTML → blocks, metadata) and the text
  limit, what ``DocumentFromTika`` does in an extraction child;
* ``clean``: ``clean_or_refuse`` (furniture, hyphenation, wraps, headings…);
* ``language``: ``with_language`` (py3langid on the cleaned text);
* ``route``: ``route_document``;
* ``chunk``: the routed strategy's ``chunk`` and ``drop_unsearchable``;
* ``rows``: ``chunk_rows`` (contexts, ids, token counts of the rows).

Each Python step runs ``--repeat`` times per document (the token sizer's memo
cleared and the strategy built again before each, outside the timing) and the
median is kept; the share is the sum of the Python steps over Tika's CPU time
(issue 33's target: at most 25 %). Not counted: the PDF layout pass
(``transforms/extract/layout.py``, not yet wired into the pipeline), corpus-level
steps (boilerplate across documents, near duplicates), Beam, Parquet, start-up.

``--profile N`` runs the Python steps once more under ``cProfile`` and prints the
N functions with the most own time, and the time per module. ``--fingerprints
FILE`` writes a digest of every document's cleaned text, metadata and chunk rows
(ids, texts, offsets, pages, headings) and one of its rows' token counts;
``--compare FILE`` checks them against such a file (written by another version of
the code: run this script with that code first on ``PYTHONPATH``) and exits 1 when
any document's text, metadata or chunks differ (token counts are listed apart).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import csv
import hashlib
import json
import pathlib
import pstats
import re
import resource
import statistics
import sys
import time
from collections import defaultdict

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "data" / "large-docs"
STEPS = ("parse", "clean", "language", "route", "chunk", "rows")
TARGET_SHARE = 0.25
_JAVA_IDENTITY = re.compile(r"@[0-9a-f]{5,8}\b")


def cpu_now() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def corpus_files(corpus: pathlib.Path) -> list[pathlib.Path]:
    with open(corpus / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        return [corpus / row["path"] for row in csv.DictReader(f)
                if not row["path"].startswith("bad/")]


class Steps:
    """The pipeline's per-document steps with its default options."""

    def __init__(self) -> None:
        from ragbeam.transforms.chunk.base import ChunkOptions
        from ragbeam.transforms.clean.document import CleanOptions
        from ragbeam.transforms.clean.language import load_model
        from ragbeam.transforms.extract.backends import EmbeddedTika
        from ragbeam.transforms.route.router import RouteOptions

        self.tika = EmbeddedTika()
        self.clean_options = CleanOptions()
        self.route_options = RouteOptions()
        self.chunk_options = ChunkOptions()
        load_model().join()  # the language model, loaded once as a worker does
        from ragbeam.transforms.chunk.sizing import load_encoding

        load_encoding(self.chunk_options.encoding)  # as ChunkDocument.setup does

    def extract(self, path: pathlib.Path) -> tuple[bytes, str, dict]:
        data = path.read_bytes()
        xhtml, metadata = self.tika.extract(data, path.name)
        return data, xhtml, metadata

    def python_steps(self, path: pathlib.Path, data: bytes, xhtml: str, metadata: dict,
                     times: dict[str, float] | None) -> tuple[object, list]:
        """The Python steps on one extracted document; adds each step's CPU seconds to
        ``times``. Returns the document and its chunk rows."""
        from ragbeam.transforms.chunk import sizing
        from ragbeam.transforms.chunk.records import chunk_rows
        from ragbeam.transforms.chunk.searchable import drop_unsearchable
        from ragbeam.transforms.chunk.strategies import build_strategy
        from ragbeam.transforms.clean.document import clean_or_refuse
        from ragbeam.transforms.clean.language import with_language
        from ragbeam.transforms.extract.document import build_extracted_document
        from ragbeam.transforms.extract.guards import DEFAULT_MAX_TEXT_CHARS, check_extracted_text
        from ragbeam.transforms.ids import doc_id_for, sha256_hex
        from ragbeam.transforms.route.router import route_document
        from ragbeam.transforms.types import FetchedFile, SourceFile

        fetched = FetchedFile(SourceFile(str(path), doc_id_for(str(path)), len(data)), data,
                              sha256_hex(data))
        clock = {"t": cpu_now()}

        def lap(step: str) -> None:
            now = cpu_now()
            if times is not None:
                times[step] += now - clock["t"]
            clock["t"] = now

        extracted = build_extracted_document(fetched, xhtml, metadata)
        check_extracted_text(len(extracted.raw_text), metadata, DEFAULT_MAX_TEXT_CHARS)
        lap("parse")
        doc = clean_or_refuse(extracted, self.clean_options)
        lap("clean")
        doc = with_language(doc)
        lap("language")
        decision = route_document(doc, self.route_options)
        lap("route")
        sizing.shared_token_sizer.cache_clear()  # no memo from an earlier pass
        strategy = build_strategy(decision.strategy, self.chunk_options, decision.params)
        tokens = sizing.shared_token_sizer(self.chunk_options.encoding)
        clock["t"] = cpu_now()  # building the strategy is once per worker: not counted
        result = drop_unsearchable(doc, strategy.chunk(doc))
        lap("chunk")
        rows = chunk_rows(doc, result.chunks, decision.strategy, "config", tokens)
        lap("rows")
        return doc, rows


def fingerprint(doc: object, rows: list) -> dict[str, str]:
    """Digests of a document's cleaned text and metadata with its chunk rows (ids,
    texts, offsets, pages, headings…), and apart, of the rows' token counts."""
    keys = ("chunk_id", "parent_id", "level", "strategy", "text", "context", "char_start",
            "char_end", "page_start", "page_end", "heading_path", "metadata")
    # Tika's exception traces name Java objects by identity (JpegParser@633a5bfe),
    # which changes from run to run.
    metadata = {k: _JAVA_IDENTITY.sub("@", v) for k, v in doc.metadata.items()}
    record = {"text": doc.text, "title": doc.title, "language": doc.language,
              "metadata": metadata,
              "rows": [{k: row.get(k) for k in keys} for row in rows]}
    counts = [row.get("token_count") for row in rows]
    return {"chunks": hashlib.sha256(json.dumps(record, sort_keys=True, default=str)
                                     .encode()).hexdigest(),
            "token_count": hashlib.sha256(json.dumps(counts).encode()).hexdigest()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--fingerprints", type=pathlib.Path)
    parser.add_argument("--compare", type=pathlib.Path)
    args = parser.parse_args(argv)

    import os

    import ragbeam

    print(f"ragbeam: {pathlib.Path(ragbeam.__file__).parent}; corpus {args.corpus}; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    steps = Steps()
    files = corpus_files(args.corpus)
    steps.extract(files[0])  # warm Tika (its first document pays for class set-up)
    tika_s: dict[pathlib.Path, float] = {}
    per_doc: dict[pathlib.Path, dict[str, float]] = {}
    prints: dict[str, str] = {}
    extracted = {}
    for path in files:
        start = cpu_now()
        extracted[path] = steps.extract(path)
        tika_s[path] = cpu_now() - start
        runs = []
        for _ in range(args.repeat):
            times: dict[str, float] = defaultdict(float)
            try:
                doc, rows = steps.python_steps(path, *extracted[path], times)
            except Exception as exc:  # refused or failed as in a run: still timed
                doc, rows = None, []
                prints[str(path.relative_to(args.corpus))] = {
                    "chunks": f"error {type(exc).__name__}", "token_count": ""}
            runs.append(times)
        per_doc[path] = {step: statistics.median(r[step] for r in runs) for step in STEPS}
        if doc is not None:
            prints[str(path.relative_to(args.corpus))] = fingerprint(doc, rows)
        ours = sum(per_doc[path].values())
        print(f"  {str(path.relative_to(args.corpus))[:48]:48} tika {tika_s[path]:6.2f} s  "
              f"ragbeam {ours:6.2f} s  ({ours / max(tika_s[path], 1e-9):5.1%})  "
              f"rows {len(rows)}", flush=True)

    tika_total = sum(tika_s.values())
    totals = {step: sum(d[step] for d in per_doc.values()) for step in STEPS}
    ours = sum(totals.values())
    print(f"\n{len(files)} documents, median of {args.repeat} per Python step; "
          f"load average now {os.getloadavg()[0]:.1f}")
    print(f"  Tika extraction (CPU):        {tika_total:7.2f} s")
    for step in STEPS:
        print(f"  {step:28}  {totals[step]:7.2f} s  {totals[step] / tika_total:6.1%} of Tika")
    print(f"  ragbeam's Python work:        {ours:7.2f} s  {ours / tika_total:6.1%} of Tika "
          f"(target ≤ {TARGET_SHARE:.0%}; the PDF layout pass not included)")

    if args.profile:
        profiler = cProfile.Profile(time.process_time)  # CPU time, not wall time
        profiler.enable()
        started = time.process_time()
        for path in files:
            with contextlib.suppress(Exception):
                steps.python_steps(path, *extracted[path], None)
        profiler.disable()
        print(f"\ncProfile of one pass ({time.process_time() - started:.2f} s CPU with the "
              "profiler's overhead), own time:")
        stats = pstats.Stats(profiler)
        by_module: dict[str, float] = defaultdict(float)
        for (filename, _, _), (_, _, own, _, _) in stats.stats.items():
            by_module[_short(filename)] += own
        for module, own in sorted(by_module.items(), key=lambda kv: -kv[1])[:args.profile]:
            print(f"  {own:7.2f} s  {module}")
        print()
        stats.sort_stats("tottime").print_stats(args.profile)

    if args.fingerprints:
        args.fingerprints.write_text(json.dumps(prints, indent=1, sort_keys=True))
        print(f"fingerprints of {len(prints)} documents written to {args.fingerprints}")
    if args.compare:
        before = json.loads(args.compare.read_text())
        names = sorted(set(before) | set(prints))
        differ = [k for k in names if (before.get(k) or {}).get("chunks")
                  != (prints.get(k) or {}).get("chunks")]
        counts = [k for k in names if k not in differ and before[k]["token_count"]
                  != prints[k]["token_count"]]
        print(f"compared with {args.compare}: {len(names) - len(differ)} of {len(names)} "
              f"documents identical (text, metadata, chunk rows); token counts differ in "
              f"{len(counts)} of them")
        for name in differ:
            print(f"  differs: {name}")
        for name in counts:
            print(f"  token counts differ: {name}")
        return 1 if differ else 0
    return 0


def _short(filename: str) -> str:
    """A module's path below ragbeam's package (``ragbeam/…``) or site-packages."""
    import ragbeam

    package = str(pathlib.Path(ragbeam.__file__).parent)
    if filename.startswith(package):
        return "ragbeam" + filename[len(package):]
    if "site-packages/" in filename:
        return filename.split("site-packages/", 1)[1]
    return filename


if __name__ == "__main__":
    sys.exit(main())
