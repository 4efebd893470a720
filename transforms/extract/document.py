"""Turn Tika's answer for one file into an ``ExtractedDocument`` (pure)."""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragbeam.transforms.clean.document import clean_or_refuse
from ragbeam.transforms.cores import available_cores
from ragbeam.transforms.errors import INCOMPLETE_KEY, OCR_UNAVAILABLE, TRUNCATED_FILE
from ragbeam.transforms.extract.backends import pdf_start, with_ocr
from ragbeam.transforms.extract.guards import ArchiveLimits, check_archive, check_extracted_text
from ragbeam.transforms.extract.layout import pdf_layout
from ragbeam.transforms.extract.ocr import (
    OCR_NOTE_KEY,
    OCR_PAGES_KEY,
    PICTURE_PACKAGE_TYPES,
    OcrTimeLimit,
    OcrUnavailable,
    pending_pages,
    pictures_only,
)
from ragbeam.transforms.extract.readers import reader_for
from ragbeam.transforms.extract.text_bytes import single_byte_text, utf16_text
from ragbeam.transforms.extract.truncation import truncated_zip
from ragbeam.transforms.extract.xhtml import text_file_xhtml
from ragbeam.transforms.garbage import GARBAGE_SHARE, garbage_share
from ragbeam.transforms.read.naming import no_text_reason, unsupported_by_design
from ragbeam.transforms.types import (
    Block,
    CleanedExtraction,
    ExtractedDocument,
    FetchedFile,
    PdfLayout,
    SourceFile,
)

if TYPE_CHECKING:
    from ragbeam.transforms.clean.base import CleanOptions
    from ragbeam.transforms.extract.isolation import IsolatedExtractor


class EmptyDocumentError(Exception):
    """Extraction succeeded but produced no usable text."""


class UnsupportedDocumentError(EmptyDocumentError):
    """No text, from a file ragbeam cannot index by design (audio, video, an image
    without text read, a program): its row is ``unsupported``, not ``error``. The
    class name is ``transforms.errors.UNSUPPORTED_ERROR_TYPE``."""


class UnreadableTextError(Exception):
    """The extracted text reads as binary data or encoding garbage (``garbage.py``):
    a file that is not what its type says, or text in another encoding than Tika
    took. Never chunked: it would fill a store with junk that matches nothing."""


class EncryptedDocumentError(Exception):
    """The document is password-protected; Tika returns empty text for it."""


# Document metadata: how many of Tika's lines the PDF layout pass placed, or why it
# could not read the file.
LAYOUT_LINES_KEY = "extract_layout_lines"
LAYOUT_ERROR_KEY = "extract_layout_error"
# Document metadata: bytes before a PDF's header, not read (``backends.pdf_start``).
SKIPPED_BYTES_KEY = "extract_skipped_leading_bytes"
# Document metadata: embedded resources left out of the text (xhtml.py), their count
# and, as JSON, each one's name, source, characters and the reason.
EMBEDDED_LEFT_OUT_KEY = "extract_embedded_left_out"
EMBEDDED_RESOURCES_KEY = "extract_embedded_resources"
MAX_RECORDED_RESOURCES = 200
_TITLE_KEYS = ("dc:title", "title", "pdf:docinfo:title", "subject")
_LANGUAGE_KEYS = ("dc:language", "language", "Content-Language")
_PAGE_KEYS = ("xmpTPg:NPages", "meta:page-count", "Page-Count", "meta:slide-count")
_ENCRYPTED_KEYS = ("pdf:encrypted", "encrypted")
# Tika's media type for an OOXML file under a password (its encrypted package): Tika
# sets no encryption key for it.
_ENCRYPTED_TYPES = frozenset({"application/x-tika-ooxml-protected"})


