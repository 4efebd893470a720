"""The pure parts of page-by-page OCR (``transforms/extract/ocr.py``): which pages,
where their text goes, what the metadata says. Tesseract itself runs in
``test_ocr_and_fallback.py``."""

from __future__ import annotations

import pytest
from made_documents import HARBOUR, HARBOUR_POOR

from ragbeam.transforms.extract import ocr
from ragbeam.transforms.extract.ocr import (
    POOR_LAYER_REASON,
    POOR_WORD_SHARE,
    WHOLE_IMAGE,
    PageText,
    TextLayer,
    merge_ocr,
    ocr_candidates,
    pack_words,
    page_texts,
    pages_needing_ocr,
    pending_pages,
    text_layer_problem,
    text_layers,
)
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml
from ragbeam.transforms.garbage import unknown_word_share

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


def test_only_pages_without_a_usable_text_layer_are_ocrd_and_the_mode_decides():
    # Page 5 has 40 unmapped glyphs of 800 (math, ligatures: Tika's AUTO test OCR'd
    # it, and the page was indexed twice); page 6 has 500 of 800: mostly unreadable.
    metadata = _pdf_metadata([1200, 0, 9, 11, 800, 800], [0, 0, 0, 0, 40, 500])
    assert pages_needing_ocr(metadata, "auto") == [2, 3, 6]
    assert ocr_candidates(metadata, "auto") == {
        2: "no text layer (0 usable characters)", 3: "no text layer (9 usable characters)",
        6: "unreadable text layer (62 % of 800 characters unmapped or garbage)"}
    assert pages_needing_ocr(metadata, "only") == [1, 2, 3, 4, 5, 6]
    assert pages_needing_ocr(metadata, "off") == []
    assert pages_needing_ocr({**metadata, "pdf:encrypted": ["true"]}, "auto") == []
    assert pages_needing_ocr({"Content-Type": ["image/png"]}, "auto") == [WHOLE_IMAGE]
    assert pages_needing_ocr({"Content-Type": ["text/plain"]}, "only") == []
    assert pending_pages({"ocr_pending_pages": ["2,3,5"]}) == [2, 3, 5]
    assert pending_pages({}) is None


def test_the_text_layer_quality_score():
    assert text_layer_problem(TextLayer(4000, 49)) is None  # 1.2 %: a math page
    assert text_layer_problem(TextLayer(100, 20, 10)) is None  # 30 %: still usable
    assert text_layer_problem(TextLayer(100, 20, 11)) == (
        "unreadable text layer (31 % of 100 characters unmapped or garbage)")
    assert text_layer_problem(TextLayer(15, 5)) == "no text layer (10 usable characters)"
    assert text_layer_problem(TextLayer(0)) == "no text layer (0 usable characters)"


def test_a_layer_whose_words_read_as_a_poor_ocr_layer_is_a_problem():
    assert text_layer_problem(TextLayer(900, unknown_words=POOR_WORD_SHARE - 0.01)) is None
    assert text_layer_problem(TextLayer(900, unknown_words=None)) is None
    problem = text_layer_problem(TextLayer(900, unknown_words=0.4))
    assert problem == (f"{POOR_LAYER_REASON} (40 % of its words unknown to its language's "
                       "word list)")


def test_tesseract_s_word_list_tells_a_poor_ocr_layer_from_its_clean_text():
    """With the installed ``eng`` pack's own word list (what OCR reads it with)."""
    if not pack_words("eng"):
        pytest.skip("Tesseract's eng pack (and combine_tessdata, dawg2wordlist) missing")
    assert len(pack_words("eng")) > 100_000 and "harbour" in pack_words("eng")
    assert unknown_word_share(HARBOUR, pack_words) < 0.1
    assert unknown_word_share(HARBOUR_POOR, pack_words) > POOR_WORD_SHARE
    xhtml = THREE_PAGES.replace("Third page text.", HARBOUR_POOR).replace(
        "First page text.", HARBOUR)
    metadata = _pdf_metadata([len(HARBOUR), 0, len(HARBOUR_POOR)], [0, 0, 0])
    reasons = ocr_candidates(metadata, "auto", xhtml)
    assert list(reasons) == [2, 3] and reasons[3].startswith(POOR_LAYER_REASON)


