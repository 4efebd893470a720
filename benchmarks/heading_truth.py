"""PDF heading detection against heading lines marked by hand: precision and recall,
tuning and held-out sets side by side.

    RAGBEAM_HEADING_PDFS=DIR python benchmarks/heading_truth.py [--pdfs DIR] [--show]

The PDFs (``benchmarks/data/heading-pdfs.csv``: public test documents of docling, MIT,
none in the shared corpus) are not in the repository: put them in ``--pdfs`` (default
``$RAGBEAM_HEADING_PDFS`` or ``../data/heading-pdfs``), e.g. from a docling checkout at
the listed commit. ``benchmarks/data/heading-truth.json`` holds the heading lines per
document, in a ``tuning`` set (looked at while the rules were written) and a ``heldout``
set (opened for the final measurement only).

Issue 29 adds three sets from other sources (grobid, Tika, Unstructured test files),
marked before any scoring: ``issue29-closing`` and ``issue29-final`` (PDFs without an
outline, sharing no source) and ``issue29-outline`` (PDFs with one, reported apart: the
outline is then the method). Their files are listed in
``benchmarks/data/issue29-heading-pdfs.csv`` and expected in ``--issue29-pdfs`` (default
``$RAGBEAM_ISSUE29_HEADING_PDFS`` or ``../data/issue29-heading-pdfs``);
``--fetch --mirror-root DIR`` (or ``--download``) copies them there, checking SHA-256:

    python benchmarks/heading_truth.py --fetch --mirror-root /work/.mirror
    python benchmarks/heading_truth.py --set issue29-closing --set issue29-outline

``dev29`` is issue 29's development set: 12 PDFs without an outline from other test
suites (pdfplumber, PyMuPDF, camelot, kreuzberg, docling), marked by hand the same way,
on which the heading rules may be tuned (so its figures are not held-out figures).
Its files are listed in ``benchmarks/data/dev29-heading-pdfs.csv`` and expected in
``--dev29-pdfs`` (default ``$RAGBEAM_DEV29_HEADING_PDFS`` or ``../data/dev29-heading-pdfs``);
``--fetch`` copies them too (``--fetch --set dev29`` copies only them).
``dev29-levels`` in the truth file gives each of its headings' level, which this scorer
ignores:

    python benchmarks/heading_truth.py --fetch --set dev29 --mirror-root /work/.mirror
    python benchmarks/heading_truth.py --set dev29 --show

Round 3 adds two more held-out sets of PDFs without an outline, marked by hand the same
way before any scoring, sharing no source with each other or with the earlier sets:
``issue29-r3dev`` and ``issue29-r3final`` (levels in ``<set>-levels``, as for dev29).
Their files are listed in ``benchmarks/data/issue29-r3-heading-pdfs.csv`` and expected in
``--r3-pdfs`` (default ``$RAGBEAM_ISSUE29_R3_HEADING_PDFS`` or
``../data/issue29-r3-heading-pdfs``); like every issue29-* set they are scored only when
named:

    python benchmarks/heading_truth.py --fetch --set issue29-r3dev --set issue29-r3final \
        --mirror-root /work/.mirror
    python benchmarks/heading_truth.py --set issue29-r3dev

Round 4 adds one more held-out set of PDFs without an outline, ``issue29-r4`` (levels in
``issue29-r4-levels``), marked by hand the same way before any scoring from sources no
earlier set used. Its files are listed in ``benchmarks/data/issue29-r4-heading-pdfs.csv``
and expected in ``--r4-pdfs`` (default ``$RAGBEAM_ISSUE29_R4_HEADING_PDFS`` or
``../data/issue29-r4-heading-pdfs``); it too is scored only when named:

    python benchmarks/heading_truth.py --fetch --set issue29-r4 --mirror-root /work/.mirror
    python benchmarks/heading_truth.py --set issue29-r4

Round 5 adds ``issue29-r5`` (levels in ``issue29-r5-levels``), marked the same way before any
scoring from repositories no earlier heading set used. Its files are listed in
``benchmarks/data/issue29-r5-heading-pdfs.csv`` and expected in ``--r5-pdfs`` (default
``$RAGBEAM_ISSUE29_R5_HEADING_PDFS`` or ``../data/issue29-r5-heading-pdfs``); it too is scored
only when named:

    python benchmarks/heading_truth.py --fetch --set issue29-r5 --mirror-root /work/.mirror
    python benchmarks/heading_truth.py --set issue29-r5

Each PDF goes through the pipeline's single-file path (``ExtractOptions().file_extractor()``:
an isolated Tika child with the run's options) and default cleaning;
the detected headings are the cleaned document's heading spans. A detected heading
matches a truth line when their words (case-folded, numbers left out, so "1 Introduction"
and "Introduction 1" are one heading) are the same set, or overlap by at least
``MIN_JACCARD``; each truth line matches at most one detection. Precision: matched
detections / detections; recall: matched truth lines / truth lines, summed per set.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import pathlib
import re
import sys
import unicodedata

REPO = pathlib.Path(__file__).resolve().parents[1]
TRUTH = REPO / "benchmarks" / "data" / "heading-truth.json"


def _pdfs(variable: str, folder: str) -> pathlib.Path:
    """A set's PDF folder: ``$variable``, else ``../data/<folder>``."""
    return pathlib.Path(os.environ.get(variable, REPO.parent / "data" / folder))


