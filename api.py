r"""ragbeam's chunkers from Python, without Beam: ``chunk_text`` and ``chunk_file``.

    >>> import ragbeam
    >>> text = "# Guide\n\nBoats leave at nine.\n\n## Safety\n\nWear a life jacket."
    >>> chunks = ragbeam.chunk_text(text, strategy="structure", size=40)
    >>> [(c.start, c.end, c.heading_path) for c in chunks]
    [(0, 29, ('# Guide',)), (31, 61, ('# Guide', '## Safety'))]
    >>> all(text[c.start:c.end] == c.text for c in chunks)
    True

The same strategies, sizes and offsets as ``ragbeam run``; every strategy is
registered on first use. Records are plain frozen dataclasses (``TextChunk``;
``dataclasses.asdict`` turns one into a dict).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.records import chunk_context, embed_text_for
from ragbeam.transforms.chunk.strategies import build_strategy
from ragbeam.transforms.route.router import RouteOptions, route_document
from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan

AUTO = "auto"
# A block is a run of non-blank lines; a one-line block "# Title" is a heading.
_BLOCK = re.compile(r"[^\n]*\S[^\n]*(?:\n[^\n]*\S[^\n]*)*")
_ATX_HEADING = re.compile(r"(#{1,6})[ \t]+\S")  # matched at a block start


@dataclass(frozen=True)
class TextChunk:
    """One chunk: ``source_text[start:end] == text``, always.

    ``source_text`` is the string given to ``chunk_text``, or ``ChunkedFile.text``
    (the cleaned document text) for ``chunk_file``. ``parent`` is the ``index`` of
    the enclosing chunk (``parent_child``); ``context`` is the title and heading
    path, and ``embed_text`` what an embedder should see (context, then text, no
    heading twice). ``size`` is in the requested unit.
    """

    index: int
    text: str
    start: int
    end: int
    size: int
    strategy: str
    level: str = "chunk"
    parent: int | None = None
    heading_path: tuple[str, ...] = ()
    context: str = ""
    embed_text: str = ""
    page_start: int | None = None
    page_end: int | None = None


@dataclass(frozen=True)
class ChunkedFile:
    """What ``chunk_file`` returns: iterate it for the chunks; ``text`` is the cleaned
    document text their offsets refer to; ``reason`` says why the strategy was chosen."""

    path: str
    text: str
    media_type: str
    title: str | None
    strategy: str
    reason: str
    chunks: tuple[TextChunk, ...]

    def __iter__(self) -> Iterator[TextChunk]:
        return iter(self.chunks)

    def __len__(self) -> int:
        return len(self.chunks)

    def __getitem__(self, index: int) -> TextChunk:
        return self.chunks[index]


def _spans(text: str) -> tuple[TextSpan, ...]:
    spans = []
    for block in _BLOCK.finditer(text):
        start, end = block.start(), block.end()
        while text[start].isspace():
            start += 1
        while text[end - 1].isspace():
            end -= 1
        heading = _ATX_HEADING.match(text, start) if "\n" not in text[start:end] else None
        if heading:
            spans.append(TextSpan(start, end, BlockKind.HEADING, level=len(heading.group(1))))
        else:
            spans.append(TextSpan(start, end, BlockKind.PARAGRAPH))
    return tuple(spans)


def _options(size: int, unit: str, overlap: int, model: str | None) -> ChunkOptions:
    from ragbeam.transforms.embed.model import DEFAULT_MODEL

    return ChunkOptions(size=size, overlap=overlap, unit=unit,
                        tokenizer_model=(model or DEFAULT_MODEL) if unit == "model" else None)


def _chunk(doc: Document, strategy: str, options: ChunkOptions, params: Mapping[str, Any]
           ) -> tuple[str, str, list[TextChunk]]:
    decision = route_document(doc, RouteOptions(
        forced_strategy=None if strategy == AUTO else strategy))
    built = build_strategy(decision.strategy, options, {**decision.params, **params})
    chunks = built.chunk(doc).chunks
    sizer = options.sizer()
    records = []
    for index, chunk in enumerate(chunks):
        context = chunk_context(doc, chunk)
        page_start, page_end = doc.pages_of(chunk.start, chunk.end)
        records.append(TextChunk(
            index=index, text=chunk.text, start=chunk.start, end=chunk.end,
            size=sizer.size(chunk.text), strategy=decision.strategy, level=str(chunk.level),
            parent=chunk.parent, heading_path=tuple(chunk.heading_path), context=context,
            embed_text=embed_text_for(context, chunk.text), page_start=page_start,
            page_end=page_end))
    return decision.strategy, decision.reason, records


def chunk_text(text: str, strategy: str = "recursive", size: int = 1000, unit: str = "chars",
               overlap: int = 0, *, model: str | None = None, **params: Any) -> list[TextChunk]:
    """Cut ``text`` into chunks with one of ragbeam's strategies.

    ``strategy``: ``recursive`` (default), ``fixed``, ``sliding``, ``structure``,
    ``parent_child``, ``semantic``, ``code``, ``faq``, ``log``, ``table``, or ``auto``
    (chosen from the content, as ``ragbeam run`` does). ``size`` and ``overlap`` are
    in ``unit``: ``chars``, ``tokens`` (tiktoken) or ``model`` (the embedding
    model's tokenizer; ``model`` names it, default all-MiniLM-L6-v2). Blank lines
    separate paragraphs; a line ``# Title`` (Markdown) is a heading. Other keyword
    arguments are the strategy's own parameters (docs/strategies.md). Nothing of
    ``text`` is changed: ``text[c.start:c.end] == c.text`` for every chunk.
    """
    doc = Document(source=SourceFile("text", "text", len(text.encode("utf-8"))),
                   content_hash="", media_type="text/plain", text=text, spans=_spans(text))
    return _chunk(doc, strategy, _options(size, unit, overlap, model), params)[2]


def chunk_file(path: str | os.PathLike[str], strategy: str = AUTO, size: int = 1000,
               unit: str = "chars", overlap: int = 0, *, model: str | None = None,
               **params: Any) -> ChunkedFile:
    """Extract (embedded Apache Tika), clean and chunk one file, as ``ragbeam run`` does.

    ``strategy`` defaults to ``auto``: the default routing table chooses by type and
    content. Offsets refer to the returned ``ChunkedFile.text``, the cleaned text.
    Raises the extraction error (e.g. an encrypted or empty document) as is.
    """
    from ragbeam.transforms.clean.document import CleanOptions, clean_document
    from ragbeam.transforms.extract.document import build_extracted_document
    from ragbeam.transforms.ids import canonical_uri, doc_id_for, sha256_hex
    from ragbeam.transforms.types import FetchedFile

    uri = canonical_uri(os.fspath(path))
    with open(uri, "rb") as f:
        data = f.read()
    fetched = FetchedFile(SourceFile(uri, doc_id_for(uri), len(data)), data, sha256_hex(data))
    xhtml, metadata = _extractor().extract(data, os.path.basename(uri))
    doc = clean_document(build_extracted_document(fetched, xhtml, metadata), CleanOptions())
    chosen, reason, records = _chunk(doc, strategy, _options(size, unit, overlap, model), params)
    return ChunkedFile(path=uri, text=doc.text, media_type=doc.media_type, title=doc.title,
                       strategy=chosen, reason=reason, chunks=tuple(records))


_EXTRACTOR: Any = None


def _extractor() -> Any:  # -> EmbeddedTika, one per process
    global _EXTRACTOR
    if _EXTRACTOR is None:
        from ragbeam.transforms.extract.backends import EmbeddedTika

        _EXTRACTOR = EmbeddedTika()
    return _EXTRACTOR


__all__ = ["ChunkedFile", "TextChunk", "chunk_file", "chunk_text"]
