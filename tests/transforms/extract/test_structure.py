"""Structure that survives extraction: Markdown, web pages, slides, e-mail (real files)."""

from __future__ import annotations

import hashlib

import pytest

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.extract.html import parse_html_main
from ragbeam.transforms.extract.markdown import (
    markdown_front_matter,
    markdown_links,
    parse_markdown_blocks,
)
from ragbeam.transforms.types import BlockKind, FetchedFile, SourceFile

from conftest import require_corpus


@pytest.fixture(scope="module")
def tika() -> EmbeddedTika:
    return EmbeddedTika()


def _extract(tika: EmbeddedTika, rel: str):
    path = require_corpus() / rel
    data = path.read_bytes()
    xhtml, metadata = tika.extract(data, path.name)
    fetched = FetchedFile(SourceFile(str(path), "d", len(data)), data,
                          hashlib.sha256(data).hexdigest())
    return build_extracted_document(fetched, xhtml, metadata)


def test_markdown_blocks_have_levels_code_tables_and_exact_raw_ranges():
    text = ("# Title\n\nSome *text*\nwrapped.\n\n- item one\n- item two\n\n"
            "```python\nx = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Sub\n")
    blocks = parse_markdown_blocks(text)
    assert [(b.kind, b.level) for b in blocks] == [
        (BlockKind.HEADING, 1), (BlockKind.PARAGRAPH, 0), (BlockKind.LIST_ITEM, 0),
        (BlockKind.LIST_ITEM, 0), (BlockKind.CODE, 0), (BlockKind.TABLE, 0),
        (BlockKind.HEADING, 2)]
    assert blocks[0].text == "Title"
    assert text[blocks[1].raw_start:blocks[1].raw_end] == blocks[1].text == "Some *text*\nwrapped."
    assert blocks[4].text == "x = 1\n"
    assert blocks[5].text == "a | b\n1 | 2"


def test_admonition_opening_line_is_no_text_and_its_title_heads_its_body():
    # An FAQ's box repeats its title as the body's heading: the marker line would
    # otherwise end the previous answer's section with the next question.
    text = ('# FAQ\n\n??? question "Is X supported?"\n\n    ### Is X supported?\n\n'
            '    Yes.\n\n??? question "How do I run offline?"\n\n    ### How do I run offline?\n'
            '\n    Set the flag.\n\n!!! note "Mind the gap"\n    Body.\n\n!!! warning\n'
            '    Careful.\n')
    blocks = parse_markdown_blocks(text)
    assert [(b.kind, b.text.strip()) for b in blocks] == [
        (BlockKind.HEADING, "FAQ"), (BlockKind.HEADING, "Is X supported?"),
        (BlockKind.PARAGRAPH, "Yes."), (BlockKind.HEADING, "How do I run offline?"),
        (BlockKind.PARAGRAPH, "Set the flag."), (BlockKind.PARAGRAPH, "Mind the gap"),
        (BlockKind.PARAGRAPH, "Body."), (BlockKind.PARAGRAPH, "Careful.")]
    title = blocks[5]
    assert text[title.raw_start:title.raw_end] == '!!! note "Mind the gap"'


def test_content_tabs_nested_in_an_admonition_keep_their_code_and_label():
    # MkDocs content tabs inside an FAQ's box: each tab's fenced code was read as an
    # indented code block holding the fences, and its label line as text.
    text = ('??? question "Libraries missing"\n\n    Install them.\n\n'
            '    === "Debian-based"\n\n        ```console\n        apt-get install libgl1\n'
            '        ```\n\n    === "RHEL / Fedora"\n\n        ```console\n'
            '        dnf install mesa-libGL\n        ```\n')
    blocks = parse_markdown_blocks(text)
    assert [(b.kind, b.text.strip()) for b in blocks] == [
        (BlockKind.PARAGRAPH, "Libraries missing"), (BlockKind.PARAGRAPH, "Install them."),
        (BlockKind.PARAGRAPH, "Debian-based"), (BlockKind.CODE, "apt-get install libgl1"),
        (BlockKind.PARAGRAPH, "RHEL / Fedora"), (BlockKind.CODE, "dnf install mesa-libGL")]


