"""PDF: Tika's XHTML, the outline's headings (``outline.py``), the page's links and
comments (annotations, never text: ``xhtml.py``), and the layout pass (``layout.py``:
where each line sits, how it is set). Printed lines: hard-wrapped, hyphenated, with
page furniture."""

from __future__ import annotations

from ragbeam.transforms.clean.headings import OUTLINE_KEY
from ragbeam.transforms.extract.outline import outline_value, pdf_outline, with_pages
from ragbeam.transforms.extract.reader import Reader, TikaMetadata
from ragbeam.transforms.extract.xhtml import ParsedXhtml
from ragbeam.transforms.types import FetchedFile, LineKind


class PdfReader(Reader):
    name = "pdf"
    media_types = frozenset({"application/pdf"})
    lines = LineKind.PRINTED
    layout = True

    def metadata(self, fetched: FetchedFile, xhtml: str, media_type: str,
                 parsed: ParsedXhtml, metadata: TikaMetadata) -> dict[str, str]:
        found = super().metadata(fetched, xhtml, media_type, parsed, metadata)
        if outline := pdf_outline(xhtml):
            found[OUTLINE_KEY] = outline_value(with_pages(outline, fetched.data))
        return found