def _first(metadata: dict[str, list[str]], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        for value in metadata.get(key, ()):
            if value and value.strip():
                return value.strip()
    return None


# Java's default ``toString`` (``org.apache.tika.parser.image.JpegParser@66d5652a``)
# ends in the object's identity hash, different in every run: Tika's exception
# messages quote parsers so, and the documents table must be the same for the same
# input (determinism), so the hash is dropped.
_JAVA_IDENTITY_HASH = re.compile(r"(?<=[A-Za-z0-9_$])@[0-9a-f]{1,8}\b")


def flatten_metadata(metadata: dict[str, list[str]]) -> dict[str, str]:
    """Tika metadata as ``key → value`` (multi-valued keys joined with ``; ``), Tika's
    exception texts without Java identity hashes."""
    flat = {k: "; ".join(v for v in values if v) for k, values in sorted(metadata.items())}
    for key, value in flat.items():
        if key.startswith("X-TIKA:EXCEPTION:") and "@" in value:
            flat[key] = _JAVA_IDENTITY_HASH.sub("", value)
    return flat


def media_type_of(metadata: dict[str, list[str]]) -> str:
    content_type = _first(metadata, ("Content-Type",)) or "application/octet-stream"
    return content_type.split(";", 1)[0].strip().lower()


_TAG = re.compile(r"<[^>]*>")


def _holds_text(xhtml: str) -> bool:
    """Whether Tika's XHTML body has any text at all, embedded resources' included."""
    body = xhtml.find("<body")
    return bool(_TAG.sub("", xhtml[body:] if body >= 0 else xhtml).strip())


def build_extracted_document(
    fetched: FetchedFile, xhtml: str, metadata: dict[str, list[str]]
) -> ExtractedDocument:
    """Parse Tika's XHTML and metadata by the format's reader (``readers.py``); refuse
    empty or encrypted results."""
    media_type = media_type_of(metadata)
    reader = reader_for(fetched.source.uri, media_type, metadata)
    parsed = reader.structure(fetched, xhtml, media_type, metadata)
    if (by_text := reader.for_text(parsed.raw_text)) is not reader:
        reader, parsed = by_text, by_text.structure(fetched, xhtml, media_type, metadata)
    media_type = reader.file_type(media_type)
    if not parsed.raw_text.strip():
        if pictures := pictures_only(xhtml) if media_type in PICTURE_PACKAGE_TYPES else []:
            raise _no_text_in_pictures(len(pictures), metadata)
        if parsed.embedded and _holds_text(xhtml):
            raise EmptyDocumentError(
                f"no text of its own: {len(parsed.embedded)} embedded resource(s) "
                f"(attachments, archive members) left out, which are not extracted as "
                f"documents of their own")
        if parsed.embedded:
            # Nothing left out holds text either (an office file's thumbnail, its
            # pictures): the document is empty, not its text elsewhere.
            raise EmptyDocumentError(
                f"no text: the document is empty (its {len(parsed.embedded)} embedded "
                f"resource(s), such as a thumbnail or pictures, hold no text either)")
        if ((_first(metadata, _ENCRYPTED_KEYS) or "").lower() == "true"
                or media_type_of(metadata) in _ENCRYPTED_TYPES):
            raise EncryptedDocumentError(
                "document is encrypted (password-protected): Tika extracted no text"
            )
        if media_type_of(metadata) == "application/octet-stream":
            if (found := single_byte_text(fetched.data)) is not None:
                # Text Tika's detector took for binary data (a short note in Latin-1):
                # read as the text file it is.
                text, charset = found
                content_type = f"text/plain; charset={charset}"
                return build_extracted_document(
                    fetched, text_file_xhtml(text, content_type),
                    {**metadata, "Content-Type": [content_type]})
            raise EmptyDocumentError(
                "no text could be extracted: Tika does not recognise the format "
                "(detected application/octet-stream: binary or random data?)"
            )
        ocr_note = _first(metadata, (OCR_NOTE_KEY,))
        incomplete = _first(metadata, (INCOMPLETE_KEY,))
        if ocr_note and incomplete == OCR_UNAVAILABLE:  # transient: a later run reads it
            raise OcrUnavailable(f"no text could be extracted: {ocr_note}")
        if ocr_note and incomplete:  # transient: retried
            raise OcrTimeLimit(f"no text could be extracted: {ocr_note}")
        ocr_pages = _first(metadata, (OCR_PAGES_KEY,)) or "0"
        if ocr_note:
            reason = f"no text could be extracted: {ocr_note}"
        elif ocr_pages != "0":
            reason = f"no text could be extracted: OCR of {ocr_pages} page(s) found none"
        else:
            reason = no_text_reason(media_type_of(metadata))
        if unsupported_by_design(media_type_of(metadata)):
            raise UnsupportedDocumentError(reason)
        raise EmptyDocumentError(reason)
    if (share := garbage_share(parsed.raw_text)) >= GARBAGE_SHARE:
        raise UnreadableTextError(
            f"the extracted text reads as binary data or encoding garbage ({share:.0%} of it, "
            f"by its mess ratio): not indexed; Tika took the file for {media_type}: is it "
            "one, in the encoding it declares?")
    page_count_text = _first(metadata, _PAGE_KEYS)
    page_count = int(page_count_text) if page_count_text and page_count_text.isdigit() else None
    if page_count is None and parsed.page_count:
        page_count = parsed.page_count
    flat = flatten_metadata(metadata)
    flat[EMBEDDED_LEFT_OUT_KEY] = str(len(parsed.embedded))
    if parsed.embedded:
        flat[EMBEDDED_RESOURCES_KEY] = json.dumps(
            [resource.record() for resource in parsed.embedded[:MAX_RECORDED_RESOURCES]],
            ensure_ascii=False)
    flat.update(reader.metadata(fetched, xhtml, media_type, parsed, metadata))
    if INCOMPLETE_KEY not in flat and truncated_zip(fetched.data):
        flat[INCOMPLETE_KEY] = TRUNCATED_FILE  # Tika read the parts before the cut
    layout = (read_pdf_layout(fetched.data, parsed.raw_text, parsed.blocks, flat)
              if reader.layout else None)
    return ExtractedDocument(
        source=fetched.source,
        content_hash=fetched.content_hash,
        media_type=media_type,
        raw_text=parsed.raw_text,
        blocks=tuple(parsed.blocks),
        metadata=flat,
        page_count=page_count,
        title=_first(metadata, _TITLE_KEYS) or parsed.title or reader.title(flat),
        language=_first(metadata, _LANGUAGE_KEYS),
        layout=layout,
        lines=reader.lines,
    )


def _no_text_in_pictures(count: int, metadata: dict[str, list[str]]) -> Exception:
    """Why an office document whose only content is ``count`` pictures has no text:
    OCR could not run (transient), or read none (``unsupported``, as a picture file
    without text is)."""
    ocr_note = _first(metadata, (OCR_NOTE_KEY,))
    incomplete = _first(metadata, (INCOMPLETE_KEY,))
    if ocr_note and incomplete == OCR_UNAVAILABLE:
        return OcrUnavailable(f"no text could be extracted: {ocr_note}")
    if ocr_note and incomplete:
        return OcrTimeLimit(f"no text could be extracted: {ocr_note}")
    what = f"its only content is {count} picture(s)"
    if _first(metadata, (OCR_PAGES_KEY,)) is None:
        return UnsupportedDocumentError(f"no text could be extracted: {what}, and OCR is off "
                                        "(--ocr auto reads them, with Tesseract installed)")
    found = f": {ocr_note}" if ocr_note else ""
    return UnsupportedDocumentError(f"no text could be extracted: {what}, in which OCR read "
                                    f"no text{found}")


def read_pdf_layout(data: bytes, raw_text: str, blocks: list[Block],
                    metadata: dict[str, str]) -> PdfLayout | None:
    """The PDF's layout aligned to Tika's text (``layout.py``), or None where PDFium
    cannot read the file (Tika could: its text stands, cleaning goes by text alone);
    ``metadata`` gets ``extract_layout_lines`` (Tika's lines placed) or
    ``extract_layout_error``."""
    try:
        layout = pdf_layout(data, raw_text, blocks)
    except Exception as exc:  # PDFium's own errors: a file Tika reads and PDFium refuses
        metadata[LAYOUT_ERROR_KEY] = f"{type(exc).__name__}: {exc}"[:300]
        return None
    metadata[LAYOUT_LINES_KEY] = str(len(layout.lines))
    return layout


@dataclass(frozen=True)
class AwaitingOcr:
    """Tika's answer for a document with pages left to OCR (``ocr.py``): the child
    hands it back as it is, and its parent reads those pages over the pool's cores
    before it builds the document."""

    xhtml: str
    metadata: dict[str, list[str]]


@dataclass(frozen=True)
class DocumentFromTika:
    """``build_extracted_document`` plus the text-size guard, and with ``clean``
    the cleaning too (``clean_extracted``), as one picklable step.

    The Extract stage hands it to its isolated extraction children when it has two
    or more (``isolation.py``, ``then``), so XHTML parsing and cleaning run in the
    children, in parallel, and a child sends back the cleaned document instead of
    the XHTML. The extraction's exceptions (``EmptyDocumentError``,
    ``TextTooLargeError``…) reach the caller unchanged; a cleaning error travels
    inside the ``CleanedExtraction``, for the Clean stage to report as its own.
    """

    source: SourceFile
    content_hash: str
    max_text_chars: int
    clean: CleanOptions | None = None
    # Bytes before the PDF's header that extraction skipped (``backends.pdf_start``).
    skipped_bytes: int = 0

    def __call__(self, data: bytes, xhtml: str, metadata: dict[str, list[str]]
                 ) -> ExtractedDocument | CleanedExtraction | AwaitingOcr:
        if pending_pages(metadata) is not None:
            return AwaitingOcr(xhtml, metadata)
        if self.skipped_bytes:
            metadata = {**metadata, SKIPPED_BYTES_KEY: [str(self.skipped_bytes)]}
        fetched = FetchedFile(self.source, data, self.content_hash)
        document = build_extracted_document(fetched, xhtml, metadata)
        check_extracted_text(len(document.raw_text), metadata, self.max_text_chars)
        if self.clean is None:
            return document
        return clean_extracted(document, self.clean)


def clean_extracted(extracted: ExtractedDocument, options: CleanOptions) -> CleanedExtraction:
    """The Clean stage's rule (``clean_or_refuse``) on one extracted document, timed; a
    refusal or any other exception becomes the record's ``error``. The same call in an
    extraction child and in this process (``settings.ExtractionSettings.cleaned``)."""
    started = time.perf_counter()
    try:
        cleaned, error = clean_or_refuse(extracted, options), None
    except Exception as exc:
        cleaned, error = None, (type(exc).__name__, str(exc))
    return CleanedExtraction(extracted.source, extracted.content_hash, extracted.media_type,
                             extracted.metadata, cleaned, error,
                             int((time.perf_counter() - started) * 1000))


def extract_fetched(fetched: FetchedFile, extractor: IsolatedExtractor, *, in_child: bool,
                    max_text_chars: int, clean: CleanOptions | None,
                    archive_limits: ArchiveLimits, ocr_workers: int | None = None
                    ) -> ExtractedDocument | CleanedExtraction:
    """One file through one isolated child: the archive guard, Tika, then XHTML
    parsing, the text limit and (``in_child``, with ``clean``) cleaning.

    ``in_child``: the child parses and cleans too (a pool of several children,
    where this process's one Python thread would otherwise be the bottleneck);
    else the child only extracts and parsing happens here, while it is idle, and
    the caller cleans (``ExtractionSettings.cleaned``). Pages the child left to OCR
    are read here, ``ocr_workers`` at a time (default: the cores), and the document
    is then parsed here and left to the caller to clean.
    """
    check_archive(fetched.data, archive_limits)
    name = posixpath.basename(fetched.source.uri)
    if skipped := pdf_start(fetched.data):  # Tika, OCR and the layout read the PDF itself
        fetched = dataclasses.replace(fetched, data=fetched.data[skipped:])
    elif (text := utf16_text(fetched.data)) is not None:
        # UTF-16 without a byte-order mark, which Tika's detector takes for binary
        # data: Tika reads it as UTF-8 (a saved mail is still read as mail).
        fetched = dataclasses.replace(fetched, data=text.encode())
    build = DocumentFromTika(fetched.source, fetched.content_hash, max_text_chars,
                             skipped_bytes=skipped)
    if in_child:
        result = extractor.extract(fetched.data, name, dataclasses.replace(build, clean=clean))
        if not isinstance(result, AwaitingOcr):
            return result
        xhtml, metadata = result.xhtml, result.metadata
    else:
        xhtml, metadata = extractor.extract(fetched.data, name)
    if pending_pages(metadata) is not None:
        xhtml, metadata = with_ocr(fetched.data, xhtml, metadata,
                                   extractor.backend_spec[1]["ocr"],
                                   ocr_workers or available_cores())
    document = build(fetched.data, xhtml, metadata)
    assert not isinstance(document, AwaitingOcr)
    return document


def with_source(result: ExtractedDocument | CleanedExtraction, source: SourceFile
                ) -> ExtractedDocument | CleanedExtraction:
    """``result`` as if extracted from ``source``: the same file (same URI and bytes)
    as the result's, listed at another moment (the early start, ``early.py``)."""
    if result.source == source:
        return result
    if isinstance(result, CleanedExtraction) and result.document is not None:
        return dataclasses.replace(result, source=source,
                                   document=dataclasses.replace(result.document, source=source))
    return dataclasses.replace(result, source=source)
