"""Furniture recall and body retention: tuning set and held-out set, side by side.

    python benchmarks/furniture_truth.py [--corpus ../shared/corpus] [--heldout DIR] [--show]
    python benchmarks/furniture_truth.py --pdf any.pdf [--pdf other.pdf]   # audit, no truth

Two truth sets, always reported separately:

* **tuning**: ``shared/corpus/headers_truth.json`` (4 PDFs, 20 pages). The
  cleaning rules were written while looking at these.
* **held-out**: ``benchmarks/data/heldout_truth.json`` (12 PDFs, 183 pages from
  other projects' test data, listed with commit and sha256 in
  ``benchmarks/data/heldout-pdfs.csv``; the files are not in the repository).
  Their furniture was marked from Tika's lines and pdfminer.six page positions
  before the cleaner was run on them (docs/cleaning.md says what was learnt
  from them since). ``--heldout DIR`` points at the downloaded files (default:
  ``$RAGBEAM_HELDOUT_PDFS`` or ``../data/heldout-pdfs`` beside the repository);
  without them only the tuning set is scored.

For every PDF in a truth file: extract with Tika (the pipeline's own code),
clean with the default ``CleanOptions``, then measure

* **furniture recall**: share of the truth's header/footer/page-number line
  occurrences that are gone from the cleaned text of their page. Two readings,
  both printed: ``line`` (the issue's: no longer a line of its own) and
  ``strict`` (no longer anywhere on that page as a whole token sequence, beyond
  what the page's body itself contains; joining a page number into a paragraph
  does not count as removing it);
* **body retention**: share of body words (raw lines that are neither truth
  furniture nor ``other_furniture``; NFKC, case-folded, de-hyphenated; each
  CJK character a word, hyphens between letters ignored) still in the cleaned
  text, counted as a multiset.

``--show`` prints every line the cleaner removed, per page, for inspection;
``--pdf`` does that for PDFs outside the truth file (held-out checks by eye).
The functions here are imported by ``tests/transforms/clean/test_furniture_truth.py``.
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
from collections import Counter
from dataclasses import dataclass

from lxml import etree

from ragbeam.transforms.charsets import CJK_CLASS

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
HELDOUT_TRUTH = REPO / "benchmarks" / "data" / "heldout_truth.json"
HELDOUT_MANIFEST = REPO / "benchmarks" / "data" / "heldout-pdfs.csv"
DEFAULT_HELDOUT = pathlib.Path(os.environ.get("RAGBEAM_HELDOUT_PDFS",
                                              REPO.parent / "data" / "heldout-pdfs"))

_CJK = CJK_CLASS
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
_BROKEN_WORD = re.compile(r"([^\W\d_])-\n([^\W\d_])")
_INNER_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")


@dataclass
class FileScore:
    path: str
    truth_lines: int
    removed_line: int  # by the reading
    removed_strict: int
    body_words: int
    body_words_kept: int
    removed_lines: list[tuple[int, str]]  # (page, line) the cleaner removed

    @property
    def recall_line(self) -> float:
        return self.removed_line / self.truth_lines if self.truth_lines else 1.0

    @property
    def recall_strict(self) -> float:
        return self.removed_strict / self.truth_lines if self.truth_lines else 1.0

    @property
    def retention(self) -> float:
        return self.body_words_kept / self.body_words if self.body_words else 1.0


def raw_page_lines(xhtml: str) -> list[list[str]]:
    """The truth file's definition of lines: per page div, text nodes joined, split, stripped."""
    parser = etree.XMLParser(recover=True, huge_tree=True, resolve_entities=False,
                             no_network=True)
    root = etree.fromstring(xhtml.encode("utf-8"), parser=parser)
    pages = root.xpath("//*[local-name()='div'][@class='page']")
    return [[line.strip() for line in "".join(page.itertext()).split("\n") if line.strip()]
            for page in pages]


