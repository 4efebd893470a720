"""Precision and recall of the garbage-text score (``transforms/garbage.py``).

    python benchmarks/garbage_text.py [--set DIR] [--corpus DIR]

Real text, which must never be called garbage:

* the first article of the UDHR in every language of the first-day set
  (``benchmarks/first_day.py``: 482 languages, in Latin, Cyrillic, Greek, Arabic,
  Hebrew, Indic, CJK and other scripts);
* Wikipedia pages in Chinese, German, Hebrew and Amharic (first-day set), and every
  document of the shared corpus, as Tika extracts them (real documents: PDFs,
  office files, e-mail, CSV, logs, code, Markdown in English, Chinese, Hebrew).

Garbage, which must be:

* binary files as Tika reads a binary it takes for text: the shared corpus's PDFs,
  office files, e-books and pictures behind a line of HTML (the download artefact of
  issue 41, Tika's own text of each), and every binary file of the corpus decoded
  as windows-1252, ISO-8859-1 and UTF-8;
* mojibake: each real text with a fifth or more of its characters outside ASCII,
  encoded as its writer might have (UTF-8, GBK, Big5, Shift-JIS, EUC-JP, EUC-KR,
  windows-1251, KOI8-R) and decoded as another (windows-1252, ISO-8859-1, GBK).

Prints, per kind, how many texts the score calls garbage, and precision and
recall over all of them, for the thresholds in use and a few around them.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO.parent))

from ragbeam.transforms import garbage  # noqa: E402

DEFAULT_SET = REPO.parent / "data" / "first-day"
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
BINARY_SUFFIXES = {".pdf", ".docx", ".xlsx", ".pptx", ".epub", ".odt", ".msg", ".one",
                   ".png", ".jpg", ".jpeg"}
# (written as, read as): the mix-ups of encodings a user's files show.
MIXUPS = {"utf-8": ("cp1252", "latin-1", "gbk"), "gbk": ("latin-1", "cp1252"),
          "big5": ("cp1252",), "shift_jis": ("cp1252",), "euc-jp": ("latin-1",),
          "euc-kr": ("cp1252",), "cp1251": ("cp1252",), "koi8-r": ("latin-1",)}


def udhr_articles(path: pathlib.Path) -> dict[str, str]:
    """Language name → its first article (the file: a name line, the text, a blank)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found = {}
    for i in range(1, len(lines) - 1):
        if lines[i].strip() and not lines[i - 1].strip() and lines[i + 1].strip() \
                and not lines[i].startswith(("(", "-", "©", "This ")):
            found[lines[i].strip()] = lines[i + 1].rstrip("\ufffd").strip()
    return found


def tika_texts(paths: list[pathlib.Path]) -> dict[str, str]:
    """Each file's text as ragbeam's extraction parses Tika's XHTML."""
    from ragbeam.transforms.extract.backends import EmbeddedTika
    from ragbeam.transforms.extract.xhtml import parse_tika_xhtml

    tika = EmbeddedTika()
    texts = {}
    for path in paths:
        try:
            xhtml, _ = tika.extract(path.read_bytes(), path.name)
        except Exception:
            continue
        text = parse_tika_xhtml(xhtml).raw_text
        if text.strip():
            texts[path.name] = text
    return texts


def labelled(set_dir: pathlib.Path, corpus: pathlib.Path) -> list[tuple[str, bool, str]]:
    """``(kind, is_garbage, text)`` for every text of the benchmark."""
    from ragbeam.transforms.extract.backends import EmbeddedTika
    from ragbeam.transforms.extract.xhtml import parse_tika_xhtml

    rows: list[tuple[str, bool, str]] = []
    articles = udhr_articles(set_dir / "text" / "udhr-first-article.txt")
    rows += [("real: UDHR article", False, text) for text in articles.values()]
    pages = sorted((set_dir / "text").glob("*.html"))
    corpus_files = sorted(p for p in corpus.rglob("*") if p.is_file() and p.parent.name
                          not in ("LICENSES", "bad") and p.suffix != ".json"
                          and p.name not in ("MANIFEST.csv", "README.md"))
    documents = tika_texts(pages + corpus_files)
    rows += [("real: document", False, text) for text in documents.values()]
    tika = EmbeddedTika()
    for path in corpus_files:
        if path.suffix.lower() not in BINARY_SUFFIXES:
            continue
        data = path.read_bytes()
        try:  # the download artefact: Tika sees HTML and decodes the bytes as text
            xhtml, _ = tika.extract(b"<html><head></head></html>\n" + data, path.name)
            rows.append(("garbage: binary behind HTML (Tika)", True,
                         parse_tika_xhtml(xhtml).raw_text))
        except Exception:
            pass
        for encoding in ("cp1252", "latin-1", "utf-8"):
            rows.append((f"garbage: binary as {encoding}", True,
                         data[:200_000].decode(encoding, errors="replace")))
    for text in [*articles.values(), *documents.values()]:
        if sum(not c.isascii() for c in text) < 0.2 * len(text):
            continue
        for written, reads in MIXUPS.items():
            try:
                data = text.encode(written)
            except UnicodeEncodeError:
                continue
            for read in reads:
                wrong = data.decode(read, errors="replace")
                if wrong != text:
                    rows.append((f"garbage: {written} read as {read}", True, wrong))
    return [(kind, truth, text) for kind, truth, text in rows if text.strip()]


def score(rows: list[tuple[str, bool, str]]) -> tuple[float, float, dict]:
    by_kind: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    tp = fp = fn = 0
    for kind, truth, text in rows:
        called = garbage.is_garbage(text)
        by_kind[kind][0] += called
        by_kind[kind][1] += 1
        tp += called and truth
        fp += called and not truth
        fn += truth and not called
    precision = tp / (tp + fp) if tp + fp else 1.0
    return precision, tp / (tp + fn), by_kind


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=pathlib.Path, default=DEFAULT_SET)
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    rows = labelled(args.set, args.corpus)
    precision, recall, by_kind = score(rows)
    print(f"{len(rows)} texts; WINDOW_MESS {garbage.WINDOW_MESS}, GARBAGE_SHARE "
          f"{garbage.GARBAGE_SHARE}: precision {precision:.3f}, recall {recall:.3f}")
    for kind, (called, total) in sorted(by_kind.items()):
        print(f"  {kind:42s} called garbage {called:4d} of {total:4d}")
    for mess in (1.0, 1.5, 2.0):
        for share in (0.3, 0.5, 0.7):
            garbage.WINDOW_MESS, garbage.GARBAGE_SHARE = mess, share
            p, r, _ = score(rows)
            print(f"  window mess {mess}, share {share}: precision {p:.3f}, recall {r:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
