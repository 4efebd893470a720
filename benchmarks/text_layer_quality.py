"""Precision and recall of "poor OCR layer" (``garbage.unknown_word_share`` at
``ocr.POOR_WORD_SHARE``, on scanned pages only: ``layout.scanned_pages``).

    python benchmarks/text_layer_quality.py [--fetch] [--data DIR] [--cache FILE]
                                             [--born-digital DIR ...]

Labelled pages (``benchmarks/data/text-layer-quality.csv``: each file's repository,
commit, path and SHA-256; ``--fetch`` copies them from /work/.mirror or downloads them
from raw.githubusercontent.com into ``DIR/ocr-quality/pdf``; not in the repository):

* **scans**: real scanned PDFs with an OCR text layer, each page labelled by reading
  its layer: ``poor`` (most words garbled), ``good``, or ``fair`` (prose right,
  formulas garbled: OCR would not read them better);
* **newspaper**: real OCR text of two historic newspaper pages (Chronicling America's
  test data), in pieces of ``PIECE`` characters, labelled the same way;
* **synthetic** (made here, say so): real page images (scans without a layer, the
  scans above, pages of the shared corpus's PDFs) read by Tesseract at 300 dpi (a
  good layer) and at 100, 85 and 75 dpi (poorer ones), labelled by their bag-of-words
  accuracy against the 300-dpi reading (under 0.5 poor, 0.9 and over good);
* **nzz, held-out** (scored once, after the threshold was chosen): the Neue Zürcher
  Zeitung's black-letter front pages, one a year 1780-1947 (impresso's ground truth,
  ``benchmarks/data/text-layer-quality-nzz.csv``): each scanned PDF's own text layer
  (ABBYY FineReader XIX, 2005), labelled by its word accuracy against the page's
  hand-corrected text like the synthetic layers, and that corrected text (good);
  German, so Tesseract's ``deu`` list judges it;
* **born-digital**: every page of the PDFs in ``--born-digital`` folders (many
  languages; default: the shared corpus and the held-out sets under ``DIR``), all
  ``good``: none may go to OCR.

Prints, per set, the pages measured (enough words, a language with a word list), the
pages whose score reaches the threshold and, of those, the scans (what OCR reads);
then precision and recall of ``poor`` against ``good`` over the labelled sets, for
the threshold in use and others around it, and the labelled pages it gets wrong.
"""

from __future__ import annotations

import argparse
import collections
import csv
import hashlib
import html
import json
import pathlib
import subprocess
import sys
import tempfile
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO.parent))

from ragbeam.transforms import garbage  # noqa: E402
from ragbeam.transforms.extract import ocr  # noqa: E402
from ragbeam.transforms.extract.layout import MIN_SCAN_IMAGE_SHARE  # noqa: E402

MANIFEST = REPO / "benchmarks" / "data" / "text-layer-quality.csv"
# Held-out (scored once, after the threshold was chosen): the NZZ's black-letter front
# pages, 1780-1947, one a year: the text layers of the scanned PDFs (ABBYY FineReader
# XIX, 2005; as PDFlib TET read them) and their hand-corrected ground truth (PAGE XML).
NZZ_MANIFEST = REPO / "benchmarks" / "data" / "text-layer-quality-nzz.csv"
DEFAULT_DATA = REPO.parent / "data"
CORPUS = REPO.parent / "shared" / "corpus"
PIECE = 3000
BORN_DIGITAL = ("issue39-a-pdfs", "issue39-b-pdfs", "issue29-r5-pdfs", "issue29-r4-pdfs",
                "issue29-r3final-pdfs", "issue29-r3dev-pdfs", "issue29-final-pdfs",
                "issue29-closing-pdfs", "heldout-closing-pdfs", "heldout-pdfs",
                "heldout-final-pdfs", "heldout-dev-pdfs", "issue41-unseen/pdf",
                "unseen-mixed/pdf", "large-docs/pdf")