def tokens(text: str) -> list[str]:
    """Words in order: NFKC, case-folded, de-hyphenated, each CJK character a word."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_line_text

    text = _BROKEN_WORD.sub(lambda m: m[1] + m[2] if m[2].islower() else m[0], text)
    normalized = "\n".join(clean_line_text(line, CleanOptions()) for line in text.split("\n"))
    # Hyphens between letters do not split words, so "open-source" kept as a
    # compound and "opensource" re-joined count the same.
    return _TOKEN.findall(_INNER_HYPHEN.sub("", normalized.casefold()))


def words(text: str) -> Counter[str]:
    return Counter(tokens(text))


def _token_pattern(line: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(line)}(?!\w)")


def score_document(path: str, raw_pages: list[list[str]], doc, truth: dict) -> FileScore:
    """Score one cleaned ``Document`` against its truth entry."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_line_text

    def norm(line: str) -> str:
        return clean_line_text(line, CleanOptions())

    per_page: list[list[str]] = truth["per_page"]
    other = truth.get("other_furniture") or [[] for _ in per_page]
    cleaned_pages: dict[int, list[str]] = {}
    for span in doc.spans:
        cleaned_pages.setdefault(span.page or 0, []).append(doc.text[span.start:span.end])
    cleaned_lines_of = {p: Counter(line for piece in pieces
                                   for line in "\n".join(pieces).split("\n"))
                        for p, pieces in cleaned_pages.items()}
    truth_total = removed_line = removed_strict = 0
    body_text: list[str] = []
    for index, furniture in enumerate(per_page):
        page = index + 1
        raw = raw_pages[index] if index < len(raw_pages) else []
        excluded = Counter(furniture) + Counter(other[index] if index < len(other) else [])
        body_lines = []
        for line in raw:
            if excluded[line] > 0:
                excluded[line] -= 1
            else:
                body_lines.append(line)
        body_text.append("\n".join(body_lines))
        body_norm = [norm(line) for line in (Counter(raw) - Counter(furniture)).elements()]
        cleaned_page = "\n".join(cleaned_pages.get(page, []))
        cleaned_lines = cleaned_lines_of.get(page, Counter())
        for line, count in Counter(furniture).items():
            target = norm(line)
            truth_total += count
            left_as_line = max(0, cleaned_lines[target] - body_norm.count(target))
            removed_line += count - min(count, left_as_line)
            pattern = _token_pattern(target)
            in_body = sum(len(pattern.findall(b)) for b in body_norm)
            left_anywhere = max(0, len(pattern.findall(cleaned_page)) - in_body)
            removed_strict += count - min(count, left_anywhere)
    body_words = words("\n".join(body_text))
    kept = words(doc.text)
    kept_total = sum(min(n, kept[w]) for w, n in body_words.items())
    return FileScore(path, truth_total, removed_line, removed_strict,
                     sum(body_words.values()), kept_total, removed_lines(raw_pages, doc))


def removed_lines(raw_pages: list[list[str]], doc) -> list[tuple[int, str]]:
    """Raw lines of each page that no longer occur in the cleaned text of that page."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_line_text

    out: list[tuple[int, str]] = []
    for index, raw in enumerate(raw_pages):
        page = index + 1
        kept = "\n".join(doc.text[s.start:s.end] for s in doc.spans if s.page == page)
        for line in raw:
            norm = clean_line_text(line, CleanOptions())
            if norm and norm not in kept and norm.rstrip("-") not in kept:
                out.append((page, line))
    return out


def extract(path: pathlib.Path):
    """(xhtml, ExtractedDocument) through the pipeline's own extraction code."""
    import hashlib

    from ragbeam.transforms.extract.backends import EmbeddedTika
    from ragbeam.transforms.extract.document import build_extracted_document
    from ragbeam.transforms.types import FetchedFile, SourceFile

    data = path.read_bytes()
    xhtml, metadata = EmbeddedTika().extract(data, path.name)
    fetched = FetchedFile(SourceFile(str(path), "doc", len(data)), data,
                          hashlib.sha256(data).hexdigest())
    return xhtml, build_extracted_document(fetched, xhtml, metadata)


