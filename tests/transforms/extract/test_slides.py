"""PowerPoint decks (``extract/slides.py``): each slide's title placeholder, read from
the package, becomes a level-1 heading at the head of its slide in Tika's XHTML. On a
package made here (only the parts the reader reads) and XHTML as Tika writes a deck."""

from __future__ import annotations

import io
import zipfile

from ragbeam.transforms.extract.readers import reader_for
from ragbeam.transforms.extract.slides import (
    PPTX_MEDIA_TYPES,
    PptxReader,
    slide_titles,
    with_title_headings,
)
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml
from ragbeam.transforms.types import BlockKind, FetchedFile, SourceFile

NS = ('xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
      'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
      'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')
PPTX = next(iter(sorted(PPTX_MEDIA_TYPES)))


def _shape(paragraphs: list[str], placeholder: str | None) -> str:
    ph = f'<p:ph type="{placeholder}"/>' if placeholder else ""
    body = "".join(f"<a:p><a:r><a:t>{p}</a:t></a:r></a:p>" for p in paragraphs)
    return (f"<p:sp><p:nvSpPr><p:cNvPr id='1' name='s'/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr>"
            f"</p:nvSpPr><p:txBody>{body}</p:txBody></p:sp>")


def _deck(slides: list[list[tuple[list[str], str | None]]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        # listed in the deck's order, stored under other numbers (a deck reordered)
        ids = "".join(f'<p:sldId id="{256 + i}" r:id="rId{i + 1}"/>' for i in range(len(slides)))
        z.writestr("ppt/presentation.xml", f"<p:presentation {NS}><p:sldIdLst>{ids}"
                                           "</p:sldIdLst></p:presentation>")
        rels = "".join(
            f'<Relationship Id="rId{i + 1}" Type="slide" '
            f'Target="slides/slide{len(slides) - i}.xml"/>'
            for i in range(len(slides)))
        z.writestr("ppt/_rels/presentation.xml.rels",
                   '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                   f'relationships">{rels}</Relationships>')
        for i, shapes in enumerate(slides):
            tree = "".join(_shape(paragraphs, ph) for paragraphs, ph in shapes)
            z.writestr(f"ppt/slides/slide{len(slides) - i}.xml",
                       f"<p:sld {NS}><p:cSld><p:spTree>{tree}</p:spTree></p:cSld></p:sld>")
    return out.getvalue()


DECK = _deck([
    [(["Harbour cranes", "Annual review"], "ctrTitle"), (["March 2025"], "subTitle")],
    [(["Lifts grew 12 % on the year."], "body"), (["Quarterly lifts"], "title")],
    [(["A slide without a title."], None)],
])


def _xhtml(slides: list[list[str]], notes: str = "") -> str:
    divs = "".join('<div class="slide-content">' + "".join(f"<p>{p}</p>\n" for p in s)
                   + "</div>\n" + notes for s in slides)
    return (f'<html xmlns="http://www.w3.org/1999/xhtml"><head><title></title></head>'
            f"<body>{divs}</body></html>")


def test_each_slides_title_is_read_from_its_placeholder_in_the_decks_order():
    assert slide_titles(DECK) == [["Harbour cranes", "Annual review"], ["Quarterly lifts"], []]
    assert slide_titles(b"not a zip") == []


def test_a_slides_title_becomes_one_heading_at_the_head_of_its_slide():
    # Tika writes the shapes' paragraphs in the slide's shape order, the title's among
    # them, unmarked, and a slide's notes after its div.
    xhtml = _xhtml([["Harbour cranes", "Annual review", "March 2025"],
                    ["Lifts grew 12 % on the year.", "Quarterly lifts"],
                    ["A slide without a title."]], notes="<p>Speaker notes.</p>\n")
    parsed = parse_tika_xhtml(with_title_headings(xhtml, slide_titles(DECK)))
    blocks = [(b.kind, b.level, b.text) for b in parsed.blocks if b.text.strip()]
    assert (BlockKind.HEADING, 1, "Harbour cranes Annual review") in blocks
    assert (BlockKind.HEADING, 1, "Quarterly lifts") in blocks
    headings = [b for b in blocks if b[0] is BlockKind.HEADING]
    assert len(headings) == 2
    texts = [b[2] for b in blocks]
    # the title leads its slide, above the text printed before it
    assert texts.index("Quarterly lifts") < texts.index("Lifts grew 12 % on the year.")
    assert "Speaker notes." in texts and "A slide without a title." in texts


def test_titles_that_do_not_pair_up_with_the_slides_change_nothing():
    xhtml = _xhtml([["Harbour cranes"], ["Other text"]])
    assert with_title_headings(xhtml, slide_titles(DECK)) == xhtml  # 2 slides, 3 titles
    xhtml = _xhtml([["Harbour cranes"], ["Other text"], ["Third"]])
    # a title Tika did not write as its paragraphs: that slide left as it is
    marked = with_title_headings(xhtml, [["Harbour cranes", "Annual review"], [], ["Third"]])
    assert "<h1>Third</h1>" in marked and "<h1>Harbour" not in marked


def test_the_pptx_reader_claims_decks_and_marks_their_titles():
    assert isinstance(reader_for("deck.pptx", PPTX, {}), PptxReader)
    fetched = FetchedFile(SourceFile("/decks/deck.pptx", "deck", len(DECK)), DECK, "h")
    xhtml = _xhtml([["Harbour cranes", "Annual review"], ["Quarterly lifts", "Lifts grew."],
                    ["A slide without a title."]])
    parsed = PptxReader().structure(fetched, xhtml, PPTX, {})
    assert [b.text for b in parsed.blocks if b.kind is BlockKind.HEADING] == [
        "Harbour cranes Annual review", "Quarterly lifts"]
