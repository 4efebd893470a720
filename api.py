r"""ragbeam's chunkers from Python, without Beam: ``chunk_text`` and ``chunk_file``;
and ``load_term_frequencies``, what a sparse query is weighed by.

    >>> import ragbeam
    >>> text = "# Guide\n\nBoats leave at nine.\n\n## Safety\n\nWear a life jacket."
    >>> chunks = ragbeam.chunk_text(text, strategy="structure", size=40, unit="chars")
    >>> [(c.start, c.end, c.heading_path) for c in chunks]
    [(0, 29, ('# Guide',)), (31, 61, ('# Guide', '## Safety'))]
    >>> all(text[c.start:c.end] == c.text for c in chunks)
    True

The same strategies, defaults (96 tokens), sizes and offsets as ``ragbeam run``.
Records are plain frozen dataclasses (``TextChunk``; ``dataclasses.asdict`` turns
one into a dict) with a short ``repr``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragbeam.pipeline.config import ExtractOptions
from ragbeam.pipeline.runs import list_runs, plan_previous
from ragbeam.schemas.layout import RUN_JSON
from ragbeam.transforms import storage
from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.records import (
    chunk_context,
    without_navigation,
    without_restatements,
)
from ragbeam.transforms.chunk.sizing import SIZE_UNITS
from ragbeam.transforms.chunk.strategies import build_strategy, strategy_names
from ragbeam.transforms.chunk.table import with_table_headers
from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.embed.model import DEFAULT_MODEL
from ragbeam.transforms.embed.sparse import TermFrequencies
from ragbeam.transforms.embed.term_table import read_term_frequencies
from ragbeam.transforms.embed.text import dense_text_for, sparse_text_for
from ragbeam.transforms.extract.markdown import parse_markdown_blocks
from ragbeam.transforms.extract.single_file import read_local_file
from ragbeam.transforms.route.router import RouteOptions, route_document
from ragbeam.transforms.types import BlockKind, Document, SourceFile, TextSpan

AUTO = "auto"
PREVIEW_CHARS = 40  # of a chunk's text in its repr


def _preview(text: str) -> str:
    return repr(text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "…")


@dataclass(frozen=True)
class TextChunk:
    """One chunk: ``source_text[start:end] == text``, always.

    ``source_text`` is the string given to ``chunk_text``, or ``ChunkedFile.text``
    (the cleaned document text) for ``chunk_file``. ``parent`` is the ``index`` of
    the enclosing chunk (``parent_child``); ``context`` is the title and heading
    path, ``embed_text`` what ragbeam's dense model embeds (the document label and the
    nearest heading, then the text) and ``sparse_text`` what its BM25 / sparse vector
    index (the whole context, then the text): ``transforms/embed/text.py`` says why.
    Neither repeats the heading the text starts with. ``size`` is in the requested unit.
    """

    index: int
    text: str = field(repr=False)
    start: int
    end: int
    size: int
    strategy: str
    level: str = "chunk"
    parent: int | None = None
    heading_path: tuple[str, ...] = ()
    context: str = field(default="", repr=False)
    embed_text: str = field(default="", repr=False)
    sparse_text: str = field(default="", repr=False)
    page_start: int | None = None
    page_end: int | None = None

    def __repr__(self) -> str:
        where = f"pages {self.page_start}-{self.page_end}, " if self.page_start else ""
        return (f"TextChunk({self.index}, [{self.start}:{self.end}], size={self.size}, "
                f"{where}{self.strategy}/{self.level}, text={_preview(self.text)})")


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

    def __repr__(self) -> str:
        return (f"ChunkedFile({self.path!r}, {self.media_type}, {len(self.chunks)} chunks "
                f"({self.strategy}), {len(self.text):,} characters)")


def _spans(text: str) -> tuple[TextSpan, ...]:
    """Blocks of ``text`` read as Markdown, by the pipeline's own Markdown reader
    (``transforms/extract/markdown.py``): ATX and setext headings, never a ``#`` line
    inside a code fence. A heading span is its title line(s) (a setext underline is
    body, not title); offsets are those of ``text``, which is not changed."""
    spans = []
    for block in parse_markdown_blocks(text):
        start, end = block.raw_start, block.raw_end
        if block.kind is BlockKind.HEADING and "\n" in text[start:end]:
            end = text.rindex("\n", start, end)  # setext: the underline is not the title
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            spans.append(TextSpan(start, end, block.kind, level=block.level))
    return tuple(spans)


def _check_arguments(strategy: Any, size: Any, unit: Any, overlap: Any, model: Any) -> None:
    """Bad arguments fail here, naming the argument (not deep inside a strategy)."""
    for name, value in (("strategy", strategy), ("unit", unit)):
        if not isinstance(value, str):
            raise TypeError(f"{name}: expected a str, got {type(value).__name__} {value!r}")
    for name, value in (("size", size), ("overlap", overlap)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name}: expected an int, got {type(value).__name__} {value!r}")
    if model is not None and not isinstance(model, str):
        raise TypeError(f"model: expected a str or None, got {type(model).__name__} {model!r}")
    if strategy != AUTO and strategy not in strategy_names():
        raise ValueError(f"strategy: unknown strategy {strategy!r} "
                         f"(known: {AUTO}, {', '.join(strategy_names())})")
    if unit not in SIZE_UNITS:
        raise ValueError(f"unit: must be one of {', '.join(SIZE_UNITS)}, got {unit!r}")
    if size <= 0:
        raise ValueError(f"size: must be positive, got {size}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap: must be >= 0 and smaller than size ({size}), got {overlap}")


def _options(size: int, unit: str, overlap: int, model: str | None) -> ChunkOptions:
    return ChunkOptions(size=size, overlap=overlap, unit=unit,
                        tokenizer_model=(model or DEFAULT_MODEL) if unit == "model" else None)


def _chunk(doc: Document, strategy: str, options: ChunkOptions, params: Mapping[str, Any]
           ) -> tuple[str, str, list[TextChunk]]:
    decision = route_document(doc, RouteOptions(
        forced_strategy=None if strategy == AUTO else strategy))
    built = build_strategy(decision.strategy, options, {**decision.params, **params})
    chunks = without_navigation(doc, without_restatements(
        with_table_headers(doc, built.chunk(doc).chunks)))
    sizer = options.sizer()
    records = []
    for index, chunk in enumerate(chunks):
        context = chunk_context(doc, chunk)
        page_start, page_end = doc.pages_of(chunk.start, chunk.end)
        records.append(TextChunk(
            index=index, text=chunk.text, start=chunk.start, end=chunk.end,
            size=sizer.span(doc.text, chunk.start, chunk.end), strategy=decision.strategy,
            level=str(chunk.level),
            parent=chunk.parent, heading_path=tuple(chunk.heading_path), context=context,
            embed_text=dense_text_for(context, chunk.text, chunk.heading_path),
            sparse_text=sparse_text_for(context, chunk.text, chunk.heading_path),
            page_start=page_start,
            page_end=page_end))
    return decision.strategy, decision.reason, records


def chunk_text(text: str, strategy: str = "recursive", size: int = ChunkOptions.size,
               unit: str = ChunkOptions.unit, overlap: int = ChunkOptions.overlap, *,
               model: str | None = None, **params: Any) -> list[TextChunk]:
    """Cut ``text`` into chunks with one of ragbeam's strategies.

    ``strategy``: ``recursive`` (default), ``fixed``, ``sliding``, ``structure``,
    ``parent_child``, ``semantic``, ``code``, ``faq``, ``log``, ``table``, or ``auto``
    (chosen from the content, as ``ragbeam run`` does). ``size`` and ``overlap`` are
    in ``unit``: ``tokens`` (tiktoken; the default, 96 as in ``ragbeam run``),
    ``chars`` or ``model`` (the embedding model's tokenizer; ``model`` names it,
    default all-MiniLM-L6-v2). The text is read as Markdown for its structure
    (headings ``# Title`` or underlined, lists, code fences, tables), as ``ragbeam
    run`` reads a Markdown file. Other keyword arguments are the strategy's own
    parameters (docs/strategies.md). Nothing of ``text`` is changed:
    ``text[c.start:c.end] == c.text`` for every chunk. Bad arguments raise
    ``TypeError``/``ValueError`` naming the argument.
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    _check_arguments(strategy, size, unit, overlap, model)
    doc = Document(source=SourceFile("text", "text", len(text.encode("utf-8"))),
                   content_hash="", media_type="text/plain", text=text, spans=_spans(text))
    return _chunk(doc, strategy, _options(size, unit, overlap, model), params)[2]


def chunk_file(path: str | os.PathLike[str], strategy: str = AUTO, size: int = ChunkOptions.size,
               unit: str = ChunkOptions.unit, overlap: int = ChunkOptions.overlap, *,
               model: str | None = None, **params: Any) -> ChunkedFile:
    """Extract (embedded Apache Tika), clean and chunk one file, as ``ragbeam run`` does,
    with its defaults (96 tokens, strategy chosen by the default routing table) and
    its guards (the file is read by an isolated Tika child under the run's time limit
    and memory cap; archive bombs and oversized texts are refused).

    Offsets refer to the returned ``ChunkedFile.text``, the cleaned text. Raises the
    extraction error (e.g. ``ExtractionError`` for a file Tika cannot parse,
    ``EncryptedDocumentError``, ``EmptyDocumentError``) as is.
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path: expected a str or os.PathLike, got {type(path).__name__}")
    _check_arguments(strategy, size, unit, overlap, model)

    fetched = read_local_file(path)
    doc = _file_extractor().extract_and_clean(fetched, CleanOptions())
    chosen, reason, records = _chunk(doc, strategy, _options(size, unit, overlap, model), params)
    return ChunkedFile(path=fetched.source.uri, text=doc.text, media_type=doc.media_type,
                       title=doc.title, strategy=chosen, reason=reason, chunks=tuple(records))


def _file_extractor() -> Any:  # -> SingleFileExtractor, with `ragbeam run`'s limits

    return ExtractOptions().file_extractor()


__all__ = ["ChunkedFile", "TextChunk", "chunk_file", "chunk_text"]


def load_term_frequencies(path: str | os.PathLike) -> TermFrequencies:
    """The document frequencies ``ragbeam.encode_sparse_query`` weighs a question's terms
    by (``--sparse``): from a run's output folder (its ``terms`` table), or from a
    ``ragbeam sync`` state folder, its newest run a later run builds on (the run that
    last synced the stores). Local paths and any Beam file system's (``gs://…``).

        >>> frequencies = ragbeam.load_term_frequencies("state")  # doctest: +SKIP
        >>> ragbeam.encode_sparse_query("Where are the solutions?", frequencies)  # doctest: +SKIP
    """
    path = os.fspath(path)
    if storage.exists(storage.join(path, RUN_JSON)):
        return read_term_frequencies(path)
    newest = plan_previous(list_runs(path))
    if newest is None:
        raise ValueError(f"{path} is neither a run's output nor a state folder with a "
                         "completed run")
    return read_term_frequencies(newest.path)
