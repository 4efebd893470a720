from __future__ import annotations

from ragbeam.transforms.extract.html import parse_html_main
from ragbeam.transforms.extract.xhtml import parse_tika_xhtml, with_file_text
from ragbeam.transforms.types import BlockKind

XHTML = """<html xmlns="http://www.w3.org/1999/xhtml"><head><meta name="Content-Type"
content="application/pdf" /><title>T</title></head><body>
<div class="page"><p>Header line</p><h2>Intro <b>bold</b></h2><p>Para one
continues.</p><ul><li>item a</li><li>item b</li></ul></div>
<div class="page"><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>
<pre>  code
    indented</pre><p>Last</p></div></body></html>"""


def test_blocks_have_kinds_pages_and_raw_offsets():
    parsed = parse_tika_xhtml(XHTML)
    assert parsed.page_count == 2
    assert parsed.head_metadata["Content-Type"] == "application/pdf"
    assert parsed.title == "T"
    kinds = [(b.kind, b.page) for b in parsed.blocks]
    assert kinds == [
        (BlockKind.PARAGRAPH, 1), (BlockKind.HEADING, 1), (BlockKind.PARAGRAPH, 1),
        (BlockKind.LIST_ITEM, 1), (BlockKind.LIST_ITEM, 1),
        (BlockKind.TABLE, 2), (BlockKind.CODE, 2), (BlockKind.PARAGRAPH, 2),
    ]
    heading = parsed.blocks[1]
    assert heading.level == 2 and heading.text == "Intro bold"
    assert parsed.blocks[5].text == "k | v\na | 1"
    for block in parsed.blocks:
        if block.kind is not BlockKind.TABLE:
            assert parsed.raw_text[block.raw_start:block.raw_end] == block.text


def test_empty_and_broken_xhtml_do_not_raise():
    assert parse_tika_xhtml("").blocks == []
    assert parse_tika_xhtml("<html><body><p>unclosed").blocks[0].text == "unclosed"


def test_pdf_annotations_are_kept_apart_with_their_page_and_are_never_text():
    """Issue 38: Tika writes each link annotation's URI (and a comment's text) after
    its page's text; it is the page's link, not body text, and text after the pages
    (the outline) has no page."""
    xhtml = """<html xmlns="http://www.w3.org/1999/xhtml"><body>
<div class="page"><p>Body text runs</p>
<div class="annotation"><a href="https://x.org/a?b=1&amp;c=2">https://x.org/a?b=1&amp;c=2</a></div>
<div class="annotation"><div class="annotationTitle">Ann</div>
<div class="annotationContents">Check this figure</div></div>
</div><ul><li>Outline entry</li></ul></body></html>"""
    parsed = parse_tika_xhtml(xhtml)
    assert [(b.text, b.page) for b in parsed.blocks] == [
        ("Body text runs", 1), ("Outline entry", None)]
    assert "x.org" not in parsed.raw_text and "Check this" not in parsed.raw_text
    assert [a.record() for a in parsed.annotations] == [
        {"page": 1, "uri": "https://x.org/a?b=1&c=2"},
        {"page": 1, "title": "Ann", "contents": "Check this figure"}]


def test_a_web_page_s_annotation_class_is_just_a_class():
    html = (b'<html><body><main><div class="annotation"><p>A note on the text, long enough '
            b'to be the page\'s main content.</p></div></main></body></html>')
    parsed = parse_html_main(html)
    assert "A note on the text" in parsed.raw_text
    assert parsed.annotations == []


def test_slides_are_pages_and_their_notes_follow_them():
    xhtml = """<html xmlns="http://www.w3.org/1999/xhtml"><body>
<div class="slide-content"><p>Slide one</p></div><p>Notes one</p>
<div class="slide-content"><p>Slide two</p></div></body></html>"""
    parsed = parse_tika_xhtml(xhtml)
    assert [(b.text, b.page) for b in parsed.blocks] == [
        ("Slide one", 1), ("Notes one", 1), ("Slide two", 2)]
    assert parsed.page_count == 2


