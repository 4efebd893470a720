"""The registry of input formats: which reader reads a file, as ``STRATEGIES`` names the
chunking strategies and ``STORES`` the vector stores. Each format is one module
declaring its ``Reader`` (``reader.py``): the media types it reads, how it reads their
structure, what it adds to the metadata, and how its lines were written. A new format
is its module and one line in ``READERS``; a file no reader claims is read as Tika's
XHTML describes it (``Reader``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ragbeam.transforms.extract.html import EpubReader, HtmlReader
from ragbeam.transforms.extract.mail import MailReader
from ragbeam.transforms.extract.markdown import MarkdownReader
from ragbeam.transforms.extract.pdf import PdfReader
from ragbeam.transforms.extract.plain_text import PlainTextReader
from ragbeam.transforms.extract.reader import Reader, TikaMetadata
from ragbeam.transforms.extract.slides import PptxReader

# Asked in this order: the first that claims a file reads it (Markdown claims plain text
# by its name before plain text does; mail claims any type Tika found mail headers in).
READERS: Mapping[str, Reader] = MappingProxyType({reader.name: reader for reader in (
    MarkdownReader(),
    HtmlReader(),
    EpubReader(),
    PdfReader(),
    PlainTextReader(),
    MailReader(),
    PptxReader(),
)})
TIKA = Reader()


def reader_for(uri: str, media_type: str, metadata: TikaMetadata) -> Reader:
    """The reader of the file ``uri`` that Tika detected as ``media_type``."""
    return next((r for r in READERS.values() if r.claims(uri, media_type, metadata)), TIKA)
