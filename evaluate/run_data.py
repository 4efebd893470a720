"""A finished run's output, read back with pyarrow into plain records.

Works on any Beam filesystem (``transforms/write/read.py``), so ``eval`` can
read a run written to ``gs://`` as well as a local directory.

``ChunkRecord`` and ``DocumentRecord`` are evaluation's read-only views of a row of
the chunks and documents tables (the columns evaluation reads, with attribute
access and defaults for older runs); the tables' one row type each is in
``ragbeam.schemas`` (``ChunkRow``, ``DocumentRow``), and the columns read here are
checked to be among its columns (``tests/evaluate/test_run_data.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ragbeam.schemas.chunks import has_text_vectors
from ragbeam.transforms.write.read import read_table_columns, table_files

PARENT_LEVEL = "parent"

CHUNK_COLUMNS = [
    "chunk_id", "doc_id", "parent_id", "chunk_index", "level", "strategy", "text", "context",
    "char_start", "char_end", "page_start", "page_end", "heading_path", "token_count",
    "char_count", "source_uri", "media_type", "metadata",
]
DOCUMENT_COLUMNS = [
    "doc_id", "source_uri", "status", "media_type", "title", "strategy", "char_count",
    "chunk_count", "page_count", "metadata",
]


@dataclass(frozen=True)
class ChunkRecord:
    chunk_id: str
    doc_id: str
    parent_id: str | None
    chunk_index: int
    level: str
    strategy: str
    text: str
    context: str
    char_start: int
    char_end: int
    page_start: int | None
    page_end: int | None
    heading_path: tuple[str, ...]
    token_count: int
    char_count: int
    source_uri: str
    media_type: str
    metadata: Mapping[str, str] = field(default_factory=dict)

    @property
    def indexed(self) -> bool:
        """Parents of parent-child are context, not index entries."""
        return self.level != PARENT_LEVEL


@dataclass(frozen=True)
class DocumentRecord:
    doc_id: str
    source_uri: str
    status: str
    media_type: str | None
    title: str | None
    strategy: str | None
    char_count: int | None
    chunk_count: int
    page_count: int | None
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass
class RunData:
    """Chunks ordered by (source_uri, chunk_index); documents by source_uri."""

    output: str
    chunks: list[ChunkRecord]
    documents: list[DocumentRecord]
    run_summary: dict[str, Any]
    texts: dict[str, str] = field(default_factory=dict)  # doc_id → cleaned text (ok docs)
    # Made with --text-vector (the chunks schema's ragbeam.embedding record says so):
    # a chunk's dense score is the closer of its two vectors' (``retrieval.max_sim``).
    text_vectors: bool = False

    @property
    def indexed_chunks(self) -> list[ChunkRecord]:
        return [c for c in self.chunks if c.indexed]

    @property
    def chunk_cap(self) -> tuple[int, str]:
        """(size, unit) the run was chunked with, from run.json."""
        chunk = self.run_summary.get("config", {}).get("chunk", {})
        return int(chunk.get("size", 1000)), str(chunk.get("unit", "chars"))

    def document(self, doc_id: str) -> DocumentRecord | None:
        return next((d for d in self.documents if d.doc_id == doc_id), None)


def _as_dict(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    return dict(value)  # pyarrow map columns read back as lists of (key, value)


def base_media_type(media_type: str | None) -> str:
    """``text/plain; charset=UTF-8`` → ``text/plain``."""
    return (media_type or "unknown").split(";", 1)[0].strip() or "unknown"


def chunk_rows_from_dicts(rows: Iterable[Mapping[str, Any]]) -> list[ChunkRecord]:
    chunks = [
        ChunkRecord(
            chunk_id=r["chunk_id"], doc_id=r["doc_id"], parent_id=r.get("parent_id"),
            chunk_index=int(r["chunk_index"]), level=r.get("level") or "chunk",
            strategy=r.get("strategy") or "", text=r["text"], context=r.get("context") or "",
            char_start=int(r["char_start"]), char_end=int(r["char_end"]),
            page_start=r.get("page_start"), page_end=r.get("page_end"),
            heading_path=tuple(r.get("heading_path") or ()),
            token_count=int(r["token_count"]), char_count=int(r.get("char_count") or 0),
            source_uri=r.get("source_uri") or "", media_type=r.get("media_type") or "",
            metadata=_as_dict(r.get("metadata")),
        )
        for r in rows
    ]
    chunks.sort(key=lambda c: (c.source_uri, c.doc_id, c.chunk_index))
    return chunks


def load_run(output: str, with_text: bool = True) -> RunData:
    """Read ``chunks``, ``documents`` and ``run.json`` of a finished run."""
    # Beam's filesystems only here: the CLI builds its parser (this module's
    # importers included) before a run imports Beam (pipeline/early_start.py).
    from apache_beam.io.filesystems import FileSystems


    output = output.rstrip("/") or "/"
    run_json = FileSystems.join(output, "run.json")
    if not FileSystems.exists(run_json):
        raise FileNotFoundError(f"{output!r} holds no finished run (no run.json)")
    with FileSystems.open(run_json) as f:
        summary = json.loads(f.read().decode("utf-8"))
    chunk_table = read_table_columns(output, "chunks", CHUNK_COLUMNS)
    chunks = chunk_rows_from_dicts(chunk_table.to_pylist()) if chunk_table is not None else []
    doc_columns = DOCUMENT_COLUMNS + (["text"] if with_text else [])
    doc_table = read_table_columns(output, "documents", doc_columns)
    documents: list[DocumentRecord] = []
    texts: dict[str, str] = {}
    for r in doc_table.to_pylist() if doc_table is not None else []:
        documents.append(DocumentRecord(
            doc_id=r["doc_id"], source_uri=r["source_uri"], status=r["status"],
            media_type=r.get("media_type"), title=r.get("title"), strategy=r.get("strategy"),
            char_count=r.get("char_count"), chunk_count=int(r.get("chunk_count") or 0),
            page_count=r.get("page_count"), metadata=_as_dict(r.get("metadata")),
        ))
        if with_text and r.get("text") is not None:
            texts[r["doc_id"]] = r["text"]
    documents.sort(key=lambda d: d.source_uri)
    text_vectors = chunk_table is not None and has_text_vectors(chunk_table.schema)
    return RunData(output, chunks, documents, summary, texts, text_vectors)


def load_document_spans(output: str, doc_id: str) -> list[dict[str, Any]]:
    """One document's ``documents.spans`` (each cleaned line's range, page and raw
    offsets; ``schemas/documents.py``), or [] for a run written before that column."""
    from apache_beam.io.filesystems import FileSystems

    for path in table_files(output.rstrip("/") or "/", "documents"):
        with FileSystems.open(path) as f:
            data = f.read()
        schema = pq.read_schema(pa.BufferReader(data))
        if "spans" not in schema.names:
            return []
        table = pq.read_table(pa.BufferReader(data), columns=["doc_id", "spans"],
                              filters=[("doc_id", "=", doc_id)])
        for row in table.to_pylist():
            return list(row["spans"] or [])
    return []
