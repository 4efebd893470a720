"""Embedded resources (attachments, archive members) are left out of the parent's text,
each recorded with a reason: real Tika on real files."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from email.message import EmailMessage

import pytest

from ragbeam.transforms.extract.backends import EmbeddedTika
from ragbeam.transforms.extract.document import (
    EMBEDDED_LEFT_OUT_KEY,
    EMBEDDED_RESOURCES_KEY,
    EmptyDocumentError,
    build_extracted_document,
)
from ragbeam.transforms.extract.xhtml import EMBEDDED_LEFT_OUT_REASON, parse_tika_xhtml
from ragbeam.transforms.types import FetchedFile, SourceFile

from conftest import require_corpus


@pytest.fixture(scope="module")
def tika() -> EmbeddedTika:
    return EmbeddedTika()


def _extract(tika: EmbeddedTika, data: bytes, name: str):
    xhtml, metadata = tika.extract(data, name)
    fetched = FetchedFile(SourceFile(name, "d", len(data)), data,
                          hashlib.sha256(data).hexdigest())
    return build_extracted_document(fetched, xhtml, metadata)


def test_a_pdf_attachment_is_left_out_and_recorded(tika):
    data = (require_corpus() / "pdf/llncsdoc.pdf").read_bytes()
    doc = _extract(tika, data, "llncsdoc.pdf")
    assert "ASCII85EncodePages" not in doc.raw_text
    assert "setdistillerparams" not in doc.raw_text
    assert "Springer" in doc.raw_text  # the paper itself stays
    assert doc.metadata[EMBEDDED_LEFT_OUT_KEY] == "1"
    [resource] = json.loads(doc.metadata[EMBEDDED_RESOURCES_KEY])
    assert resource["name"].endswith(".joboptions")
    assert resource["source"] == "attachment"
    assert resource["chars"] > 20_000
    assert resource["reason"] == EMBEDDED_LEFT_OUT_REASON


def test_an_email_keeps_its_body_and_leaves_its_attachments_out(tika):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "a@example.org", "b@example.org", "Hi"
    message.set_content("The quarterly meeting moves to Thursday.\n")
    message.add_alternative("<html><body><p>The quarterly meeting moves to Thursday.</p>"
                            "</body></html>", subtype="html")
    message.add_attachment(b"ATTACHED-WORDS in a text file\n", maintype="text",
                           subtype="plain", filename="notes.txt")
    pdf = (require_corpus() / "pdf/zh-poems.pdf").read_bytes()
    message.add_attachment(pdf, maintype="application", subtype="pdf", filename="poems.pdf")
    doc = _extract(tika, message.as_bytes(), "hi.eml")
    assert "quarterly meeting moves to Thursday" in doc.raw_text
    assert "ATTACHED-WORDS" not in doc.raw_text and "孟郊" not in doc.raw_text
    assert doc.metadata[EMBEDDED_LEFT_OUT_KEY] == "2"
    resources = json.loads(doc.metadata[EMBEDDED_RESOURCES_KEY])
    assert [(r["name"], r["source"]) for r in resources] == [
        ("notes.txt", "email-attachment"), ("poems.pdf", "email-attachment")]


def test_an_archive_of_members_only_says_why_it_has_no_text(tika):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", "member text one\n")
        archive.writestr("b.txt", "member text two\n")
    with pytest.raises(EmptyDocumentError, match="2 embedded resource"):
        _extract(tika, buffer.getvalue(), "two.zip")


def test_an_empty_office_file_with_a_thumbnail_is_called_empty(tika):
    """A word-processor file of empty table cells with a saved thumbnail: no text,
    and the thumbnail holds none either, so the error says the document is empty,
    not that its text lies in resources left out."""
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    rel = "http://schemas.openxmlformats.org/"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as docx:
        docx.writestr("[Content_Types].xml", (
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/'
            '2006/content-types"><Default Extension="xml" ContentType="application/xml"/>'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="jpeg" ContentType="image/jpeg"/>'
            '<Override PartName="/word/document.xml" ContentType="application/vnd.'
            'openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'))
        docx.writestr("_rels/.rels", (
            f'<?xml version="1.0"?><Relationships xmlns="{rel}package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel}officeDocument/2006/relationships/'
            'officeDocument" Target="word/document.xml"/><Relationship Id="rId2" '
            f'Type="{rel}package/2006/relationships/metadata/thumbnail" '
            'Target="docProps/thumbnail.jpeg"/></Relationships>'))
        docx.writestr("word/document.xml", (
            f'<?xml version="1.0"?><w:document xmlns:w="{w}"><w:body><w:tbl><w:tr><w:tc><w:p/>'
            '</w:tc><w:tc><w:p/></w:tc></w:tr></w:tbl><w:p/></w:body></w:document>'))
        docx.writestr("docProps/thumbnail.jpeg", b"\xff\xd8\xff\xe0" + b"\0" * 64)
    with pytest.raises(EmptyDocumentError) as raised:
        _extract(tika, buffer.getvalue(), "empty.docx")
    assert "the document is empty" in str(raised.value)


def test_a_marker_s_text_runs_to_the_next_page_and_unnamed_entries_stay():
    xhtml = ('<html xmlns="http://www.w3.org/1999/xhtml"><body>'
             '<div class="page"><p>page one</p></div>'
             '<div class="embedded" source="attachment" id="x.bin" /><p>blob one</p>tail'
             '<div class="page"><p>page two</p></div>'
             '<div class="package-entry"><p>mail body</p></div>'
             '<div class="package-entry"><h1>pic.png</h1><p>ocr text</p></div>'
             '</body></html>')
    parsed = parse_tika_xhtml(xhtml)
    assert [b.text for b in parsed.blocks] == ["page one", "page two", "mail body"]
    assert [(r.name, r.chars) for r in parsed.embedded] == [("x.bin", 12), ("pic.png", 8)]
    assert parsed.raw_text == "page onepage twomail body"


def test_a_web_page_s_own_embedded_class_is_content():
    from lxml import etree

    from ragbeam.transforms.extract.xhtml import parse_body

    body = etree.fromstring('<body><div class="embedded"><p>A video caption.</p></div></body>')
    parsed = parse_body(body)
    assert [b.text for b in parsed.blocks] == ["A video caption."] and not parsed.embedded
