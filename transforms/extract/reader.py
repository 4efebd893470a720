"""What every input format's reader is (``readers.py`` registers them): the media types it
reads, how it reads a file's structure from Tika's answer (by default, Tika's XHTML as
it is: ``xhtml.py``), what it adds to the document's metadata and what it calls
the document, whether the PDF layout
pass reads where its lines sit (``layout.py``), and how its lines were written
(``LineKind``: what cleaning may join). A format is one module declaring its reader."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import ClassVar

from ragbeam.transforms.clean.links import LINKS_KEY
from ragbeam.transforms.extract.xhtml import ParsedXhtml, parse_tika_xhtml
from ragbeam.transforms.types import FetchedFile, LineKind

# Tika's metadata: every key with its values.
TikaMetadata = Mapping[str, list[str]]
# Document metadata: the annotations kept out of a document's text (xhtml.py), as JSON
# lists: each link's page and URI (once per page, ``LINKS_KEY``), and each comment's
# page and text.
ANNOTATIONS_KEY = "extract_annotations"
MAX_RECORDED_ANNOTATIONS = 2000


class Reader:
    """A format Tika's XHTML describes as it is (the reader of any media type no other
    reader claims)."""

    name: ClassVar[str] = "tika"
    media_types: ClassVar[frozenset[str]] = frozenset()
    lines: ClassVar[LineKind] = LineKind.AS_WRITTEN
    layout: ClassVar[bool] = False  # the PDF layout pass reads where each line sits

    def claims(self, uri: str, media_type: str, metadata: TikaMetadata) -> bool:
        """Whether this reader reads the file ``uri`` Tika detected as ``media_type``."""
        return media_type in self.media_types

    def file_type(self, media_type: str) -> str:
        """What the file is (its row's ``media_type``), from what Tika detected."""
        return media_type

    def structure(self, fetched: FetchedFile, xhtml: str, media_type: str,
                  metadata: TikaMetadata) -> ParsedXhtml:
        """The document's text and blocks."""
        return parse_tika_xhtml(xhtml)

    def for_text(self, raw_text: str) -> Reader:
        """The reader of a file whose text reads as another format than its type says
        (plain text written in Markdown, ``plain_text.py``); by default this one."""
        return self

    def metadata(self, fetched: FetchedFile, xhtml: str, media_type: str,
                 parsed: ParsedXhtml, metadata: TikaMetadata) -> dict[str, str]:
        """What the format adds to the document's metadata (Tika's own is there): by
        default the annotations kept out of its text."""
        return annotation_metadata(parsed)

    def title(self, metadata: Mapping[str, str]) -> str | None:
        """What the format itself calls the document, where Tika reports no title
        (``metadata``: the document's, this reader's keys included)."""
        return None


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
