"""Turn Tika's answer for one file into an ``ExtractedDocument`` (pure)."""

from __future__ import annotations

from ragbeam.transforms.extract.xhtml import parse_tika_xhtml
from ragbeam.transforms.types import ExtractedDocument, FetchedFile


class EmptyDocumentError(Exception):
    """Extraction succeeded but produced no usable text."""


class EncryptedDocumentError(Exception):
    """The document is password-protected; Tika returns empty text for it."""


_TITLE_KEYS = ("dc:title", "title", "pdf:docinfo:title", "subject")
_LANGUAGE_KEYS = ("dc:language", "language", "Content-Language")
_PAGE_KEYS = ("xmpTPg:NPages", "meta:page-count", "Page-Count", "meta:slide-count")
_ENCRYPTED_KEYS = ("pdf:encrypted", "encrypted")


def _first(metadata: dict[str, list[str]], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        for value in metadata.get(key, ()):
            if value and value.strip():
                return value.strip()
    return None


def flatten_metadata(metadata: dict[str, list[str]]) -> dict[str, str]:
    """Tika metadata as ``key → value`` (multi-valued keys joined with ``; ``)."""
    return {k: "; ".join(v for v in values if v) for k, values in sorted(metadata.items())}


def media_type_of(metadata: dict[str, list[str]]) -> str:
    content_type = _first(metadata, ("Content-Type",)) or "application/octet-stream"
    return content_type.split(";", 1)[0].strip().lower()


def build_extracted_document(
    fetched: FetchedFile, xhtml: str, metadata: dict[str, list[str]]
) -> ExtractedDocument:
    """Parse Tika's XHTML and metadata; refuse empty or encrypted results."""
    parsed = parse_tika_xhtml(xhtml)
    if not parsed.raw_text.strip():
        if (_first(metadata, _ENCRYPTED_KEYS) or "").lower() == "true":
            raise EncryptedDocumentError(
                "document is encrypted (password-protected): Tika extracted no text"
            )
        if media_type_of(metadata) == "application/octet-stream":
            raise EmptyDocumentError(
                "no text could be extracted: Tika does not recognise the format "
                "(detected application/octet-stream: binary or random data?)"
            )
        raise EmptyDocumentError(
            "no text could be extracted (an image-only/scanned document needs OCR, "
            "or the file has no textual content)"
        )
    page_count_text = _first(metadata, _PAGE_KEYS)
    page_count = int(page_count_text) if page_count_text and page_count_text.isdigit() else None
    if page_count is None and parsed.page_count:
        page_count = parsed.page_count
    return ExtractedDocument(
        source=fetched.source,
        content_hash=fetched.content_hash,
        media_type=media_type_of(metadata),
        raw_text=parsed.raw_text,
        blocks=tuple(parsed.blocks),
        metadata=flatten_metadata(metadata),
        page_count=page_count,
        title=_first(metadata, _TITLE_KEYS) or parsed.title,
        language=_first(metadata, _LANGUAGE_KEYS),
    )
