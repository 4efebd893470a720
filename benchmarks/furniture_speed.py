"""The furniture package's own CPU time, against a git revision's, in the same run.

    python benchmarks/furniture_speed.py --cache DIR --baseline REV [--repeat 3] PATH ...

Each PATH is a document or a folder (as ``cleaning_identity.py`` takes them; with
``--cache``, the extracted documents it keeps). Each document is cleaned once by the
current code and once by ``REV``'s (``cleaning_speed.baseline_cleaner``), each version's
``find_page_furniture`` recording what it is given: the pages' lines as that version
builds them. Then both versions' ``find_page_furniture`` run on their own input, taking
turns ``--repeat`` times, each run with its text caches emptied; the fastest run of each
counts (``time.process_time``). Both
must find the same furniture (checked). Printed: per document and in total, the seconds
of each version and the speed-up.
"""

from __future__ import annotations

import argparse
import gc
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


def recorder(module):
    """Wrap ``module.find_page_furniture`` so that each call's arguments are kept."""
    calls: list[tuple] = []
    found = module.find_page_furniture

    def recording(*args):
        calls.append(args)
        return found(*args)

    module.find_page_furniture = recording
    return found, calls


def comparable(result) -> tuple:
    """A ``FurnitureResult`` of either version, as plain values."""
    return (result.page_numbers, result.running_text, result.companions, result.stamps,
            tuple((g.kind, g.key, g.members) for g in result.template))


def cold_caches(package: str) -> None:
    """Empty the text caches (``functools.lru_cache``) of a version's modules: each run
    starts as a document's first cleaning does."""
    for name, module in list(sys.modules.items()):
        if name.startswith(package):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def fastest(find, args, repeat: int, package: str) -> float:
    best = float("inf")
    for _ in range(repeat):
        cold_caches(package)
        started = time.process_time()
        find(*args)
        best = min(best, time.process_time() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    import importlib

    from cleaning_identity import documents, extracted_documents
    from cleaning_speed import baseline_cleaner

    import ragbeam.transforms.clean.document as document

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    parser.add_argument("--cache", type=pathlib.Path)
    parser.add_argument("--baseline", metavar="REV", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    baseline = baseline_cleaner(args.baseline)
    old_document = importlib.import_module("ragbeam_baseline_clean.document")
    new_find, new_calls = recorder(document)
    old_find, old_calls = recorder(old_document)
    options = document.CleanOptions()
    totals = [0.0, 0.0]
    differ = 0
    for path, extracted in extracted_documents(documents(args.paths), args.cache):
        new_calls.clear()
        old_calls.clear()
        document.clean_document(extracted, options)
        baseline(extracted)
        if not new_calls:
            continue
        seconds = [0.0, 0.0]
        gc.disable()  # as cleaning runs (document._cyclic_collector_paused)
        try:
            for new_args, old_args in zip(new_calls, old_calls, strict=True):
                if comparable(new_find(*new_args)) != comparable(old_find(*old_args)):
                    differ += 1
                    print(f"DIFFERS {path}", flush=True)
                runs: list[list[float]] = [[], []]
                for _ in range(args.repeat):  # taking turns
                    runs[0].append(fastest(old_find, old_args, 1, "ragbeam_baseline_clean"))
                    runs[1].append(fastest(new_find, new_args, 1, "ragbeam.transforms"))
                seconds[0] += min(runs[0])
                seconds[1] += min(runs[1])
        finally:
            gc.enable()
        totals[0] += seconds[0]
        totals[1] += seconds[1]
        print(f"{path.name[:48]:48} {seconds[0]:8.3f} {seconds[1]:8.3f} "
              f"{seconds[0] / max(seconds[1], 1e-9):6.2f}x", flush=True)
    print(f"{'total':48} {totals[0]:8.3f} {totals[1]:8.3f} "
          f"{totals[0] / max(totals[1], 1e-9):6.2f}x  ({args.baseline} s, current s, speed-up;"
          f" {differ} differ)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
