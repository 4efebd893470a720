"""Check the issue-29 truth files without running any cleaning rule.

    python benchmarks/issue29_truth_check.py [--sets issue29-closing,issue29-final]
                                             [--headings DIR]

For every set: the manifest parses, every listed PDF is in the set's folder with
its SHA-256, and every truth line (furniture and ``other_furniture``) occurs, as
often as marked, among Tika's lines of its page (``raw_page_lines`` over the
pipeline's own extraction); page counts match.  For the issue-29 heading sets
(``heading-truth.json``, PDFs in ``--headings``): every heading's words (the heading
scorer's ``words``) are among the words of at most four consecutive Tika lines of
one page, and the sets without an outline have none.  Only extraction runs: the truth
was marked before scoring and must stay unseen by the cleaner's output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import sys
from collections import Counter

import furniture_truth as ft
import heading_truth as ht


def check(name: str) -> int:
    heldout = ft.HELDOUT_SETS[name]
    truth = json.loads(heldout.truth.read_text(encoding="utf-8"))
    rows = ft.manifest_rows(heldout.manifest)
    bad = 0
    if sorted(r["file"] for r in rows) != sorted(truth):
        print(f"{name}: manifest and truth list different files")
        bad += 1
    for row in rows:
        path = heldout.folder / row["file"]
        if hashlib.sha256(path.read_bytes()).hexdigest() != row["sha256"]:
            print(f"{name}: {row['file']}: SHA-256 mismatch")
            bad += 1
            continue
        xhtml, _ = ft.extract(path)
        pages = ft.raw_page_lines(xhtml)
        entry = truth[row["file"]]
        if len(pages) != entry["pages"] or str(entry["pages"]) != row["pages"]:
            print(f"{name}: {row['file']}: {len(pages)} pages, truth says {entry['pages']}")
            bad += 1
        for key in ("per_page", "other_furniture"):
            marks = entry.get(key, [[] for _ in pages])
            if len(marks) != len(pages):
                print(f"{name}: {row['file']}: {key} lists {len(marks)} pages")
                bad += 1
                continue
            for number, (page, marked) in enumerate(zip(pages, marks, strict=True), 1):
                for line in Counter(marked) - Counter(page):
                    print(f"{name}: {row['file']} p.{number} {key}: not a line of its page: "
                          f"{line!r}")
                    bad += 1
        print(f"{name}: {row['file']}: {len(pages)} pages, "
              f"{sum(map(len, entry['per_page']))} furniture lines, "
              f"{sum(map(len, entry.get('other_furniture', [])))} other_furniture")
    return bad


def check_headings(folder) -> int:
    import pypdfium2

    truth = json.loads(ht.TRUTH.read_text(encoding="utf-8"))
    missing = ht.check_files(folder, ht.ISSUE29_MANIFEST)
    if missing:
        print(f"headings: missing or different in {folder}: {', '.join(missing)}")
        return len(missing)
    bad = 0
    for name in ht.ISSUE29_SETS:
        for file, headings in truth[name].items():
            outline = len(list(pypdfium2.PdfDocument(str(folder / file)).get_toc()))
            if (outline > 0) != (name == "issue29-outline"):
                print(f"{name}: {file}: outline of {outline} entries")
                bad += 1
            pages = ft.raw_page_lines(ft.extract(folder / file)[0])
            # a heading wrapped by the page: its lines joined, a word broken at a hyphen
            # rejoined (as spelled in Tika's text, e.g. 'Lemâıtre')
            windows = [ht.words(" ".join(page[i:i + n]).replace("- ", "")) | ht.words(
                " ".join(page[i:i + n])) for page in pages
                for n in (1, 2, 3, 4) for i in range(len(page))]
            for heading in headings:
                if not any(ht.words(heading) <= window for window in windows):
                    print(f"{name}: {file}: heading not in Tika's lines: {heading!r}")
                    bad += 1
            print(f"{name}: {file}: {len(pages)} pages, {len(headings)} headings, "
                  f"outline {outline}")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="issue29-closing,issue29-final")
    parser.add_argument("--headings", type=pathlib.Path, default=ht.DEFAULT_ISSUE29_PDFS)
    args = parser.parse_args(argv)
    bad = sum(check(name) for name in args.sets.split(",")) + check_headings(args.headings)
    print("all truth lines found" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
