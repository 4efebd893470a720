"""Check the issue-29 and issue-39 truth files without running any cleaning rule.

    python benchmarks/issue29_truth_check.py [--sets issue29-closing,issue29-final]
                                             [--headings DIR]
    python benchmarks/issue29_truth_check.py --sets issue29-r3dev,issue29-r3final \
                                             --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue29-r4 --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue29-r5 --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue39-a,issue39-b --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue39-c --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue39-d --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue39-e --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue39-f --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue39-g --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue39-h --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue39-i --heading-sets ''
    python benchmarks/issue29_truth_check.py --sets issue39-j --heading-sets ''

For every set (a furniture set of ``furniture_truth.HELDOUT_SETS``: issue29-closing and
issue29-final by default, the third round's issue29-r3dev and issue29-r3final, the fourth
round's issue29-r4, the fifth round's issue29-r5 and issue 39's issue39-a, issue39-b,
issue39-c, issue39-d, issue39-e, issue39-f, issue39-g, issue39-h, issue39-i and issue39-j
when named): the manifest parses, every listed PDF is in the set's folder with its SHA-256,
and every truth line (furniture and ``other_furniture``) occurs, as often as marked, among
Tika's lines of its page (``raw_page_lines`` over the pipeline's own extraction); page counts
match. The issue-39 sets must also come from sources no other set used: no repository or
SHA-256 of theirs is in any other manifest under ``benchmarks/data`` (the retrieval sets'
``retrieval/*/documents.csv`` included), in ``benchmarks/large_docs.csv`` or in the shared
corpus's ``MANIFEST.csv`` (the issue-39 sets share none either). For the issue-29 heading
sets (``heading-truth.json``, PDFs in ``--headings``): every heading's words (the heading
scorer's ``words``) are among the words of at most four consecutive Tika lines of one
page, and the sets without an outline have none. Only extraction runs: the truth was marked before
scoring and must stay unseen by the cleaner's output.

The ``dev29`` heading set (a development set, PDFs in ``--dev29``) gets the same
heading check, plus: its PDFs have no outline, their page counts match the manifest,
and ``dev29-levels`` lists the same headings in the same order with levels ≥ 1.
``--sets '' --heading-sets dev29`` checks it alone.

The round-3 heading sets ``issue29-r3dev`` and ``issue29-r3final`` (PDFs in ``--r3``,
listed in ``issue29-r3-heading-pdfs.csv`` with a ``set`` column) get the dev29 checks,
per set: ``--sets '' --heading-sets r3`` checks them alone.  The round-4 heading set
``issue29-r4`` (PDFs in ``--r4``, listed in ``issue29-r4-heading-pdfs.csv``) gets the same
checks, and shares no source with any earlier heading set's manifest:
``--sets '' --heading-sets r4``. The round-5 heading set ``issue29-r5`` (PDFs in ``--r5``,
listed in ``issue29-r5-heading-pdfs.csv``) gets the same checks, sharing no source with any
earlier heading manifest (round 4's included): ``--sets '' --heading-sets r5``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import subprocess
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


# Sets that must come from repositories and files no other set or corpus used.
NEW_SOURCE_SETS = ("issue39-a", "issue39-b", "issue39-c", "issue39-d", "issue39-e",
                   "issue39-f", "issue39-g", "issue39-h", "issue39-i", "issue39-j")
SHARED_CORPUS_MANIFEST = ft.REPO.parent / "shared" / "corpus" / "MANIFEST.csv"


def added_at(path: pathlib.Path) -> int | None:
    """When git first added ``path`` (its commit's time), None where it is not
    committed or there is no checkout."""
    try:
        shallow = subprocess.run(
            ["git", "-C", str(ft.REPO), "rev-parse", "--is-shallow-repository"],
            capture_output=True, text=True, check=True).stdout.strip()
        if shallow != "false":  # a shallow clone dates every file to its one commit
            return None
        found = subprocess.run(
            ["git", "-C", str(ft.REPO), "log", "--diff-filter=A", "--format=%ct", "--",
             str(path.relative_to(ft.REPO))],
            capture_output=True, text=True, check=True).stdout.split()
    except (OSError, ValueError, subprocess.CalledProcessError):
        return None
    return int(found[-1]) if found else None


def other_sources(own: pathlib.Path) -> tuple[set[str], set[str]]:
    """(repositories, SHA-256s) of every manifest but ``own`` that existed when ``own``
    was added: the benchmark manifests (the retrieval sets' too), the large-document
    corpus and the shared corpus (where present). A set is unseen if nothing before it
    used its sources; a manifest added later (a retrieval dev domain that takes a
    filing an earlier, scored furniture set holds) does not unmake that."""
    manifests = [m for m in sorted(ft.DATA.glob("*.csv")) if m != own]
    manifests += sorted(ft.DATA.glob("retrieval/*/documents.csv"))
    manifests.append(ft.REPO / "benchmarks" / "large_docs.csv")
    own_added = added_at(own)
    if own_added is not None:
        manifests = [m for m in manifests
                     if (added := added_at(m)) is None or added <= own_added]
    if SHARED_CORPUS_MANIFEST.is_file():
        manifests.append(SHARED_CORPUS_MANIFEST)
    repos: set[str] = set()
    digests: set[str] = set()
    for manifest in manifests:
        for row in ft.manifest_rows(manifest):
            repos.add(row.get("repo") or row.get("source_repo") or "")
            digests.add(row.get("sha256") or "")
    return repos - {""}, digests - {""}


def check_new_sources(name: str) -> int:
    heldout = ft.HELDOUT_SETS[name]
    repos, digests = other_sources(heldout.manifest)
    bad = 0
    for row in ft.manifest_rows(heldout.manifest):
        if row["repo"] in repos:
            print(f"{name}: {row['file']}: repository {row['repo']} is in another manifest")
            bad += 1
        if row["sha256"] in digests:
            print(f"{name}: {row['file']}: the same file is in another manifest")
            bad += 1
    return bad


def heading_windows(pages: list[list[str]]) -> list[frozenset[str]]:
    """The words of every run of one to four consecutive Tika lines of a page.

    A heading wrapped by the page has its lines joined, a word broken at a hyphen
    rejoined (as spelled in Tika's text, e.g. 'Lemâıtre'), CJK lines joined without a
    space (a space would split one CJK word in two)."""
    windows = []
    for page in pages:
        for n in (1, 2, 3, 4):
            for i in range(len(page)):
                lines = page[i:i + n]
                joined = " ".join(lines)
                windows.append(ht.words(joined.replace("- ", "")) | ht.words(joined)
                               | ht.words("".join(lines)))
    return windows


def check_heading_set(name: str, folder: pathlib.Path, manifest: pathlib.Path,
                      headings_by_file: dict[str, list[str]], outline_expected: bool,
                      check_pages: bool = False) -> int:
    import pypdfium2

    bad = 0
    rows = {row["file"]: row for row in ft.manifest_rows(manifest)}
    for file, headings in headings_by_file.items():
        outline = len(list(pypdfium2.PdfDocument(str(folder / file)).get_toc()))
        if (outline > 0) != outline_expected:
            print(f"{name}: {file}: outline of {outline} entries")
            bad += 1
        pages = ft.raw_page_lines(ft.extract(folder / file)[0])
        if check_pages and str(len(pages)) != rows[file]["pages"]:
            print(f"{name}: {file}: {len(pages)} pages, manifest says {rows[file]['pages']}")
            bad += 1
        windows = heading_windows(pages)
        for heading in headings:
            if not any(ht.words(heading) <= window for window in windows):
                print(f"{name}: {file}: heading not in Tika's lines: {heading!r}")
                bad += 1
        print(f"{name}: {file}: {len(pages)} pages, {len(headings)} headings, "
              f"outline {outline}")
    return bad


def check_headings(folder: pathlib.Path) -> int:
    truth = json.loads(ht.TRUTH.read_text(encoding="utf-8"))
    missing = ht.check_files(folder, ht.ISSUE29_MANIFEST)
    if missing:
        print(f"headings: missing or different in {folder}: {', '.join(missing)}")
        return len(missing)
    return sum(check_heading_set(name, folder, ht.ISSUE29_MANIFEST, truth[name],
                                 name == "issue29-outline") for name in ht.ISSUE29_SETS)


def check_levels_set(name: str, folder: pathlib.Path, manifest: pathlib.Path) -> int:
    """A set without an outline that records levels (``<name>-levels``): files, levels,
    outline, page counts and the heading lines."""
    truth = json.loads(ht.TRUTH.read_text(encoding="utf-8"))
    rows = [row for row in ft.manifest_rows(manifest) if row.get("set", name) == name]
    missing = [row["file"] for row in rows
               if not (folder / row["file"]).is_file()
               or hashlib.sha256((folder / row["file"]).read_bytes()).hexdigest()
               != row["sha256"]]
    if missing:
        print(f"{name}: missing or different in {folder}: {', '.join(missing)}")
        return len(missing)
    bad = 0
    if sorted(row["file"] for row in rows) != sorted(truth[name]):
        print(f"{name}: manifest and truth list different files")
        bad += 1
    levels = ht.levels(truth, name)
    for file, headings in truth[name].items():
        pairs = levels.get(file, [])
        if [text for _, text in pairs] != headings or any(
                not isinstance(level, int) or level < 1 for level, _ in pairs):
            print(f"{name}: {file}: {name}-levels does not list its headings with levels >= 1")
            bad += 1
    bad += check_heading_set(name, folder, manifest, truth[name], False, check_pages=True)
    print(f"{name}: {len(truth[name])} PDFs, "
          f"{sum(map(len, truth[name].values()))} headings")
    return bad


def check_dev29(folder: pathlib.Path) -> int:
    return check_levels_set(ht.DEV29_SET, folder, ht.DEV29_MANIFEST)


def check_r3(folder: pathlib.Path) -> int:
    sources = {name: {row["repo"] for row in ft.manifest_rows(ht.R3_MANIFEST)
                      if row["set"] == name} for name in ht.R3_SETS}
    bad = 0
    if set.intersection(*sources.values()):
        print(f"round 3: sets share sources: {set.intersection(*sources.values())}")
        bad += 1
    return bad + sum(check_levels_set(name, folder, ht.R3_MANIFEST) for name in ht.R3_SETS)


def check_new_round(round_: int, name: str, folder: pathlib.Path,
                    manifest: pathlib.Path, earlier_manifests: tuple[pathlib.Path, ...]) -> int:
    """A later round's heading set: its checks, and no source an earlier set used."""
    earlier = {row["repo"] for earlier_manifest in earlier_manifests
               for row in ft.manifest_rows(earlier_manifest) if row.get("repo")}
    shared = {row["repo"] for row in ft.manifest_rows(manifest)} & earlier
    bad = 0
    if shared:
        print(f"round {round_}: sources shared with earlier sets: {shared}")
        bad += 1
    return bad + check_levels_set(name, folder, manifest)


_BEFORE_R4 = (ht.MANIFEST, ht.ISSUE29_MANIFEST, ht.DEV29_MANIFEST, ht.R3_MANIFEST)


def check_r4(folder: pathlib.Path) -> int:
    return check_new_round(4, ht.R4_SET, folder, ht.R4_MANIFEST, _BEFORE_R4)


def check_r5(folder: pathlib.Path) -> int:
    return check_new_round(5, ht.R5_SET, folder, ht.R5_MANIFEST, (*_BEFORE_R4, ht.R4_MANIFEST))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="issue29-closing,issue29-final",
                        help="furniture sets to check, comma-separated ('' for none; "
                             "also issue29-r3dev, issue29-r3final, issue29-r4, "
                             "issue29-r5, issue39-a, issue39-b, issue39-c, issue39-d, "
                             "issue39-e, issue39-f, issue39-g, issue39-h, issue39-i, "
                             "issue39-j)")
    parser.add_argument("--heading-sets", default="issue29,dev29,r3,r4,r5",
                        help="heading sets to check: issue29 (the three), dev29, "
                             "r3 (issue29-r3dev and issue29-r3final), r4 (issue29-r4), "
                             "r5 (issue29-r5)")
    parser.add_argument("--headings", type=pathlib.Path, default=ht.DEFAULT_ISSUE29_PDFS)
    parser.add_argument("--dev29", type=pathlib.Path, default=ht.DEFAULT_DEV29_PDFS)
    parser.add_argument("--r3", type=pathlib.Path, default=ht.DEFAULT_R3_PDFS)
    parser.add_argument("--r4", type=pathlib.Path, default=ht.DEFAULT_R4_PDFS)
    parser.add_argument("--r5", type=pathlib.Path, default=ht.DEFAULT_R5_PDFS)
    args = parser.parse_args(argv)
    heading_sets = set(filter(None, args.heading_sets.split(",")))
    if heading_sets - {"issue29", "dev29", "r3", "r4", "r5"}:
        parser.error("--heading-sets takes issue29, dev29, r3, r4 and/or r5")
    names = list(filter(None, args.sets.split(",")))
    bad = sum(check(name) for name in names)
    bad += sum(check_new_sources(name) for name in names if name in NEW_SOURCE_SETS)
    if "issue29" in heading_sets:
        bad += check_headings(args.headings)
    if "dev29" in heading_sets:
        bad += check_dev29(args.dev29)
    if "r3" in heading_sets:
        bad += check_r3(args.r3)
    if "r4" in heading_sets:
        bad += check_r4(args.r4)
    if "r5" in heading_sets:
        bad += check_r5(args.r5)
    print("all truth lines found" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