@pytest.fixture
def fresh_words(monkeypatch):
    """A process that has read no word list yet, whose lists are the words of HARBOUR
    (so no Tesseract is needed); returns the packs asked for, in order."""
    asked: list[str] = []

    def words_of(pack: str) -> frozenset[str]:
        asked.append(pack)
        return frozenset(HARBOUR.lower().replace(",", "").replace(".", "").split())

    monkeypatch.setattr(ocr, "pack_words", words_of)
    monkeypatch.setattr(ocr, "_read_packs", set())
    monkeypatch.setattr(ocr, "_scan_test_pages_left", ocr.SCAN_TEST_PAGES)
    return asked


def _poor_document(pages: int) -> tuple[dict, str]:
    """A PDF's metadata and XHTML whose every page has HARBOUR_POOR's words, but the
    second one's, which has none."""
    bodies = [HARBOUR_POOR if page != 2 else "" for page in range(1, pages + 1)]
    xhtml = ('<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>'
             + "".join(f'<div class="page"><p>{body}</p></div>' for body in bodies)
             + "</body></html>")
    return _pdf_metadata([len(body) for body in bodies], [0] * pages), xhtml


def test_a_page_s_words_are_scored_only_where_it_is_a_scan_before_the_list_is_read(
        fresh_words):
    """The scan test comes first while the language's word list is unread: a PDF with no
    scan never reads it; the decisions are those of scoring every page and then
    dropping the poor pages that are no scans (as ``backends._without_blank_pages``)."""
    metadata, xhtml = _poor_document(4)
    tested: list[list[int]] = []

    def no_scans(pages: list[int]) -> set[int]:
        tested.append(pages)
        return set()

    assert ocr_candidates(metadata, "auto", xhtml, no_scans) == {
        2: "no text layer (0 usable characters)"}
    assert tested == [[1, 3, 4]] and fresh_words == []  # page 2 needs OCR anyway

    every = ocr_candidates(metadata, "auto", xhtml)  # every page scored: the list read
    assert fresh_words == ["eng"] * 3
    assert all(every[page].startswith(POOR_LAYER_REASON) for page in (1, 3, 4))
    ocr._read_packs.clear()
    fresh_words.clear()
    assert ocr_candidates(metadata, "auto", xhtml, lambda pages: {3}) == {
        page: reason for page, reason in every.items() if page in (2, 3)}
    assert fresh_words == ["eng"]


def test_once_the_list_is_read_or_the_scan_tests_spent_pages_are_scored_first(
        fresh_words, monkeypatch):
    metadata, xhtml = _poor_document(3)
    def refuse(pages: list[int]) -> set[int]:
        raise AssertionError("no scan test expected")

    ocr._read_packs.add("eng")  # read for an earlier document of the process
    assert list(ocr_candidates(metadata, "auto", xhtml, refuse)) == [1, 2, 3]
    ocr._read_packs.clear()
    monkeypatch.setattr(ocr, "_scan_test_pages_left", 1)  # two pages to test: over
    assert list(ocr_candidates(metadata, "auto", xhtml, refuse)) == [1, 2, 3]
    monkeypatch.setattr(ocr, "_scan_test_pages_left", 2)
    assert ocr_candidates(metadata, "auto", xhtml, lambda pages: {1, 3}).keys() == {1, 2, 3}
    assert ocr._scan_test_pages_left == 0

    def broken(pages: list[int]) -> set[int]:
        raise ValueError("PDFium refuses the file")

    monkeypatch.setattr(ocr, "_scan_test_pages_left", 2)
    assert list(ocr_candidates(metadata, "auto", xhtml, broken)) == [2]


def test_characters_nothing_reads_count_against_a_page_from_its_own_text():
    # A font without a Unicode map that Tika gives as private-use characters: Tika
    # counts them as characters, none unmapped; the page's text says otherwise.
    garbage = "\ue021\ue022\ue023 " * 30
    xhtml = THREE_PAGES.replace("Third page text.", garbage)
    assert page_texts(xhtml)[0] == "First page text."
    metadata = _pdf_metadata([16, 0, 120], [0, 0, 0])
    assert text_layers(metadata, xhtml)[2] == TextLayer(120, 0, 90, reads_as_garbage=True)
    assert pages_needing_ocr(metadata, "auto", xhtml) == [2, 3]
    assert pages_needing_ocr(metadata, "auto") == [2]


def test_a_page_whose_text_reads_as_encoding_garbage_is_read_by_ocr():
    """Every glyph mapped, every one the wrong letter (a font's map in another
    encoding): the page's text scores as garbage (transforms/garbage.py)."""
    mojibake = ("人人生而自由，在尊严和权利上一律平等。" * 8).encode("utf-8").decode("cp1252",
                                                                         errors="replace")
    xhtml = THREE_PAGES.replace("Third page text.", mojibake)
    metadata = _pdf_metadata([16, 0, len(mojibake)], [0, 0, 0])
    assert text_layers(metadata, xhtml)[2].reads_as_garbage
    assert ocr_candidates(metadata, "auto", xhtml)[3] == (
        "unreadable text layer (it reads as encoding garbage)")