def test_markdown_file_from_tika_keeps_headings_inside_admonitions(tika):
    doc = _extract(tika, "md/docling-faq.md")
    assert doc.media_type == "text/markdown"
    headings = [b.text for b in doc.blocks if b.kind is BlockKind.HEADING]
    assert "Is Python 3.14 supported?" in headings
    assert len(headings) >= 10
    assert not any("??? question" in b.text for b in doc.blocks)
    assert any(b.kind is BlockKind.CODE for b in doc.blocks)


def test_web_page_drops_navigation_and_keeps_the_article_with_headings(tika):
    doc = _extract(tika, "html/blog-post.html")
    text = "\n".join(b.text for b in doc.blocks)
    assert doc.blocks[0].kind is BlockKind.HEADING and doc.blocks[0].text.startswith(
        "Does Model and Inference Parameter Matter")
    assert "Skip to main content" not in text
    assert "Recent posts" not in text
    assert "TL;DR:" in text
    wiki = _extract(tika, "html/wikipedia-microsoft.html")
    wiki_text = "\n".join(b.text for b in wiki.blocks)
    assert "Afrikaans" not in wiki_text  # language menu
    assert "Microsoft was founded by Bill Gates and Paul Allen" in wiki_text
    assert sum(b.kind is BlockKind.HEADING for b in wiki.blocks) >= 10


def test_html_without_main_element_keeps_body_minus_chrome():
    page = parse_html_main(b"<html><body><nav>Home | About</nav><h1>T</h1><p>Body.</p>"
                           b"<footer>(c) 2024</footer></body></html>")
    assert [(b.kind, b.text) for b in page.blocks] == [
        (BlockKind.HEADING, "T"), (BlockKind.PARAGRAPH, "Body.")]


def test_slides_are_pages_and_notes_stay_with_their_slide(tika):
    doc = _extract(tika, "pptx/powerpoint_sample.pptx")
    pages = {b.text: b.page for b in doc.blocks}
    assert pages["Second slide title"] == 2
    assert pages["Some notes on the second slide."] == 2
    assert any(b.kind is BlockKind.TABLE and b.page == 1 for b in doc.blocks)


@pytest.mark.parametrize("rel", ["eml/family-day.eml", "msg/zh-outlook.msg",
                                 "eml/hebrew-windows-1255.eml"])
def test_email_headers_go_to_metadata(tika, rel):
    doc = _extract(tika, rel)
    for key in ("email_from", "email_to", "email_subject", "email_date"):
        assert doc.metadata.get(key), (key, doc.metadata)


def test_mbox_headers_are_read_from_the_bytes_when_tika_drops_them(tika):
    doc = _extract(tika, "eml/hebrew-windows-1255.eml")  # Tika: application/mbox, no headers
    assert doc.media_type == "application/mbox"
    assert doc.metadata["email_subject"] == "RE: שלום"  # RFC 2047, windows-1255
    assert doc.metadata["email_from"] == "Tamir Erez <eryzxx@post.tau.ac.il>"
    assert doc.metadata["email_date"] == "2008-07-16T06:24:06Z"
    assert doc.title == "RE: שלום"  # a message is called by its subject


def test_pdf_outline_after_the_last_page_is_on_no_page(tika):
    doc = _extract(tika, "pdf/mistitled_outlines_example.pdf")
    assert doc.page_count == 4
    outline = [b for b in doc.blocks if b.text == "Twenty-seventh"]
    assert outline and outline[0].page is None


def test_markdown_front_matter_is_metadata_not_text(tmp_path):
    text = "---\ntitle: Release notes\nauthor: Ada\ntags: [a, b]\n---\n# Changes\n\nFixed it.\n"
    blocks = parse_markdown_blocks(text)
    assert [(b.kind, b.text) for b in blocks] == [
        (BlockKind.HEADING, "Changes"), (BlockKind.PARAGRAPH, "Fixed it.")]
    assert text[blocks[1].raw_start:blocks[1].raw_end] == "Fixed it."
    assert markdown_front_matter(text) == {"title": "Release notes", "author": "Ada"}
    assert markdown_front_matter("--- not front matter\ntext") == {}
    path = tmp_path / "notes.md"
    path.write_text(text, encoding="utf-8")
    data = path.read_bytes()
    xhtml, metadata = EmbeddedTika().extract(data, path.name)
    doc = build_extracted_document(
        FetchedFile(SourceFile(str(path), "d", len(data)), data, "h"), xhtml, metadata)
    assert doc.title == "Release notes" and doc.metadata["markdown:author"] == "Ada"


