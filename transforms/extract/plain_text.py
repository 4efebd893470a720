"""Plain text: Tika's text as it is; its lines are typed, joined only where the text is
hard-wrapped (``clean/linejoin.py``). Markdown is plain text Tika cannot tell apart:
``markdown.py`` claims it by its name first, and a ``.txt`` whose text is written in
Markdown (a README or an exported note saved as text) is handed to it by its content
(``markdown.reads_as_markdown``): its headings, lists and tables are the document's."""

from __future__ import annotations

from ragbeam.transforms.extract.markdown import MarkdownReader, reads_as_markdown
from ragbeam.transforms.extract.reader import Reader, TikaMetadata
from ragbeam.transforms.extract.xhtml import (
    ParsedXhtml,
    parse_tika_xhtml,
    tika_charset,
    with_file_text,
)
from ragbeam.transforms.types import FetchedFile, LineKind

_MARKDOWN = MarkdownReader()


class PlainTextReader(Reader):
    name = "plain_text"
    media_types = frozenset({"text/plain"})
    lines = LineKind.TYPED

    def structure(self, fetched: FetchedFile, xhtml: str, media_type: str,
                  metadata: TikaMetadata) -> ParsedXhtml:
        return parse_tika_xhtml(with_file_text(xhtml, fetched.data, tika_charset(metadata)))

    def for_text(self, raw_text: str) -> Reader:
        return _MARKDOWN if reads_as_markdown(raw_text) else self
