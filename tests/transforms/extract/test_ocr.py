"""The pure parts of page-by-page OCR (``transforms/extract/ocr.py``): which pages,
where their text goes, what the metadata says. Tesseract itself runs in
``test_ocr_and_fallback.py``."""

from __future__ import annotations

from ragbeam.transforms.extract.ocr import (
    WHOLE_IMAGE,
    PageText,
    merge_ocr,
    pages_needing_ocr,
    pending_pages,
)
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml

THREE_PAGES = ('<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>'
               '<div class="page"><p>First page text.</p></div>'
               '<div class="page"><p /></div>'
               '<div class="page"><p>Third page text.</p></div>'
               "<ul><li>an outline entry</li></ul></body></html>")


def _pdf_metadata(chars: list[int], unmapped: list[int] | None = None) -> dict:
    metadata = {"Content-Type": ["application/pdf"], "xmpTPg:NPages": [str(len(chars))],
                "pdf:charsPerPage": [str(c) for c in chars]}
    if unmapped is not None:
        metadata["pdf:unmappedUnicodeCharsPerPage"] = [str(u) for u in unmapped]
    return metadata


def test_pages_needing_ocr_follow_tikas_auto_test_and_the_mode():
    metadata = _pdf_metadata([1200, 0, 9, 11, 800], [0, 0, 0, 0, 40])
    assert pages_needing_ocr(metadata, "auto") == [2, 3, 5]
    assert pages_needing_ocr(metadata, "only") == [1, 2, 3, 4, 5]
    assert pages_needing_ocr(metadata, "off") == []
    assert pages_needing_ocr({**metadata, "pdf:encrypted": ["true"]}, "auto") == []
    assert pages_needing_ocr({"Content-Type": ["image/png"]}, "auto") == [WHOLE_IMAGE]
    assert pages_needing_ocr({"Content-Type": ["text/plain"]}, "only") == []
    assert pending_pages({"ocr_pending_pages": ["2,3,5"]}) == [2, 3, 5]
    assert pending_pages({}) is None


def test_ocr_text_goes_into_its_own_page_and_keeps_its_page_number():
    merged = merge_ocr(THREE_PAGES, [PageText(2, text="Scanned second page.\n")],
                       replace_text_layer=False)
    parsed = parse_tika_xhtml(merged)
    assert [(b.page, b.text.strip()) for b in parsed.blocks] == [
        (1, "First page text."), (2, "Scanned second page."), (3, "Third page text."),
        (None, "an outline entry")]
    assert parsed.title == "t" and merged.count('<div class="ocr">') == 1


def test_only_mode_replaces_the_text_layer_and_pages_without_text_change_nothing():
    merged = merge_ocr(THREE_PAGES, [PageText(1, text="OCR one"), PageText(2, timed_out=True),
                                     PageText(3, text="OCR three")], replace_text_layer=True)
    parsed = parse_tika_xhtml(merged)
    assert [(b.page, b.text.strip()) for b in parsed.blocks] == [
        (1, "OCR one"), (3, "OCR three"), (None, "an outline entry")]
    unchanged = merge_ocr(THREE_PAGES, [PageText(2, problem="tesseract failed")], False)
    assert parse_tika_xhtml(unchanged).raw_text == parse_tika_xhtml(THREE_PAGES).raw_text


def test_an_images_text_goes_into_the_body_and_control_characters_are_dropped():
    empty_image = ('<html xmlns="http://www.w3.org/1999/xhtml"><head/><body /></html>')
    merged = merge_ocr(empty_image, [PageText(WHOLE_IMAGE, text="Invoice\x0c 42\x00")], False)
    assert parse_tika_xhtml(merged).raw_text == "Invoice 42"
    assert parse_tika_xhtml(merge_ocr("", [PageText(WHOLE_IMAGE, text="x")], False)
                            ).raw_text == "x"