def test_markdown_headings_are_their_words_without_markup_or_attributes():
    """A heading reads as a reader would write it: no code ticks, emphasis marks, link
    targets or attribute block (Pandoc's, kramdown's "{#id .class}", "{-}")."""
    text = ("# General options {#general .unnumbered}\n\n## Extension: `smart` {-}\n\n"
            "## *Very* [important](https://example.org) notes\n\n### Braces {like this}\n")
    assert [b.text for b in parse_markdown_blocks(text) if b.kind is BlockKind.HEADING] == [
        "General options", "Extension: smart", "Very important notes", "Braces {like this}"]


def test_markdown_is_recognised_by_type_or_by_name_of_plain_text_only():
    from ragbeam.transforms.extract.markdown import is_markdown

    assert is_markdown("/docs/README.md", "text/plain")
    assert is_markdown("/docs/notes.txt", "text/markdown")
    assert not is_markdown("/docs/renamed.md", "application/pdf")  # content wins
    assert not is_markdown("/docs/notes.txt", "text/plain")
    # Tika's guesses from a Markdown file's first bytes: a Pandoc title block's "%"
    # (MATLAB), an HTML block above a README (a web page).
    assert is_markdown("/docs/README.md", "text/x-matlab")
    assert is_markdown("/docs/README.md", "text/html")


def test_markdown_opening_with_a_title_block_or_an_html_block_keeps_its_headings(tmp_path):
    """Real Tika: a Markdown file opening with a Pandoc title block or a centred HTML
    heading (a README's banner) is still Markdown: its headings are headings, and a
    title block names the document and is not text."""
    body = "\n\n## Intro\n\nSome text here.\n\n## Usage\n\nMore text.\n\n## Notes\n\nEnd.\n"
    for name, opening in (("pandoc.md", "% Crane Manual\n  for harbour staff\n% Ada\n"),
                          ("readme.md", '<h1 align="center">Crane Manual</h1>\n'),
                          ("banner.md", '<div align="center">\n\n# Crane Manual\n\n</div>\n')):
        path = tmp_path / name
        path.write_text(opening + body, encoding="utf-8")
        data = path.read_bytes()
        xhtml, metadata = EmbeddedTika().extract(data, path.name)
        doc = build_extracted_document(
            FetchedFile(SourceFile(str(path), "d", len(data)), data, "h"), xhtml, metadata)
        headings = [b.text for b in doc.blocks if b.kind is BlockKind.HEADING]
        assert headings == ["Crane Manual", "Intro", "Usage", "Notes"][name == "pandoc.md":]
        assert all("%" not in b.text for b in doc.blocks), name
        cleaned = clean_document(doc, CleanOptions())
        assert cleaned.title == ("Crane Manual for harbour staff" if name == "pandoc.md"
                                 else "Crane Manual"), name
    assert markdown_front_matter("% Crane Manual\n  for harbour staff\n% Ada\n%\n\n# A") == {
        "title": "Crane Manual for harbour staff", "author": "Ada"}


def test_markdown_links_are_metadata_and_table_cells_keep_their_words():
    text = ("# Guide\n\nLike [textract](https://github.com/example/textract) and "
            '[paging]("https://example.org/p/1").\n\n'
            "| Issues | PRs |\n| --- | --- |\n"
            "| [All issues](https://github.com/example/issues) | [All PRs](#prs) |\n\n"
            "```\n[not](https://example.org/code)\n```\n")
    assert markdown_links(text) == ["https://github.com/example/textract",
                                    "https://example.org/p/1",
                                    "https://github.com/example/issues", "#prs"]
    table = [b for b in parse_markdown_blocks(text) if b.kind is BlockKind.TABLE]
    assert table[0].text == "Issues | PRs\nAll issues | All PRs"


def test_plain_text_written_in_markdown_is_read_as_markdown():
    from ragbeam.transforms.extract.markdown import reads_as_markdown
    from ragbeam.transforms.extract.plain_text import PlainTextReader

    guide = ("A guide saved as text.\n\n# Prompting\n\nWhy prompts matter.\n\n## Chapter 1\n\n"
             "Roles.\n\n## Chapter 2\n\nExamples.\n")
    assert reads_as_markdown(guide)
    assert PlainTextReader().for_text(guide).name == "markdown"
    # A configuration's comments run on into their settings: not headings.
    config = ("# server\nport = 80\n\n# logging\nlevel = info\n\n# cache\nsize = 10\n\n"
              "# Notes\n\n")
    assert not reads_as_markdown(config)
    assert PlainTextReader().for_text(config).name == "plain_text"
    assert not reads_as_markdown("#1 item\n\n#2 item\n\n#3 item\n")  # no space: no heading
    assert not reads_as_markdown("# One\n\nprose\n\n# Two\n")  # two headings are too few


