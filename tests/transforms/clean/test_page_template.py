"""The page-template model (``clean/furniture/template.py``) on PDFs made here, read by
real Tika and real PDFium and cleaned as a run cleans them: each kind of template the
model finds, and the user's text it must keep."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from dataclasses import dataclass

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.types import BlockKind, Document, FetchedFile, SourceFile

from conftest import REPO

WORDS = ("harbour", "crane", "quay", "berth", "pilot", "tide", "vessel", "cargo", "dredge",
         "buoy", "anchor", "ferry", "lock", "pier", "tug", "wharf", "dock", "mooring")


def sentence(page: int, line: int) -> str:
    """A body line no other line repeats."""
    picked = [WORDS[(page * 7 + line * 3 + k * 5) % len(WORDS)] for k in range(6)]
    return (f"On day {page * 40 + line} the {picked[0]} team checked the {picked[1]} and the "
            f"{picked[2]} near the {picked[3]} {picked[4]}.")


@dataclass(frozen=True)
class Text:
    """One line drawn on a page: PDF user space (origin bottom-left), font size, bold,
    rotated 90 degrees (up the page)."""

    text: str
    x: float
    y: float
    size: float = 11.0
    bold: bool = False
    rotated: bool = False


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def make_pdf(pages: list[list[Text]], links: list[list[str]] | None = None,
             size: tuple[int, int] = (612, 792)) -> bytes:
    """A PDF of Helvetica (and Helvetica-Bold) lines; ``links``: per page, link targets
    whose annotations sit in the page's footer."""
    spec = importlib.util.spec_from_file_location(
        "furniture_generated", REPO / "benchmarks" / "furniture_generated.py")
    generator = sys.modules.get(spec.name)
    if generator is None:
        generator = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = generator
        spec.loader.exec_module(generator)
    objects = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                  b"/Encoding /WinAnsiEncoding >>",
               4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold "
                  b"/Encoding /WinAnsiEncoding >>"}
    kids = []
    for p, lines in enumerate(pages):
        ops = []
        for line in lines:
            font = b"/F2" if line.bold else b"/F1"
            matrix = (b"0 1 -1 0 %.1f %.1f Tm" if line.rotated else b"1 0 0 1 %.1f %.1f Tm") % (
                line.x, line.y)
            ops.append(b"BT %s %.1f Tf %s (%s) Tj ET" % (font, line.size, matrix,
                                                         _escape(line.text)))
        stream = b"\n".join(ops)
        number = max(objects) + 1
        annots = b""
        for k, uri in enumerate((links or [[]] * len(pages))[p] if links else []):
            objects[number + 2 + k] = (b"<< /Type /Annot /Subtype /Link /Rect [%d 20 %d 30] "
                                       b"/Border [0 0 0] /A << /S /URI /URI (%s) >> >>"
                                       % (72 + 100 * k, 160 + 100 * k, _escape(uri)))
        if links and links[p]:
            annots = b" /Annots [" + b" ".join(b"%d 0 R" % (number + 2 + k)
                                                for k in range(len(links[p]))) + b"]"
        objects[number] = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources "
                           b"<< /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R%s >>"
                           % (*size, number + 1, annots))
        objects[number + 1] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        kids.append(number)
    return generator.serialise_pdf(objects, kids)


def cleaned(data: bytes) -> Document:
    xhtml, metadata = EmbeddedTika().extract(data, "t.pdf")
    fetched = FetchedFile(SourceFile("t.pdf", "t", len(data)), data,
                          hashlib.sha256(data).hexdigest())
    return clean_document(build_extracted_document(fetched, xhtml, metadata), CleanOptions())


def body(page: int, top: float = 700.0, lines: int = 14, x: float = 72.0) -> list[Text]:
    return [Text(sentence(page, k), x, top - 15 * k) for k in range(lines)]


def page_text(doc: Document, page: int) -> str:
    return "\n".join(doc.text[s.start:s.end] for s in doc.spans if s.page == page)


def headings(doc: Document) -> list[str]:
    return [doc.text[s.start:s.end] for s in doc.spans if s.kind is BlockKind.HEADING]