def test_html_s_source_line_breaks_are_spaces_but_br_and_pre_break_lines():
    """An e-book's or web page's <p> wrapped in its source reads as one line, as a
    browser shows it; <br> and <pre> keep their line breaks; a PDF's lines (no
    collapsing) are left for cleaning to judge."""
    xhtml = ("<html><body><p>Or he may\nbe told, <i>i.e.</i>\n  play on</p>"
             "<p>Title<br/>\nAuthor</p><pre>a\n  b</pre></body></html>")
    collapsed = [b.text for b in parse_tika_xhtml(xhtml, collapse_whitespace=True).blocks]
    assert collapsed == ["Or he may be told, i.e. play on", "Title\nAuthor", "a\n  b"]
    kept = [b.text for b in parse_tika_xhtml(xhtml).blocks]
    assert kept == ["Or he may\nbe told, i.e.\n  play on", "Title\n\nAuthor", "a\n  b"]


def test_a_page_laid_out_in_a_table_is_prose_and_a_data_table_inside_it_stays_a_table():
    """Old sites put the whole page in one table cell (Paul Graham's essays): that
    cell's text is paragraphs, not one table row; a data table stays a table block,
    also inside the layout; outside web pages (``collapse_whitespace`` off, e.g.
    DOCX, spreadsheets) every table stays a table."""
    essay = "Words of an essay. " * 150  # a cell of 2,850 characters
    xhtml = (f"<html><body><table><tr><td><img/></td><td>{essay}<br/><br/>Next paragraph."
             "<table><tr><th>Year</th><th>Sales</th></tr><tr><td>2023</td><td>4</td></tr>"
             "</table></td></tr></table></body></html>")
    blocks = parse_tika_xhtml(xhtml, collapse_whitespace=True).blocks
    assert [b.kind for b in blocks] == [BlockKind.PARAGRAPH, BlockKind.TABLE]
    assert blocks[0].text == essay + "\n\nNext paragraph."
    assert blocks[1].text == "Year | Sales\n2023 | 4"
    outer, inner = parse_tika_xhtml(xhtml).blocks
    assert outer.kind is inner.kind is BlockKind.TABLE
    assert "Year" not in outer.text and inner.text == "Year | Sales\n2023 | 4"


def test_a_table_nested_in_a_cell_is_its_own_table_and_no_text_is_written_twice():
    """HTML e-mails (newsletters) lay their body out in tables inside table cells;
    a word processor's form can hold a table in a cell. The outer cell keeps only
    its own text; each inner table is a table block of its own, once."""
    xhtml = ("<html><body><table><tr><td>Dear reader, <table><tr><td>Offer one</td>"
             "<td>10 EUR</td></tr><tr><td>Offer two<table><tr><td>deep</td></tr></table>"
             "</td><td>12 EUR</td></tr></table> Regards</td><td>Side</td></tr></table>"
             "</body></html>")
    parsed = parse_tika_xhtml(xhtml)
    assert [b.text for b in parsed.blocks] == [
        "Dear reader, Regards | Side", "Offer one | 10 EUR\nOffer two | 12 EUR", "deep"]
    assert all(b.kind is BlockKind.TABLE for b in parsed.blocks)
    for word in ("Dear", "Offer one", "Offer two", "deep", "Regards"):
        assert parsed.raw_text.count(word) == 1


def test_a_cell_s_line_breaks_and_paragraphs_keep_its_words_apart():
    """A web table's header cell breaks its line ("Revenue<br>in million"); a word
    processor writes each paragraph of a cell as <p>. Neither glues two words."""
    xhtml = ("<html><body><table><tr><th>Year</th><th>Revenue<br/>in million US$<sup>[1]"
             "</sup></th></tr><tr><td><p>23</p><p>Yet another</p></td><td>39,788</td></tr>"
             "</table></body></html>")
    parsed = parse_tika_xhtml(xhtml)
    assert parsed.blocks[0].text == "Year | Revenue in million US$[1]\n23 Yet another | 39,788"
    assert "Revenuein" not in parsed.raw_text and "23Yet" not in parsed.raw_text


def test_a_byte_the_declared_charset_lacks_costs_one_character_not_the_rest_of_the_page():
    """windows-1252 leaves 0x81, 0x8D, 0x8F, 0x90 and 0x9D undefined: libxml2, given the
    charset, stopped at the first and dropped the rest of the page."""
    page = (b"<html><head><meta charset='windows-1252'></head><body><p>Caf\xe9 opens at "
            b"nine \x81 and closes at six.</p><p>Boats leave at ten.</p></body></html>")
    text = parse_html_main(page, "windows-1252").raw_text
    assert "Café opens at nine \ufffd and closes at six." in text
    assert "Boats leave at ten." in text


