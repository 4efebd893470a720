"""Where cleaning's time goes: CPU seconds per step of ``clean_document``.

    python benchmarks/cleaning_steps.py [--cache DIR] [--repeat 3] PATH ...

Each PATH is a document or a folder (as ``cleaning_identity.py`` takes them; with
``--cache``, the extracted documents it keeps). Each document is cleaned once to warm
up, then ``--repeat`` times; the fastest run counts. Each step of ``clean_document``
(the module's own helpers, looked up by name when it runs) is timed in
``time.process_time``; printed: each step's seconds and share of cleaning, slowest
first, "rest" being what ``clean_document`` does between them.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

STEPS = ("_block_lines", "_remove_residue", "_remove_cover_page", "_remove_furniture",
         "_strip_leaders", "_mark_wraps_by_position", "_mark_contents", "_mark_tables",
         "_hold_footnotes", "mark_plain_wraps", "assemble", "mark_headings", "_name_document")


def main(argv: list[str] | None = None) -> int:
    from cleaning_identity import documents, extracted_documents

    import ragbeam.transforms.clean.document as document

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    parser.add_argument("--cache", type=pathlib.Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    spent: collections.Counter[str] = collections.Counter()  # this run's, per step
    spent_total: collections.Counter[str] = collections.Counter()  # the fastest runs'
    timing = False

    def timed(name, step):
        def run(*a, **k):
            if not timing:
                return step(*a, **k)
            started = time.process_time()
            try:
                return step(*a, **k)
            finally:
                spent[name] += time.process_time() - started
        return run

    for name in STEPS:
        setattr(document, name, timed(name, getattr(document, name)))
    options = document.CleanOptions()
    total = 0.0
    for _, extracted in extracted_documents(documents(args.paths), args.cache):
        document.clean_document(extracted, options)  # warm
        best, best_steps = float("inf"), collections.Counter()
        for _ in range(args.repeat):
            spent.clear()
            timing = True
            started = time.process_time()
            document.clean_document(extracted, options)
            elapsed = time.process_time() - started
            timing = False
            if elapsed < best:
                best, best_steps = elapsed, collections.Counter(spent)
        total += best
        spent_total.update(best_steps)
    print(f"{'cleaning':28} {total:8.3f} s")
    for name, seconds in spent_total.most_common():
        print(f"{name:28} {seconds:8.3f} s {seconds / total:6.1%}")
    print(f"{'rest':28} {total - sum(spent_total.values()):8.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