def test_a_question_set_like_a_heading_atop_each_page_stays_and_heads_its_text():
    """Eight pages, each under a 14 pt bold ``Question N`` whose number follows the
    pages: the user's headings, not a running head; the page numbers go."""
    pages = [[Text(f"Question {p + 1}", 72, 740, 14, bold=True), *body(p),
              Text(str(p + 1), 300, 40, 9)] for p in range(8)]
    doc = cleaned(make_pdf(pages))
    assert headings(doc) == [f"Question {p + 1}" for p in range(8)]
    for p in range(8):
        text = page_text(doc, p + 1)
        assert text.startswith(f"Question {p + 1}") and sentence(p, 0) in text
    assert doc.metadata["clean_furniture_lines_removed"] == "8"  # the page numbers


def test_recto_heads_that_change_with_the_chapter_and_chapter_tabs_go():
    """A handbook set two-sided: verso pages carry its title at the top left, recto
    pages the current chapter's title with the page number set tight against it
    (``Harbour Handbook5 | Preparation``), and a tab with the chapter's number at the
    outer edge. No chapter's head is on half the recto pages, nor on pages in a row."""
    chapters = ["Preparation"] * 6 + ["Operations"] * 6 + ["Review"] * 6
    pages = []
    for p, chapter in enumerate(chapters):
        number = p + 1
        recto = p % 2 == 0
        head = (Text(f"Harbour Handbook{number} | {chapter}", 330, 750, 9) if recto
                else Text(f"{number} | The Harbour Handbook", 72, 750, 9))
        tab_y = 600 - 40 * (p // 6)
        tab = Text(str(p // 6 + 1), 592 if recto else 8, tab_y, 12, bold=True)
        pages.append([head, *body(p), tab])
    doc = cleaned(make_pdf(pages))
    removed = json.loads(doc.metadata["clean_furniture_lines"])
    for p in range(len(chapters)):
        text = page_text(doc, p + 1)
        assert "Harbour Handbook" not in text, (p, text[:80])
        assert sentence(p, 0) in text and sentence(p, 13) in text
        assert [p + 1, str(p // 6 + 1)] in removed  # the tab
    assert all(chapter not in doc.text for chapter in set(chapters))


def test_a_statements_repeated_head_block_goes_and_its_title_stays():
    """A quarterly report's notes: the first page titled in 12 pt, the next pages under
    the same block repeated in the body's type (company, ``… (Continued)``,
    ``(Unaudited)``)."""
    title = "NOTES TO CONDENSED CONSOLIDATED FINANCIAL STATEMENTS"
    first = [Text("HARBOUR HOLDINGS INC.", 200, 750, 10, bold=True),
             Text(title, 120, 734, 12, bold=True), Text("(Unaudited)", 270, 720, 10),
             *body(0, top=690), Text("1", 300, 40, 9)]
    pages = [first] + [[Text("HARBOUR HOLDINGS INC.", 200, 750, 10, bold=True),
                        Text(f"{title} (Continued)", 110, 736, 10, bold=True),
                        Text("(Unaudited)", 270, 722, 10), *body(p, top=690),
                        Text(str(p + 1), 300, 40, 9)] for p in range(1, 15)]
    doc = cleaned(make_pdf(pages))
    assert "(Continued)" not in doc.text and "HARBOUR HOLDINGS" not in doc.text
    assert doc.text.startswith(title) and doc.text.count(title) == 1
    assert all(sentence(p, 0) in page_text(doc, p + 1) for p in range(15))


def test_links_the_page_template_prints_on_every_page_go_and_a_cited_link_stays():
    support, cited = "https://harbour.example/support", "https://harbour.example/tide-tables"
    pages = [[*body(p), Text(f"Harbour data sheet page {p + 1}", 72, 40, 8)] for p in range(6)]
    links = [[support] + ([cited] if p == 2 else []) for p in range(6)]
    doc = cleaned(make_pdf(pages, links))
    assert support not in doc.text
    assert cited in doc.text
