"""Table detection in PDFs (``transforms/clean/tables.py``): precision and recall on
pages marked by hand, and the layout pass's added CPU time.

    python benchmarks/pdf_tables.py --fetch --mirror-root /work/.mirror  # or --download
    python benchmarks/pdf_tables.py                   # precision / recall
    python benchmarks/pdf_tables.py --show            # and every table found, rendered
    python benchmarks/pdf_tables.py --cost PATH ...   # layout pass with and without cells

The set (``data/pdf_tables``): 21 pages of 20 public PDFs the project used nowhere else
(camelot's and pdfplumber's test and example files, MIT), listed in ``manifest.csv`` by
commit and SHA-256: statistical tables, a price list, a donor list, a field-trial
report, a tariff sheet, an expenditure report; and pages that must stay text: prose in
two columns, a numbered list, minutes, an agenda, a form, a line-numbered transcript.
``truth.json`` was marked from page images before the detector ran on them: per page,
its tables, each by the labels of a few of its rows (first, middle, last body row);
a table marked ``optional`` (a ruled key-value box, an election bulletin's columns of
lists) counts neither way.

Scoring, per page: a table found is *right* when its text holds a marked row label of
a marked table of the page (each marked table taken once, in order), else *wrong*;
a marked table is *found whole* when one table found holds its first and last row,
*found in part* when one holds any of its rows. Precision = right / (right + wrong),
recall = found / marked.

``--cost``: CPU seconds of the layout pass (``extract/layout.py`` ``pdf_layout``) on
the same PDFs with the cell reading on and off (``WIDE_LINE``/``SET_LINE`` set out
of reach), and of cleaning with ``detect_tables`` on and off, medians of ``--rounds``
alternating rounds, beside Tika's own time.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import pathlib
import statistics
import subprocess
import sys
import time
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
SET = HERE / "data" / "pdf_tables"
DEFAULT_DATA = HERE.parent.parent / "data" / "pdf-tables"


def fetch(data: pathlib.Path, mirror_root: pathlib.Path | None) -> int:
    """Copy (from a local mirror, ``git show``) or download each file at its commit,
    checking its SHA-256."""
    data.mkdir(parents=True, exist_ok=True)
    with open(SET / "manifest.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        target = data / row["path"]
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == row["sha256"]:
            continue
        if mirror_root is not None:
            git_dir = mirror_root / row["repo"].replace("/", "+") / "repo"
            body = subprocess.run(["git", "-C", str(git_dir), "show",
                                   f"{row['commit']}:{row['source_path']}"],
                                  check=True, capture_output=True).stdout
        else:
            url = (f"https://raw.githubusercontent.com/{row['repo']}/{row['commit']}/"
                   f"{row['source_path']}")
            with urllib.request.urlopen(url) as response:
                body = response.read()
        if hashlib.sha256(body).hexdigest() != row["sha256"]:
            print(f"{row['path']}: SHA-256 differs", file=sys.stderr)
            return 1
        target.write_bytes(body)
    print(f"{len(rows)} files in {data}")
    return 0


def _tables_by_page(path: pathlib.Path, tika) -> dict[int, list[str]]:
    """The tables cleaning finds in a PDF, per page: each table's rendered text."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_document
    from ragbeam.transforms.extract.document import build_extracted_document
    from ragbeam.transforms.types import BlockKind, FetchedFile, SourceFile

    data = path.read_bytes()
    xhtml, metadata = tika.extract(data, path.name)
    fetched = FetchedFile(SourceFile(str(path), path.name, len(data)), data, "h")
    doc = clean_document(build_extracted_document(fetched, xhtml, metadata),
                         CleanOptions(identify_language=False))
    tables: dict[int, list[str]] = {}
    block = None
    for span in doc.spans:
        if span.kind is not BlockKind.TABLE:
            block = None
            continue
        if span.block != block:
            tables.setdefault(span.page or 0, []).append("")
            page, block = span.page or 0, span.block
        tables[page][-1] += doc.text[span.start:span.end] + "\n"
    return tables