# Page images read at low resolution for synthetic layers: manifest files (and pages)
# and shared-corpus PDFs.
SYNTHETIC_IMAGES = {"pdfcpu-HL1396.pdf": (1, 3), "markitdown-medrpt.pdf": (1,),
                    "markitdown-minutes.pdf": (1,), "pdfcpu-jphysiol.pdf": (2, 4),
                    "kreuzberg-scanned.pdf": (1,), "pdfpig-SmallCropbox.pdf": (1,),
                    "pikepdf-sandwich.pdf": (1,),
                    "corpus:langchain-primer-icaens2023.pdf": (2,),
                    "corpus:dpr-multi-column.pdf": (1,), "corpus:llncsdoc.pdf": (2,)}
SYNTHETIC_DPI = (300, 100, 85, 75)
THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


def manifest(path: pathlib.Path = MANIFEST) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def fetch(folder: pathlib.Path, rows: list[dict[str, str]]) -> None:
    """Each manifest file at its commit, checked against its SHA-256."""
    folder.mkdir(parents=True, exist_ok=True)
    for row in {r["name"]: r for r in rows}.values():
        target = folder / row["name"]
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == row["sha256"]:
            continue
        mirror = pathlib.Path("/work/.mirror") / row["repo"].replace("/", "+") / "repo"
        try:
            data = subprocess.run(["git", f"--git-dir={mirror}", "show",
                                   f"{row['commit']}:{row['source_path']}"],
                                  capture_output=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            url = (f"https://raw.githubusercontent.com/{row['repo']}/{row['commit']}/"
                   f"{row['source_path']}")
            with urllib.request.urlopen(url, timeout=60) as response:
                data = response.read()
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            raise SystemExit(f"{row['name']}: SHA-256 differs from the manifest")
        target.write_bytes(data)


class Pages:
    """Each PDF's page texts as OCR's decision sees them (Tika, OCR off), cached."""

    def __init__(self, cache: pathlib.Path) -> None:
        self.cache = cache
        self.texts: dict[str, list[str] | None] = (
            json.loads(cache.read_text()) if cache.exists() else {})
        self._tika = None

    def of(self, path: pathlib.Path) -> list[str]:
        key = str(path.resolve())
        if key not in self.texts:
            from ragbeam.transforms.extract.backends import EmbeddedTika, OcrSettings

            self._tika = self._tika or EmbeddedTika(ocr=OcrSettings(mode="off"))
            try:
                xhtml, _ = self._tika.extract(path.read_bytes(), path.name)
                self.texts[key] = [html.unescape(t) for t in ocr.page_texts(xhtml)]
            except Exception:
                self.texts[key] = None
            self.cache.write_text(json.dumps(self.texts))
        return self.texts[key] or []


def image_shares(path: pathlib.Path) -> list[float]:
    import pypdfium2 as pdfium

    from ragbeam.transforms.extract.layout import _image_share

    document = pdfium.PdfDocument(path.read_bytes())
    try:
        shares = []
        for page in document:
            width, height = page.get_size()
            shares.append(_image_share(pdfium.raw, page, width * height))
            page.close()
        return shares
    finally:
        document.close()


def tesseract_text(pdf: pathlib.Path, page: int, dpi: int, cache: pathlib.Path) -> str:
    """Tesseract's (eng) reading of a page rendered at ``dpi``, cached."""
    out = cache / f"{pdf.stem}-p{page}-{dpi}.txt"
    if not out.exists():
        with tempfile.TemporaryDirectory() as work:
            subprocess.run(["pdftoppm", "-f", str(page), "-l", str(page), "-r", str(dpi), "-gray",
                            "-singlefile", str(pdf), f"{work}/page"], check=True)
            done = subprocess.run(["tesseract", f"{work}/page.pgm", "-", "--dpi", str(dpi),
                                   "-l", "eng"], capture_output=True, check=True,
                                  env={"OMP_THREAD_LIMIT": "1", "PATH": "/usr/bin:/bin"})
        out.write_text(done.stdout.decode("utf-8", "replace"))
    return out.read_text()


def word_accuracy(reading: str, reference: str) -> float:
    """The share of the reference's words the reading has (as a bag of words)."""
    def bag(text: str) -> collections.Counter:
        return collections.Counter(t.strip(garbage._EDGE).lower() for t in text.split()
                                   if any(c.isalpha() for c in t))
    ref, got = bag(reference), bag(reading)
    return sum(min(n, got[w]) for w, n in ref.items()) / max(sum(ref.values()), 1)


def nzz_items(folder: pathlib.Path) -> list[tuple[str, str, str, float | None, bool]]:
    """Each NZZ page's OCR layer (labelled by its word accuracy against the ground
    truth) and its ground truth (a perfect layer: good)."""
    from lxml import etree

    found = []
    for layer in sorted(folder.glob("ABBYY_FineReader_XIX-*.xml")):
        truth = folder / layer.name.replace("ABBYY_FineReader_XIX-", "NZZ_groundtruth-")
        words = [el.text or "" for el in etree.parse(str(layer)).iter("{*}Text")]
        ocr_text = " ".join(words)
        lines = []
        for line in etree.parse(str(truth)).iter("{*}TextLine"):
            unicode = line.find("{*}TextEquiv/{*}Unicode")
            if unicode is not None and unicode.text:
                lines.append(unicode.text)
        truth_text = "\n".join(lines)
        accuracy = word_accuracy(ocr_text, truth_text)
        label = "good" if accuracy >= 0.9 else "poor" if accuracy < 0.5 else "fair"
        page = layer.name.split("-", 1)[1].removesuffix(".xml")
        found.append(("nzz", f"{page} layer acc {accuracy:.2f}", label, score(ocr_text), True))
        found.append(("nzz", f"{page} ground truth", "good", score(truth_text), True))
    return found


def score(text: str) -> float | None:
    return garbage.unknown_word_share(text, ocr.pack_words)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=pathlib.Path, default=DEFAULT_DATA)
    parser.add_argument("--cache", type=pathlib.Path)
    parser.add_argument("--fetch", action="store_true")
    parser.add_argument("--born-digital", type=pathlib.Path, nargs="*")
    args = parser.parse_args(argv)
    folder = args.data / "ocr-quality" / "pdf"
    nzz_folder = args.data / "ocr-quality" / "nzz"
    if args.fetch:
        fetch(folder, manifest())
        fetch(nzz_folder, manifest(NZZ_MANIFEST))
    pages = Pages(args.cache or args.data / "ocr-quality" / "pages.json")
    synth_cache = args.data / "ocr-quality" / "synth"
    synth_cache.mkdir(parents=True, exist_ok=True)
    # (set, item, label, score, is a scan)
    items: list[tuple[str, str, str, float | None, bool]] = []
    for row in manifest():
        if row["set"] == "synthetic":
            continue
        path = folder / row["name"]
        if path.suffix == ".txt":
            text = path.read_text(encoding="utf-8")
            texts = [text[i:i + PIECE] for i in range(0, len(text), PIECE)]
            shares = [1.0] * len(texts)  # a scan's OCR text
        else:
            texts, shares = pages.of(path), image_shares(path)
        wanted = (range(1, len(texts) + 1) if row["pages"] == "*"
                  else map(int, row["pages"].split()))
        for page in wanted:
            items.append((row["set"], f"{row['name']}:{page}", row["label"],
                          score(texts[page - 1]), shares[page - 1] >= MIN_SCAN_IMAGE_SHARE))
    for name, page_numbers in SYNTHETIC_IMAGES.items():
        path = CORPUS / "pdf" / name[7:] if name.startswith("corpus:") else folder / name
        for page in page_numbers:
            reference = tesseract_text(path, page, SYNTHETIC_DPI[0], synth_cache)
            for dpi in SYNTHETIC_DPI:
                reading = tesseract_text(path, page, dpi, synth_cache)
                accuracy = word_accuracy(reading, reference)
                label = "good" if accuracy >= 0.9 else "poor" if accuracy < 0.5 else "fair"
                items.append(("synthetic", f"{path.name}:{page}@{dpi}dpi acc {accuracy:.2f}",
                              label, score(reading), True))
    items += nzz_items(nzz_folder)
    folders = args.born_digital if args.born_digital is not None else (
        [CORPUS / "pdf"] + [args.data / name for name in BORN_DIGITAL])
    for born in folders:
        for path in sorted(born.glob("*.pdf")):
            if path.name == "scanned-no-text-layer.pdf":
                continue
            scores = [score(text) for text in pages.of(path)]
            # Image shares only where a page could be sent (PDFium reads are not free).
            shares = (image_shares(path) if any(s is not None and s >= min(THRESHOLDS)
                                                for s in scores) else [])
            for page, s in enumerate(scores, 1):
                scan = page <= len(shares) and shares[page - 1] >= MIN_SCAN_IMAGE_SHARE
                items.append(("born-digital", f"{born.name}/{path.name}:{page}", "good", s, scan))
    threshold = ocr.POOR_WORD_SHARE
    print(f"threshold (ocr.POOR_WORD_SHARE) {threshold}; a page goes to OCR when its score "
          "reaches it and it is a scan")
    print(f"{'set':13} {'label':5} {'pages':>5} {'measured':>8} {'score>=t':>8} "
          f"{'to OCR':>6}  scores of the label (min / median / max)")
    groups = collections.defaultdict(list)
    for item in items:
        groups[(item[0], item[2])].append(item)
    for (kind, label), group in sorted(groups.items()):
        scores = sorted(s for *_, s, _ in group if s is not None)
        flagged = [i for i in group if i[3] is not None and i[3] >= threshold]
        spread = (f"{scores[0]:.2f} / {scores[len(scores) // 2]:.2f} / {scores[-1]:.2f}"
                  if scores else "-")
        print(f"{kind:13} {label:5} {len(group):5d} {len(scores):8d} {len(flagged):8d} "
              f"{sum(i[4] for i in flagged):6d}  {spread}")
    print("\nprecision / recall of 'poor' against 'good' (to OCR = score >= t and a scan)")
    print(f"{'t':>5} " + " ".join(f"{name:>26}" for name in
                                  ("scans+newspaper (real)", "synthetic", "nzz (held-out)",
                                   "born-digital to OCR")))
    for t in sorted({*THRESHOLDS, threshold}):
        cells = []
        for kinds in (("scans", "newspaper"), ("synthetic",), ("nzz",)):
            chosen = [i for i in items if i[0] in kinds and i[2] in ("poor", "good")]
            hit = [i for i in chosen if i[3] is not None and i[3] >= t and i[4]]
            tp = sum(i[2] == "poor" for i in hit)
            poor = sum(i[2] == "poor" for i in chosen)
            cells.append(f"P {tp / len(hit) if hit else 1:.3f} R {tp / poor if poor else 1:.3f}"
                         f" ({tp}/{len(hit)}/{poor})")
        born = [i for i in items if i[0] == "born-digital"]
        sent = sum(1 for i in born if i[3] is not None and i[3] >= t and i[4])
        scored = sum(1 for i in born if i[3] is not None and i[3] >= t)
        cells.append(f"{sent} of {len(born)} ({scored} by score)")
        print(f"{t:5.2f} " + " ".join(f"{c:>26}" for c in cells))
    print("\nlabelled pages on the wrong side of the threshold:")
    for kind, item, label, s, scan in items:
        if kind in ("born-digital", "nzz") or label not in ("poor", "good"):
            continue
        sent = s is not None and s >= threshold and scan
        if sent != (label == "poor"):
            print(f"  {kind:10} {label:5} {'-' if s is None else f'{s:.3f}':>6} {item}")
    wrong = [(label, s, item) for kind, item, label, s, _ in items
             if kind == "nzz" and label in ("poor", "good")
             and (s is not None and s >= threshold) != (label == "poor")]
    print(f"\nnzz (held-out) pages on the wrong side: {len(wrong)}")
    for label, s, item in wrong[:20]:
        print(f"  {label:5} {'-' if s is None else f'{s:.3f}':>6} {item}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
