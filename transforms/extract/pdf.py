"""PDF: Tika's XHTML, the outline's headings (``outline.py``; without an outline, a
tagged PDF's heading elements, ``tagged.py``), the page's links and
comments (annotations, never text: ``xhtml.py``), and the layout pass (``layout.py``:
where each line sits, how it is set). Printed lines: hard-wrapped, hyphenated, with
page furniture."""

from __future__ import annotations

import json

from ragbeam.transforms.clean.headings import OUTLINE_KEY, TAGGED_HEADINGS_KEY
from ragbeam.transforms.extract.outline import outline_value, pdf_outline, with_pages
from ragbeam.transforms.extract.reader import Reader, TikaMetadata
from ragbeam.transforms.extract.tagged import tagged_headings
from ragbeam.transforms.extract.xhtml import ParsedXhtml
from ragbeam.transforms.types import FetchedFile, LineKind

# Document metadata: a PDF's annotations, kept out of its text (xhtml.py), as JSON
# lists: each link's page and URI (once per page), and each comment's page and text.
LINKS_KEY = "extract_links"
ANNOTATIONS_KEY = "extract_annotations"
MAX_RECORDED_ANNOTATIONS = 2000


class PdfReader(Reader):
    name = "pdf"
    media_types = frozenset({"application/pdf"})
    lines = LineKind.PRINTED
    layout = True

    def metadata(self, fetched: FetchedFile, xhtml: str, media_type: str,
                 parsed: ParsedXhtml, metadata: TikaMetadata) -> dict[str, str]:
        found = annotation_metadata(parsed)
        if outline := pdf_outline(xhtml):
            found[OUTLINE_KEY] = outline_value(with_pages(outline, fetched.data))
        elif tagged := tagged_headings(fetched.data):  # no outline: the structure tree's
            found[TAGGED_HEADINGS_KEY] = outline_value(tagged)
        return found


def annotation_metadata(parsed: ParsedXhtml) -> dict[str, str]:
    """``extract_links`` and ``extract_annotations`` of a document whose XHTML had
    annotations (none: no keys): where a page's links and comments are kept."""
    links = list(dict.fromkeys((a.page, a.uri) for a in parsed.annotations if a.uri))
    notes = [a.record() for a in parsed.annotations if not a.uri]
    found: dict[str, str] = {}
    if links:
        found[LINKS_KEY] = json.dumps(
            [{"page": page, "uri": uri} if page is not None else {"uri": uri}
             for page, uri in links[:MAX_RECORDED_ANNOTATIONS]], ensure_ascii=False)
    if notes:
        found[ANNOTATIONS_KEY] = json.dumps(notes[:MAX_RECORDED_ANNOTATIONS],
                                            ensure_ascii=False)
    return found