def test_plain_text_in_markdown_from_tika_has_headings(tika, tmp_path):
    path = tmp_path / "guide.txt"
    path.write_text("Intro line.\n\n# Guide\n\nWhy.\n\n<div style=\"page-break-after:always;\">"
                    "</div>\n\n## Chapter 1\n\nRoles.\n\n## Chapter 2\n\nExamples.\n",
                    encoding="utf-8")
    data = path.read_bytes()
    xhtml, metadata = tika.extract(data, path.name)
    doc = build_extracted_document(FetchedFile(SourceFile(str(path), "d", len(data)), data,
                                               hashlib.sha256(data).hexdigest()), xhtml, metadata)
    headings = [b.text for b in doc.blocks if b.kind is BlockKind.HEADING]
    assert headings == ["Guide", "Chapter 1", "Chapter 2"]
    assert doc.media_type == "text/markdown"
    assert not any("<div" in b.text for b in doc.blocks)  # markup without words is left out


def test_raw_html_blocks_in_markdown_are_their_words():
    text = ('# T\n\n<div align="center">\n\n<table><tr><th>Name</th><th>Size</th></tr>'
            '<tr><td>a</td><td>1</td></tr></table>\n\n<!-- a comment -->\n\n'
            '<p align="center"><img src="logo.png"></p>\n\n<p>Shown <b>words</b></p>\n')
    blocks = parse_markdown_blocks(text)
    assert [(b.kind, b.text) for b in blocks] == [
        (BlockKind.HEADING, "T"), (BlockKind.TABLE, "Name | Size\na | 1"),
        (BlockKind.PARAGRAPH, "Shown words")]


def _extract_bytes(tika: EmbeddedTika, path, data: bytes):
    path.write_bytes(data)
    xhtml, metadata = tika.extract(data, path.name)
    return build_extracted_document(FetchedFile(SourceFile(str(path), "d", len(data)), data,
                                                hashlib.sha256(data).hexdigest()), xhtml, metadata)


@pytest.mark.parametrize("name", ["LICENSE", "notes.md"])
def test_a_utf8_text_file_is_read_as_utf8_whatever_charset_tika_guessed(tika, tmp_path, name):
    # Mostly ASCII with a few curly quotes: Tika's detector calls it ISO-8859-1.
    text = ("Terms\n\n" + "Plain words of a licence, in ASCII only. " * 60
            + "\n\nwill be considered the \u201cLicensor.\u201d The text\n")
    doc = _extract_bytes(tika, tmp_path / name, text.encode("utf-8"))
    assert "\u201cLicensor.\u201d" in doc.raw_text
    assert "\ufffd" not in doc.raw_text and "\u00e2" not in doc.raw_text


def test_a_double_encoded_text_file_keeps_what_repair_needs(tika, tmp_path):
    # UTF-8 bytes read as Latin-1 and saved as UTF-8 again: C1 characters in the text,
    # which Tika's XHTML would write as U+FFFD.
    text = "Youth career\n1986\u2013 Watford\n1986\u20131990 Watford 63 (9)\n"
    doubled = text.encode("utf-8").decode("latin-1").encode("utf-8")
    doc = _extract_bytes(tika, tmp_path / "career.txt", doubled)
    assert "1986\u00e2\x80\x931990" in doc.raw_text
    cleaned = clean_document(doc, CleanOptions())
    assert "1986\u20131990 Watford 63 (9)" in cleaned.text


def test_bytes_that_are_not_utf8_keep_tikas_reading(tika, tmp_path):
    text = ("Die Stra\u00dfe f\u00fchrt am Caf\u00e9 vorbei zum Rathaus, wo die "
            "B\u00fcrger \u00fcber die n\u00e4chste Sitzung des Gemeinderats "
            "sprechen.\nDanach geht es weiter zum Bahnhof.\n")
    doc = _extract_bytes(tika, tmp_path / "latin.txt", text.encode("latin-1"))
    assert "Die Stra\u00dfe f\u00fchrt am Caf\u00e9 vorbei" in doc.raw_text