def test_formula_lines_of_unreadable_glyphs_do_not_make_clean_prose_garbage():
    """A thesis sets its formulas in a font Tika gives as private-use glyphs, on lines
    of their own between clean prose (22 % of the page: under the share that sends a
    page to OCR). The encoding-garbage test judges the prose, and the page keeps its
    text layer (OCR misread its Hangul). Glyphs that run through most of a page's text
    (a figure whose font shifts every letter and spaces its words with private-use
    glyphs) still make it garbage."""
    prose = ("모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다.\n"
             "인간은 천부적으로\n이성과 양심을 부여받았으며 서로 형제애의 정신으로 "
             "행동하여야 한다.\n")
    formula = ("\ue006\ue044\ue0fc\ue052\ue0fd\ue045 \ue047 \ue067\ue0ed"
               "\ue047\ue046\ue0ef\ue035\ue0ac\ue0ae\ue035\ue034\n")
    page = (prose * 2 + formula * 3) * 3
    xhtml = THREE_PAGES.replace("Third page text.", page)
    metadata = _pdf_metadata([16, 0, len(page)], [0, 0, 0])
    # The formula lines are left out of the page's judgement: their glyphs (9 lines of
    # 17) neither count as characters nor against it.
    assert text_layers(metadata, xhtml)[2] == TextLayer(len(page) - 9 * 17, 0, 0)
    assert pages_needing_ocr(metadata, "auto", xhtml) == [2]

    def shifted(line: str) -> str:  # each letter 29 code points down, spaces unmapped
        return "".join("\ue003" if c == " " else chr(ord(c) - 29) for c in line)

    figure = "".join(f"{shifted(line)}\n" for line in (
        "Act 1: Think[First I need to find a pepper shaker]",
        "Obs 1: On the cabinet 1, you see a vase 2.", "Act 2: Go to countertop 3",
        "Obs 2: On the countertop you see an apple.")) * 3
    page = figure + ("These approaches usually convert multi-modal observations into text, "
                     "use a language\nmodel to generate domain-specific actions or plans.\n") * 2
    xhtml = THREE_PAGES.replace("Third page text.", page)
    metadata = _pdf_metadata([16, 0, len(page)], [0, 0, 0])
    assert text_layers(metadata, xhtml)[2].reads_as_garbage
    assert pages_needing_ocr(metadata, "auto", xhtml) == [2, 3]


def test_table_shading_glyph_runs_do_not_make_a_readable_page_garbage():
    """A data sheet shades its table cells with a symbol font's glyph Tika reads as
    "Î": runs of it between correct words are fill, not encoding garbage; the page
    keeps its text layer. The same words in mojibake still go to OCR."""
    rows = "".join(f"ÎÎÎÎÎÎÎÎÎÎÎÎÎÎÎÎÎÎ{name}\nÎÎÎÎÎ\nÎÎÎÎÎ{symbol}\nÎÎÎÎ\nÎÎÎÎ{value}\n"
                   for name, symbol, value in (("Collector Emitter Voltage", "VCEO", "60"),
                                               ("Collector Base Voltage", "VCB", "80"),
                                               ("Emitter Base Voltage", "VEB", "5.0"),
                                               ("Base Current", "IB", "120")) * 3)
    xhtml = THREE_PAGES.replace("Third page text.", rows)
    metadata = _pdf_metadata([16, 0, len(rows)], [0, 0, 0])
    assert not text_layers(metadata, xhtml)[2].reads_as_garbage
    assert pages_needing_ocr(metadata, "auto", xhtml) == [2]
    mojibake = "人人生而自由，在尊严和权利上一律平等。".encode().decode("cp1252",
                                                               errors="replace")
    rows = "".join(f"ÎÎÎÎÎÎÎÎÎÎÎÎ{mojibake}\nÎÎÎÎÎ\n" for _ in range(8))
    xhtml = THREE_PAGES.replace("Third page text.", rows)
    metadata = _pdf_metadata([16, 0, len(rows)], [0, 0, 0])
    assert text_layers(metadata, xhtml)[2].reads_as_garbage