MANIFEST = REPO / "benchmarks" / "data" / "heading-pdfs.csv"
DEFAULT_PDFS = _pdfs("RAGBEAM_HEADING_PDFS", "heading-pdfs")
ISSUE29_MANIFEST = REPO / "benchmarks" / "data" / "issue29-heading-pdfs.csv"
DEFAULT_ISSUE29_PDFS = _pdfs("RAGBEAM_ISSUE29_HEADING_PDFS", "issue29-heading-pdfs")
ISSUE29_SETS = ("issue29-closing", "issue29-final", "issue29-outline")
DEV29_MANIFEST = REPO / "benchmarks" / "data" / "dev29-heading-pdfs.csv"
DEFAULT_DEV29_PDFS = _pdfs("RAGBEAM_DEV29_HEADING_PDFS", "dev29-heading-pdfs")
DEV29_SET = "dev29"
R3_MANIFEST = REPO / "benchmarks" / "data" / "issue29-r3-heading-pdfs.csv"
DEFAULT_R3_PDFS = _pdfs("RAGBEAM_ISSUE29_R3_HEADING_PDFS", "issue29-r3-heading-pdfs")
R3_SETS = ("issue29-r3dev", "issue29-r3final")
R4_MANIFEST = REPO / "benchmarks" / "data" / "issue29-r4-heading-pdfs.csv"
DEFAULT_R4_PDFS = _pdfs("RAGBEAM_ISSUE29_R4_HEADING_PDFS", "issue29-r4-heading-pdfs")
R4_SET = "issue29-r4"
R5_MANIFEST = REPO / "benchmarks" / "data" / "issue29-r5-heading-pdfs.csv"
DEFAULT_R5_PDFS = _pdfs("RAGBEAM_ISSUE29_R5_HEADING_PDFS", "issue29-r5-heading-pdfs")
R5_SET = "issue29-r5"
MIN_JACCARD = 0.8
_WORD = re.compile(r"[^\W\d_]+")


def words(line: str) -> frozenset[str]:
    # NFKC as cleaning applies it to every text: a truth line spelled as Tika gives it
    # ("Ⅰ. 제안경위", U+2160) is the cleaned text's "I. 제안경위".
    return frozenset(word.casefold()
                     for word in _WORD.findall(unicodedata.normalize("NFKC", line)))


def same_heading(a: str, b: str) -> bool:
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return False
    return wa == wb or len(wa & wb) / len(wa | wb) >= MIN_JACCARD