def score_truth(truth_file: pathlib.Path, folder: pathlib.Path, options=None
                ) -> list[FileScore]:
    """Score every PDF a truth file lists (paths relative to ``folder``)."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_document

    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    scores = []
    for rel, entry in sorted(truth.items()):
        xhtml, extracted = extract(folder / rel)
        # Furniture rules are measured: a repository's cover sheet, removed on purpose
        # (clean/cover.py, tested on its own), would count as lost body words.
        doc = clean_document(extracted, options or CleanOptions(remove_cover_page=False))
        scores.append(score_document(rel, raw_page_lines(xhtml), doc, entry))
    return scores


def score_corpus(corpus: pathlib.Path, options=None) -> list[FileScore]:
    """The tuning set: the shared corpus's ``headers_truth.json``."""
    return score_truth(corpus / "headers_truth.json", corpus, options)


def heldout_files_present(folder: pathlib.Path) -> bool:
    """Are all held-out PDFs in ``folder``, byte for byte as the manifest says?"""
    with open(HELDOUT_MANIFEST, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        path = folder / row["file"]
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != row["sha256"]:
            return False
    return True


def score_heldout(folder: pathlib.Path, options=None) -> list[FileScore]:
    return score_truth(HELDOUT_TRUTH, folder, options)


def totals(scores: list[FileScore]) -> dict[str, float]:
    truth = sum(s.truth_lines for s in scores)
    body = sum(s.body_words for s in scores)
    return {
        "recall_line": sum(s.removed_line for s in scores) / truth,
        "recall_strict": sum(s.removed_strict for s in scores) / truth,
        "retention": sum(s.body_words_kept for s in scores) / body,
    }


def audit(paths: list[pathlib.Path]) -> int:
    """Print the furniture lines cleaning removes from each PDF, with their pages."""
    from ragbeam.transforms.clean.document import CleanOptions, clean_document

    for path in paths:
        xhtml, extracted = extract(path)
        doc = clean_document(extracted, CleanOptions())
        removed = json.loads(doc.metadata["clean_furniture_lines"])
        print(f"{path}: {len(raw_page_lines(xhtml))} pages, {len(removed)} furniture lines "
              f"removed, {doc.metadata['clean_leaders_removed']} leaders, "
              f"{doc.metadata['clean_hyphenations_joined']} hyphenations")
        for page, line in removed:
            print(f"    p{page}: {line}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--heldout", type=pathlib.Path, default=DEFAULT_HELDOUT,
                        help="folder with the held-out PDFs of benchmarks/data/heldout-pdfs.csv")
    parser.add_argument("--show", action="store_true", help="print every removed line")
    parser.add_argument("--pdf", type=pathlib.Path, action="append", default=[],
                        help="list what cleaning removes from this PDF (no truth needed)")
    args = parser.parse_args(argv)
    if args.pdf:
        return audit(args.pdf)
    sets = [("tuning (shared/corpus/headers_truth.json)", score_corpus(args.corpus))]
    if heldout_files_present(args.heldout):
        sets.append((f"held-out (benchmarks/data/heldout_truth.json, {args.heldout})",
                     score_heldout(args.heldout)))
    else:
        print(f"held-out PDFs not found (or not as the manifest says) in {args.heldout}: "
              "only the tuning set is scored\n")
    for title, scores in sets:
        print(title)
        print_scores(scores, args.show)
        print()
    return 0


def print_scores(scores: list[FileScore], show: bool = False) -> None:
    width = max(42, *(min(len(s.path), 60) for s in scores))
    print(f"{'file':{width}} {'truth':>5} {'recall(line)':>12} {'recall(strict)':>14} "
          f"{'body words':>10} {'retention':>9}")
    for s in scores:
        print(f"{s.path[:60]:{width}} {s.truth_lines:5d} {s.recall_line:12.4f} "
              f"{s.recall_strict:14.4f} {s.body_words:10d} {s.retention:9.4f}")
        if show:
            for page, line in s.removed_lines:
                print(f"    removed p{page}: {line}")
    t = totals(scores)
    print(f"{'OVERALL':{width}} {sum(s.truth_lines for s in scores):5d} {t['recall_line']:12.4f} "
          f"{t['recall_strict']:14.4f} {sum(s.body_words for s in scores):10d} "
          f"{t['retention']:9.4f}")


if __name__ == "__main__":
    sys.path.insert(0, str(REPO.parent))
    sys.exit(main())