def test_a_text_files_paragraph_becomes_its_utf8_bytes_and_nothing_else_does():
    head = '<html xmlns="http://www.w3.org/1999/xhtml"><head><title></title></head>'
    tika = head + "<body><p>a \u00e2\ufffd\ufffdb\u00e2\ufffd\ufffd &lt;c&gt;\n</p>\n</body></html>"
    data = "a \u201cb\u201d <c>\x01\n".encode()
    text = parse_tika_xhtml(with_file_text(tika, data)).raw_text
    assert text.rstrip() == "a \u201cb\u201d <c>\ufffd"
    assert with_file_text(tika, "a \u201cb".encode("cp1252")) == tika  # not UTF-8
    # Tika read it as ISO-8859-1: the bytes Windows-1252 uses for quotes are its text.
    latin = parse_tika_xhtml(with_file_text(tika, "a \u201cb".encode("cp1252"), "ISO-8859-1"))
    assert latin.raw_text.rstrip() == "a \u201cb"
    assert with_file_text(tika, b"ascii only") == tika  # Tika read it right
    two = head + "<body><p>x</p><p>y</p></body></html>"  # not one paragraph: not a text file
    assert with_file_text(two, "x \u201c".encode()) == two


def test_a_footnote_inside_a_paragraph_follows_it_and_its_sentence_stays_whole():
    """An OpenDocument text's footnote is written where its mark is, inside the
    paragraph: the paragraph reads on ("Some text with a footnote."), the note is a
    paragraph of its own after it; a note-classed paragraph outside one stays put."""
    xhtml = ('<html><body><p>Some text<p class="note">1 Footnote text </p> with a '
             'footnote.</p><p>Next.</p><div><p class="note">2 Endnote</p><p>Last.</p></div>'
             '</body></html>')
    parsed = parse_tika_xhtml(xhtml)
    assert [b.text for b in parsed.blocks] == [
        "Some text with a footnote.", "1 Footnote text ", "Next.", "2 Endnote", "Last."]
    for block in parsed.blocks:
        assert parsed.raw_text[block.raw_start:block.raw_end] == block.text


def test_an_e_book_s_navigation_document_is_no_text():
    """An EPUB 3 book's navigation document (<nav>: contents, landmarks) is the
    reading system's; its "Table of Contents" heading must not head the chapters
    after it. Other readers keep a <nav>'s text (their own rules decide)."""
    xhtml = ('<html><body><h1>Chapter One</h1><p>It began.</p>'
             '<nav type="toc"><h1>Table of Contents</h1><ol><li><a href="c1.xhtml">Chapter One'
             '</a></li></ol></nav><h2>Part two</h2><p>It went on.</p></body></html>')
    book = parse_tika_xhtml(xhtml, collapse_whitespace=True, skip_navigation=True)
    assert [b.text for b in book.blocks] == ["Chapter One", "It began.", "Part two",
                                             "It went on."]
    assert "Table of Contents" in parse_tika_xhtml(xhtml, collapse_whitespace=True).raw_text


def test_a_word_processor_s_comments_are_annotations_not_text():
    """Tika writes a DOCX's comment as <div class="comment"> after the paragraph it
    remarks on: a reviewer's note, kept apart as a PDF's comments are."""
    xhtml = ("<html><body><p>I want some text to have a comment on it.</p>"
             '<div class="comment"><p>I left a comment.</p></div>'
             "<p>This is a new paragraph.</p>"
             '<div class="comment"><p>Two</p><p /><p>paragraphs.</p></div></body></html>')
    parsed = parse_tika_xhtml(xhtml)
    assert [b.text for b in parsed.blocks] == [
        "I want some text to have a comment on it.", "This is a new paragraph."]
    assert "comment." not in parsed.raw_text.replace("comment on it.", "")
    assert [a.record() for a in parsed.annotations] == [
        {"contents": "I left a comment."}, {"contents": "Two paragraphs."}]


def test_an_e_book_s_comment_and_annotation_classes_are_its_author_s_text():
    """Tika passes an e-book's (HTML's) class attributes through: there a "comment" or
    an "annotation" div is the book's own text, not Tika's marker."""
    xhtml = ('<html><body><div class="comment"><p>A reader\'s letter.</p></div>'
             '<div class="annotation"><p>An editor\'s gloss.</p></div></body></html>')
    parsed = parse_tika_xhtml(xhtml, collapse_whitespace=True)
    assert [b.text for b in parsed.blocks] == ["A reader's letter.", "An editor's gloss."]
    assert parsed.annotations == []