def test_glyphs_tika_calls_unmapped_but_reads_count_as_text():
    """Tika may count every glyph of a font without a Unicode map as unmapped though
    it reads them through the font's encoding: the page's letters say they were read."""
    prose = "Il contratto prevede le seguenti prestazioni assicurative. " * 4
    xhtml = THREE_PAGES.replace("Third page text.", prose)
    metadata = _pdf_metadata([16, 0, len(prose)], [0, 0, len(prose)])
    layer = text_layers(metadata, xhtml)[2]
    assert layer.unmapped < 0.3 * len(prose) and text_layer_problem(layer) is None
    assert pages_needing_ocr(metadata, "auto", xhtml) == [2]
    # Without the text, the count decides (a page whose glyphs nothing reads).
    assert pages_needing_ocr(metadata, "auto") == [2, 3]


def test_ocr_text_goes_into_its_own_page_and_keeps_its_page_number():
    merged = merge_ocr(THREE_PAGES, [PageText(2, text="Scanned second page.\n")])
    parsed = parse_tika_xhtml(merged)
    assert [(b.page, b.text.strip()) for b in parsed.blocks] == [
        (1, "First page text."), (2, "Scanned second page."), (3, "Third page text."),
        (None, "an outline entry")]
    assert parsed.title == "t" and merged.count('<div class="ocr">') == 1


def test_ocr_text_replaces_the_text_layer_and_pages_without_text_change_nothing():
    merged = merge_ocr(THREE_PAGES, [PageText(1, text="OCR one"), PageText(2, timed_out=True),
                                     PageText(3, text="OCR three")])
    parsed = parse_tika_xhtml(merged)
    assert [(b.page, b.text.strip()) for b in parsed.blocks] == [
        (1, "OCR one"), (3, "OCR three"), (None, "an outline entry")]
    unchanged = merge_ocr(THREE_PAGES, [PageText(2, problem="tesseract failed")])
    assert parse_tika_xhtml(unchanged).raw_text == parse_tika_xhtml(THREE_PAGES).raw_text


def test_an_images_text_goes_into_the_body_and_control_characters_are_dropped():
    empty_image = ('<html xmlns="http://www.w3.org/1999/xhtml"><head/><body /></html>')
    merged = merge_ocr(empty_image, [PageText(WHOLE_IMAGE, text="Invoice\x0c 42\x00")])
    assert parse_tika_xhtml(merged).raw_text == "Invoice 42"
    assert parse_tika_xhtml(merge_ocr("", [PageText(WHOLE_IMAGE, text="x")])
                            ).raw_text == "x"


def test_formula_glyphs_over_the_bad_share_keep_a_page_of_prose_while_under_half_its_text():
    """A Korean thesis's page: more than ``OCR_MAX_BAD_SHARE`` of its characters are a
    formula's private-use glyphs, in lines of their own (no letter), the rest clean
    prose. OCR would misread the Hangul and read no formula: the page keeps its layer.
    Where such lines are half the page's text or more (a font that gives every glyph as
    private use, a running head the only line read), the page still goes to OCR."""
    prose = "모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다.\n"
    formula = "\ue0ae\ue0fc\ue047\ue0ae\ue0fc\ue044\ue0fc\ue052\ue0fd\ue045" * 2 + " (7)\n"
    page = (prose + formula) * 4
    xhtml = THREE_PAGES.replace("Third page text.", page)
    glyphs = 20 * 4
    chars = len(page.replace(" ", "").replace("\n", ""))
    assert glyphs > ocr.OCR_MAX_BAD_SHARE * chars  # sent to OCR by the share alone
    metadata = _pdf_metadata([16, 0, chars], [0, 0, 0])
    assert pages_needing_ocr(metadata, "auto", xhtml) == [2]
    page = prose + formula * 4
    xhtml = THREE_PAGES.replace("Third page text.", page)
    metadata = _pdf_metadata([16, 0, len(page.replace(" ", "").replace("\n", ""))], [0, 0, 0])
    assert pages_needing_ocr(metadata, "auto", xhtml) == [2, 3]
    # Glyphs whose character Tika could not tell (U+FFFD): a text font without a map (a
    # sidebar's words), which OCR reads; never taken for a formula.
    page = (prose + formula.replace("\ue0ae", "\ufffd")) * 4
    xhtml = THREE_PAGES.replace("Third page text.", page)
    metadata = _pdf_metadata([16, 0, len(page.replace(" ", "").replace("\n", ""))], [0, 0, 0])
    assert pages_needing_ocr(metadata, "auto", xhtml) == [2, 3]
