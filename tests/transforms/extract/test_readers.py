"""The registry of input formats (``extract/readers.py``): which reader reads a file, and
that a format added as a newcomer adds one (a module declaring its ``Reader``, a line in
``READERS``) is read, cleaned and routed with nothing else changed. Real Tika answers for
the formats themselves: test_structure.py."""

from __future__ import annotations

import re
import textwrap
from types import MappingProxyType

import pytest

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.extract import readers
from ragbeam.transforms.extract.document import build_extracted_document
from ragbeam.transforms.extract.reader import Reader
from ragbeam.transforms.extract.readers import READERS, TIKA, reader_for
from ragbeam.transforms.extract.xhtml import ParsedXhtml
from ragbeam.transforms.types import Block, BlockKind, FetchedFile, LineKind, SourceFile


@pytest.mark.parametrize(("uri", "media_type", "metadata", "name"), [
    ("/a/notes.md", "text/plain", {}, "markdown"),  # by its name: Tika saw plain text
    ("/a/notes.txt", "text/markdown", {}, "markdown"),
    ("/a/notes.txt", "text/plain", {}, "plain_text"),
    ("/a/renamed.md", "application/pdf", {}, "pdf"),  # content wins over the name
    ("/a/page.html", "text/html", {}, "html"),
    ("/a/book.epub", "application/epub+zip", {}, "epub"),
    ("/a/m.eml", "message/rfc822", {}, "mail"),
    ("/a/m.mbox", "application/mbox", {}, "mail"),
    ("/a/m.msg", "application/vnd.ms-outlook", {}, "mail"),
    ("/a/m.news", "message/news", {"Message-From": ["a@b"]}, "mail"),  # mail headers found
    ("/a/s.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
     {}, "tika"),
])
def test_the_first_reader_that_claims_a_file_reads_it(uri, media_type, metadata, name):
    assert reader_for(uri, media_type, metadata).name == name


def test_readers_declare_how_their_lines_were_written():
    assert READERS["pdf"].lines is LineKind.PRINTED and READERS["pdf"].layout
    assert READERS["plain_text"].lines is LineKind.TYPED
    assert TIKA.lines is LineKind.AS_WRITTEN and not TIKA.layout
    assert len({r.name for r in READERS.values()}) == len(READERS)
    claimed = [t for r in READERS.values() for t in r.media_types]
    assert len(claimed) == len(set(claimed))  # no media type read two ways


class AsciiDocReader(Reader):
    """A newcomer's format: AsciiDoc, whose ``= Title`` lines are headings (Tika reads
    it as plain text); its lines are typed, as plain text's."""

    name = "asciidoc"
    media_types = frozenset({"text/x-asciidoc"})
    lines = LineKind.TYPED

    def claims(self, uri: str, media_type: str, metadata) -> bool:
        return uri.endswith(".adoc") or media_type in self.media_types

    def file_type(self, media_type: str) -> str:
        return "text/x-asciidoc"

    def structure(self, fetched: FetchedFile, xhtml: str, media_type: str,
                  metadata) -> ParsedXhtml:
        text = fetched.data.decode("utf-8")
        blocks, at = [], 0
        for part in text.split("\n\n"):
            heading = re.match(r"(=+) (.*)", part)
            kind = BlockKind.HEADING if heading else BlockKind.PARAGRAPH
            blocks.append(Block(kind, heading.group(2) if heading else part, None,
                                len(heading.group(1)) if heading else 0, at, at + len(part)))
            at += len(part) + 2
        return ParsedXhtml(raw_text=text, blocks=blocks)

    def metadata(self, fetched, xhtml, media_type, parsed, metadata) -> dict[str, str]:
        return {"asciidoc:headings": str(sum(b.kind is BlockKind.HEADING for b in parsed.blocks))}


def test_a_new_format_is_its_reader_and_one_line_in_the_registry(monkeypatch):
    monkeypatch.setattr(readers, "READERS", MappingProxyType(
        {"asciidoc": AsciiDocReader(), **READERS}))
    prose = textwrap.fill(
        "The tool reads the files of a folder, cleans their text, cuts it into chunks "
        "that fit an embedding model's window, and writes those chunks to tables that a "
        "search index takes in whole, so that every answer names the page it came from. "
        "Nothing is downloaded while it runs, and nothing is lost when a file fails.", 60)
    text = f"= Guide\n\n{prose}\n\n{prose}\n\n== Install\n\n{prose}"
    data = text.encode("utf-8")
    fetched = FetchedFile(SourceFile("/docs/guide.adoc", "d", len(data)), data, "h")
    # What Tika answers for a text it cannot parse further: plain text.
    metadata = {"Content-Type": ["text/plain; charset=UTF-8"]}
    extracted = build_extracted_document(fetched, f"<html><body><p>{text}</p></body></html>",
                                         metadata)
    assert extracted.media_type == "text/x-asciidoc" and extracted.lines is LineKind.TYPED
    assert [(b.kind, b.level) for b in extracted.blocks] == [
        (BlockKind.HEADING, 1), (BlockKind.PARAGRAPH, 0), (BlockKind.PARAGRAPH, 0),
        (BlockKind.HEADING, 2), (BlockKind.PARAGRAPH, 0)]
    assert extracted.metadata["asciidoc:headings"] == "2"
    doc = clean_document(extracted, CleanOptions())
    heading_texts = [doc.text[s.start:s.end] for s in doc.spans if s.kind is BlockKind.HEADING]
    assert heading_texts == ["Guide", "Install"]
    # Typed lines: the hard-wrapped paragraph is joined, as plain text's would be.
    assert doc.text.count(" ".join(prose.split("\n"))) == 3
