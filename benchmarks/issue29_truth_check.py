"""Check the issue-29 truth files without running any cleaning rule.

    python benchmarks/issue29_truth_check.py [--sets issue29-closing,issue29-final]

For every set: the manifest parses, every listed PDF is in the set's folder with
its SHA-256, and every truth line (furniture and ``other_furniture``) occurs, as
often as marked, among Tika's lines of its page (``raw_page_lines`` over the
pipeline's own extraction); page counts match.  Only extraction runs: the truth
was marked before scoring and must stay unseen by the cleaner's output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter

import furniture_truth as ft


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="issue29-closing,issue29-final")
    args = parser.parse_args(argv)
    bad = sum(check(name) for name in args.sets.split(","))
    print("all truth lines found" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