def score(data: pathlib.Path, show: bool) -> dict:
    from ragbeam.transforms.extract.backends import EmbeddedTika

    truth = json.loads((SET / "truth.json").read_text())
    tika = EmbeddedTika()
    found_by_file: dict[str, dict[int, list[str]]] = {}
    totals = {"right": 0, "wrong": 0, "marked": 0, "whole": 0, "part": 0}
    for key, marked in truth.items():
        if key.startswith("_"):
            continue
        name, page = key.rsplit("#", 1)
        if name not in found_by_file:
            found_by_file[name] = _tables_by_page(data / name, tika)
        found = found_by_file[name].get(int(page), [])
        taken: set[int] = set()
        optional_hits = 0
        for table in marked:
            match = next((i for i, text in enumerate(found) if i not in taken
                          and any(m in text for m in table["members"])), None)
            if match is not None:
                taken.add(match)
            if table.get("optional"):
                optional_hits += match is not None
                continue
            totals["marked"] += 1
            if match is not None:
                totals["part"] += 1
                text = found[match]
                totals["whole"] += table["members"][0] in text and table["members"][-1] in text
        right = len(taken) - optional_hits
        # A page with an optional table: what is found beside the marked tables is
        # neither right nor wrong.
        wrong = 0 if any(t.get("optional") for t in marked) else len(found) - len(taken)
        totals["right"] += right
        totals["wrong"] += wrong
        line = (f"{key:50} marked {sum(not t.get('optional') for t in marked)}  found "
                f"{len(found)}  right {right}  wrong {wrong}")
        print(line)
        if show:
            for text in found:
                print("    " + text.replace("\n", "\n    "))
    precision = totals["right"] / max(totals["right"] + totals["wrong"], 1)
    print(f"\ntables marked {totals['marked']}, found {totals['right'] + totals['wrong']}: "
          f"precision {precision:.2f} ({totals['right']}/{totals['right'] + totals['wrong']}), "
          f"recall whole {totals['whole'] / totals['marked']:.2f} "
          f"({totals['whole']}/{totals['marked']}), in part "
          f"{totals['part'] / totals['marked']:.2f} ({totals['part']}/{totals['marked']})")
    return totals


def cost(paths: list[pathlib.Path], rounds: int) -> None:
    from ragbeam.transforms.clean.document import CleanOptions, clean_document
    from ragbeam.transforms.extract import layout
    from ragbeam.transforms.extract.backends import EmbeddedTika
    from ragbeam.transforms.extract.document import build_extracted_document
    from ragbeam.transforms.types import FetchedFile, SourceFile

    tika = EmbeddedTika()
    on = (layout.WIDE_LINE, layout.SET_LINE)
    off = (float("inf"), float("inf"))
    print(f"{'document':40} {'pages':>5} {'tika s':>7} {'layout off':>10} {'on':>7} "
          f"{'clean off':>9} {'on':>7} {'added s':>7} {'added/tika':>10}")
    sums = [0.0] * 5
    for path in paths:
        data = path.read_bytes()
        started = time.process_time()
        xhtml, metadata = tika.extract(data, path.name)
        tika_s = time.process_time() - started
        fetched = FetchedFile(SourceFile(str(path), path.name, len(data)), data, "h")
        extracted = build_extracted_document(fetched, xhtml, metadata)
        times: dict[str, list[float]] = {"layout on": [], "layout off": [],
                                         "clean on": [], "clean off": []}
        for round_ in range(rounds):
            for cells in ((True, False) if round_ % 2 == 0 else (False, True)):
                layout.WIDE_LINE, layout.SET_LINE = on if cells else off
                started = time.process_time()
                layout.pdf_layout(data, extracted.raw_text, extracted.blocks)
                times["layout on" if cells else "layout off"].append(
                    time.process_time() - started)
                options = CleanOptions(identify_language=False, detect_tables=cells)
                started = time.process_time()
                clean_document(extracted, options)
                times["clean on" if cells else "clean off"].append(time.process_time() - started)
        layout.WIDE_LINE, layout.SET_LINE = on
        lay_off, lay_on, clean_off, clean_on = (statistics.median(times[k]) for k in (
            "layout off", "layout on", "clean off", "clean on"))
        added = lay_on - lay_off + clean_on - clean_off
        sums = [a + b for a, b in zip(sums, (tika_s, lay_off, lay_on, clean_off, clean_on),
                                      strict=True)]
        pages = extracted.layout.page_sizes if extracted.layout else ()
        print(f"{path.name[:40]:40} {len(pages):5d} {tika_s:7.3f} {lay_off:10.3f} "
              f"{lay_on:7.3f} {clean_off:9.3f} {clean_on:7.3f} {added:7.3f} "
              f"{added / tika_s:10.3f}")
    added = sums[2] - sums[1] + sums[4] - sums[3]
    print(f"{f'{len(paths)} PDFs':40} {'':5} {sums[0]:7.3f} {sums[1]:10.3f} {sums[2]:7.3f} "
          f"{sums[3]:9.3f} {sums[4]:7.3f} {added:7.3f} {added / sums[0]:10.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=pathlib.Path, default=DEFAULT_DATA)
    parser.add_argument("--fetch", action="store_true")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--mirror-root", type=pathlib.Path)
    source.add_argument("--download", action="store_true")
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--cost", nargs="+", type=pathlib.Path, metavar="PATH")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.fetch:
        return fetch(args.data, None if args.download else args.mirror_root)
    if args.cost:
        files = [f for p in args.cost for f in (sorted(p.glob("*.pdf")) if p.is_dir() else [p])]
        cost(files, args.rounds)
        return 0
    if not (args.data / "truth.json").exists() and not any(args.data.glob("*.pdf")):
        print(f"no PDFs in {args.data}: run with --fetch first", file=sys.stderr)
        return 2
    score(args.data, args.show)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
