"""Rows of the ``documents`` and ``errors`` tables (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragbeam.schemas.documents import STATUS_ERROR, STATUS_OK
from ragbeam.transforms.types import Document, Failure


def ok_document_row(
    doc: Document,
    config_hash: str,
    strategy: str,
    chunk_count: int,
    metadata: Mapping[str, str],
) -> dict[str, Any]:
    return {
        "doc_id": doc.doc_id,
        "source_uri": doc.source.uri,
        "content_hash": doc.content_hash,
        "status": STATUS_OK,
        "error": None,
        "media_type": doc.media_type,
        "title": doc.title,
        "language": doc.language,
        "page_count": doc.page_count,
        "bytes": doc.source.size_bytes,
        "char_count": len(doc.text),
        "chunk_count": chunk_count,
        "strategy": strategy,
        "config_hash": config_hash,
        "text": doc.text,
        "metadata": dict(metadata),
    }


def error_document_row(failure: Failure, config_hash: str) -> dict[str, Any]:
    return {
        "doc_id": failure.source.doc_id,
        "source_uri": failure.source.uri,
        "content_hash": failure.content_hash,
        "status": STATUS_ERROR,
        "error": f"{failure.stage}: {failure.error_type}: {failure.message}",
        "media_type": failure.media_type,
        "title": None,
        "language": None,
        "page_count": None,
        "bytes": failure.source.size_bytes,
        "char_count": None,
        "chunk_count": 0,
        "strategy": None,
        "config_hash": config_hash,
        "text": None,
        "metadata": {"error_stage": str(failure.stage), "error_type": failure.error_type},
    }


def error_row(failure: Failure) -> dict[str, Any]:
    return {
        "source_uri": failure.source.uri,
        "doc_id": failure.source.doc_id,
        "stage": str(failure.stage),
        "error_type": failure.error_type,
        "message": failure.message,
    }
