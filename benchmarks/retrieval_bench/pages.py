"""PDF page texts and the attribution of any text to the pages it lies on.

One method for every pipeline, ragbeam included: a chunk is placed on pages by
the words it shares with each page's text as PDFium reads it (pypdfium2),
never by a pipeline's own page metadata, so no pipeline is favoured by the way
it reports pages (or penalised for reporting none).

* **Normal form** (``words``): NFKC, case folded; every run of letters or
  digits is a word, everything else (punctuation, table rules, Markdown marks,
  whitespace, hyphenation line breaks) separates words; each CJK character is
  a word of its own. Extractors differ in spacing, ligatures, line order inside
  a line and Markdown decoration; they agree on these words.
* **Shingles**: word 3-grams. A shingle found on more than ``COMMON_PAGES``
  pages of the document (running heads, "in millions", a table's column
  header repeated on every page) says nothing about where a chunk lies and is
  not counted.
* **Rule** (``PageIndex.pages_of``): page *p* holds the chunk when it has at
  least ``MIN_SHARED`` of the chunk's distinctive shingles, at least
  ``MIN_SHARE`` of the count of the page that has most, and either is in the
  unbroken run of such pages around that best page (text runs on from page to
  page) or holds nearly as many (``SAME_TEXT_SHARE``: the same text printed
  twice). A chunk across a page break lies on both pages when each holds a fair
  part of it; a chunk that only runs a line onto the next page lies on its main
  page only; a contents page's chunk lies on the contents page, not on the pages
  whose headings it lists; a chunk of furniture alone lies on no page.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

SHINGLE = 3
COMMON_PAGES = 3
MIN_SHARED = 3
MIN_SHARE = 0.2
SAME_TEXT_SHARE = 0.8

_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def words(text: str) -> list[str]:
    """The normal form: letters-or-digits runs, each CJK character a word of its own."""
    text = unicodedata.normalize("NFKC", text).casefold()
    out: list[str] = []
    for run in _WORD.findall(text):
        if _CJK.search(run):
            buffer = ""
            for ch in run:
                if _CJK.match(ch):
                    if buffer:
                        out.append(buffer)
                        buffer = ""
                    out.append(ch)
                else:
                    buffer += ch
            if buffer:
                out.append(buffer)
        else:
            out.append(run)
    return out


def shingles(text: str, n: int = SHINGLE) -> set[tuple[str, ...]]:
    w = words(text)
    if len(w) < n:
        return {tuple(w)} if w else set()
    return {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}


def pdf_page_texts(path: str | pathlib.Path) -> list[str]:
    """Each page's text as PDFium reads it (page 1 first)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        texts = []
        for page in pdf:
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return texts
    finally:
        pdf.close()


def cached_page_texts(path: pathlib.Path, cache_dir: pathlib.Path) -> list[str]:
    """``pdf_page_texts`` kept on disk by the PDF's SHA-256 (a 100-page filing takes
    seconds to read; every run and every pipeline needs it)."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    cached = cache_dir / f"{digest}.json"
    if cached.is_file():
        return json.loads(cached.read_text(encoding="utf-8"))
    texts = pdf_page_texts(path)
    cache_dir.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    return texts


class PageIndex:
    """The pages of one document, indexed by their distinctive shingles."""

    def __init__(self, page_texts: Sequence[str]) -> None:
        self.page_count = len(page_texts)
        where: dict[tuple[str, ...], set[int]] = defaultdict(set)
        for number, text in enumerate(page_texts, 1):
            for s in shingles(text):
                where[s].add(number)
        self._where = {s: pages for s, pages in where.items() if len(pages) <= COMMON_PAGES}

    def page_counts(self, text: str) -> Counter[int]:
        counts: Counter[int] = Counter()
        for s in shingles(text):
            for page in self._where.get(s, ()):
                counts[page] += 1
        return counts

    def pages_of(self, text: str) -> frozenset[int]:
        """The pages ``text`` lies on by the rule above (1-based; empty when none)."""
        counts = self.page_counts(text)
        if not counts:
            return frozenset()
        best = max(counts.values())
        held = {p for p, c in counts.items() if c >= MIN_SHARED and c >= MIN_SHARE * best}
        if not held:
            return frozenset()
        top = min(p for p in held if counts[p] == best)
        run = {top}
        for step in (-1, 1):
            p = top + step
            while p in held:
                run.add(p)
                p += step
        return frozenset(run | {p for p in held if counts[p] >= SAME_TEXT_SHARE * best})

    def best_pages(self, text: str, share: float = 0.5) -> tuple[frozenset[int], float]:
        """For mapping an answer or evidence passage: the pages holding at least
        ``share`` of the best page's count, and the best page's share of the passage's
        shingles (how much of it was found there, 0..1)."""
        all_shingles = shingles(text)
        counts = self.page_counts(text)
        if not counts or not all_shingles:
            return frozenset(), 0.0
        best = max(counts.values())
        return (frozenset(p for p, c in counts.items() if c >= share * best),
                best / len(all_shingles))


def find_all(needle_words: Sequence[str], page_words: Iterable[Sequence[str]]) -> list[int]:
    """1-based numbers of the pages whose word sequence contains ``needle_words`` in a row."""
    n = len(needle_words)
    found = []
    for number, w in enumerate(page_words, 1):
        if n and any(list(w[i:i + n]) == list(needle_words) for i in range(len(w) - n + 1)):
            found.append(number)
    return found