def match(detected: list[str], truth: list[str]) -> int:
    """How many detections match a truth line, each truth line used once."""
    unused = list(truth)
    matched = 0
    for heading in detected:
        for i, line in enumerate(unused):
            if same_heading(heading, line):
                matched += 1
                del unused[i]
                break
    return matched


def detected_headings(path: pathlib.Path) -> list[str]:
    from ragbeam.pipeline.config import ExtractOptions
    from ragbeam.transforms.clean.document import CleanOptions
    from ragbeam.transforms.extract.single_file import read_local_file
    from ragbeam.transforms.types import BlockKind

    doc = ExtractOptions().file_extractor().extract_and_clean(read_local_file(path),
                                                              CleanOptions())
    return [doc.text[s.start:s.end] for s in doc.spans if s.kind is BlockKind.HEADING]


def check_files(folder: pathlib.Path, manifest: pathlib.Path = MANIFEST) -> list[str]:
    with open(manifest, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [row["file"] for row in rows
            if not (folder / row["file"]).is_file()
            or hashlib.sha256((folder / row["file"]).read_bytes()).hexdigest() != row["sha256"]]


def fetch(folder: pathlib.Path, mirror_root: pathlib.Path | None,
          manifest: pathlib.Path = ISSUE29_MANIFEST) -> int:
    """Copy a manifest's PDFs into ``folder`` from git mirrors or GitHub, checking SHA-256."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    import large_docs  # one fetcher for every benchmark corpus

    folder.mkdir(parents=True, exist_ok=True)
    with open(manifest, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    bad = 0
    for row in rows:
        source = {**row, "source_path": row["path"]}
        data = (large_docs._from_mirror(mirror_root, source) if mirror_root
                else large_docs._downloaded(source))
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            print(f"SHA-256 mismatch: {row['file']}", file=sys.stderr)
            bad += 1
            continue
        (folder / row["file"]).write_bytes(data)
    print(f"{manifest.name}: {len(rows) - bad} PDFs in {folder}, {bad} mismatches")
    return 1 if bad else 0


def levels(truth: dict, name: str = DEV29_SET) -> dict[str, list[tuple[int, str]]]:
    """``{file: [(level, heading), …]}`` of a set that records levels (``<set>-levels``)."""
    return {file: [(level, text) for level, text in pairs]
            for file, pairs in truth.get(f"{name}-levels", {}).items()}


def score_set(folder: pathlib.Path, truth: dict[str, list[str]], show: bool
              ) -> tuple[int, int, int, int]:
    """``(detected, matched detections, truth lines, matched truth lines)``, per file printed."""
    totals = [0, 0, 0, 0]
    for name, lines in sorted(truth.items()):
        found = detected_headings(folder / name)
        hits = match(found, lines)
        counts = (len(found), hits, len(lines), hits)
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        precision = hits / len(found) if found else 1.0
        recall = hits / len(lines) if lines else 1.0
        print(f"  {name:36s} detected {len(found):3d}  truth {len(lines):3d}  "
              f"P {precision:.3f}  R {recall:.3f}")
        if show:
            for heading in found:
                mark = "+" if any(same_heading(heading, line) for line in lines) else "-"
                print(f"      {mark} {heading[:90]}")
            for line in lines:
                if not any(same_heading(heading, line) for heading in found):
                    print(f"      missed: {line[:90]}")
    return tuple(totals)  # type: ignore[return-value]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pdfs", type=pathlib.Path, default=DEFAULT_PDFS)
    parser.add_argument("--show", action="store_true",
                        help="print every detected heading (+ matched, - not a heading) "
                             "and every heading missed")
    parser.add_argument("--issue29-pdfs", type=pathlib.Path, default=DEFAULT_ISSUE29_PDFS,
                        help="folder with the PDFs of issue29-heading-pdfs.csv")
    parser.add_argument("--dev29-pdfs", type=pathlib.Path, default=DEFAULT_DEV29_PDFS,
                        help="folder with the PDFs of dev29-heading-pdfs.csv")
    parser.add_argument("--r3-pdfs", type=pathlib.Path, default=DEFAULT_R3_PDFS,
                        help="folder with the PDFs of issue29-r3-heading-pdfs.csv")
    parser.add_argument("--r4-pdfs", type=pathlib.Path, default=DEFAULT_R4_PDFS,
                        help="folder with the PDFs of issue29-r4-heading-pdfs.csv")
    parser.add_argument("--r5-pdfs", type=pathlib.Path, default=DEFAULT_R5_PDFS,
                        help="folder with the PDFs of issue29-r5-heading-pdfs.csv")
    parser.add_argument("--set", choices=("tuning", "heldout", *ISSUE29_SETS, DEV29_SET,
                                          *R3_SETS, R4_SET, R5_SET),
                        action="append",
                        help="score only this set (repeatable; default tuning and heldout)")
    parser.add_argument("--fetch", action="store_true",
                        help="copy the issue-29 sets' PDFs into --issue29-pdfs, the dev29 "
                             "PDFs into --dev29-pdfs, the round-3 sets' into --r3-pdfs and "
                             "issue29-r4's into --r4-pdfs, issue29-r5's into --r5-pdfs "
                             "(with --set, only those sets'), then exit")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--mirror-root", type=pathlib.Path,
                        help="with --fetch: local git mirrors DIR/<owner>+<name>/repo")
    source.add_argument("--download", action="store_true",
                        help="with --fetch: from raw.githubusercontent.com at the listed commits")
    args = parser.parse_args(argv)
    if args.fetch:
        if not args.mirror_root and not args.download:
            parser.error("--fetch needs --mirror-root DIR or --download")
        wanted = set(args.set or (*ISSUE29_SETS, DEV29_SET, *R3_SETS, R4_SET, R5_SET))
        if wanted - {*ISSUE29_SETS, DEV29_SET, *R3_SETS, R4_SET, R5_SET}:
            parser.error("--fetch copies the issue-29, dev29, round-3, round-4 and round-5 "
                         "sets only")
        bad = 0
        if wanted & set(ISSUE29_SETS):
            bad += fetch(args.issue29_pdfs, args.mirror_root, ISSUE29_MANIFEST)
        if DEV29_SET in wanted:
            bad += fetch(args.dev29_pdfs, args.mirror_root, DEV29_MANIFEST)
        if wanted & set(R3_SETS):
            bad += fetch(args.r3_pdfs, args.mirror_root, R3_MANIFEST)
        if R4_SET in wanted:
            bad += fetch(args.r4_pdfs, args.mirror_root, R4_MANIFEST)
        if R5_SET in wanted:
            bad += fetch(args.r5_pdfs, args.mirror_root, R5_MANIFEST)
        return 1 if bad else 0
    names = args.set or ("tuning", "heldout")
    truth = json.loads(TRUTH.read_text(encoding="utf-8"))
    for name in names:
        folder, manifest = ((args.issue29_pdfs, ISSUE29_MANIFEST) if name in ISSUE29_SETS
                            else (args.dev29_pdfs, DEV29_MANIFEST) if name == DEV29_SET
                            else (args.r3_pdfs, R3_MANIFEST) if name in R3_SETS
                            else (args.r4_pdfs, R4_MANIFEST) if name == R4_SET
                            else (args.r5_pdfs, R5_MANIFEST) if name == R5_SET
                            else (args.pdfs, MANIFEST))
        missing = check_files(folder, manifest)
        if missing:
            print(f"missing or different in {folder}: {', '.join(missing)}", file=sys.stderr)
            return 2
        print(f"{name}:")
        detected, hits, lines, found = score_set(folder, truth[name], args.show)
        precision = hits / detected if detected else 1.0
        print(f"  {'total':36s} detected {detected:3d}  truth {lines:3d}  "
              f"P {precision:.3f}  R {found / lines if lines else 1.0:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
