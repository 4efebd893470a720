"""One interface for every chunking strategy.

A strategy is built from ``ChunkOptions`` (size, overlap, unit) plus its own
parameters, and turns a cleaned ``Document`` into ``Chunk``s whose offsets are
exact: ``chunk.text == document.text[chunk.start:chunk.end]``. A strategy that
needs embeddings (``semantic``) also has the ``EmbeddingStrategy`` capability:
plan, embed, assemble, so the pipeline can embed many documents' sentences in
one model call. The registry of strategies by name is ``strategies.py``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np  # only strategies that embed get here

from ragbeam.transforms.chunk.heading_names import heading_name
from ragbeam.transforms.chunk.sizing import DEFAULT_ENCODING, SIZE_UNITS, Sizer, make_sizer
from ragbeam.transforms.contents_title import is_contents_title
from ragbeam.transforms.types import BlockKind, Chunk, Document, TextSpan


@dataclass(frozen=True)
class ChunkOptions:
    """Sizing shared by every strategy (all part of the config fingerprint)."""

    # 96 tokens (cl100k): chosen on the public question sets (issue 38; five development
    # domains, 600-token budget: hybrid retrieval higher on all five, the dense model's
    # and BM25's sums higher) and checked on a held-out one (docs/benchmarks.md,
    # "Chunk size 96"); 128 before, chosen on the shared corpus's tuning questions. It
    # stays inside the default embedding model's 256-word-piece window with its header.
    # A size in characters over-fills a token budget on CJK text (1,000 CJK characters
    # are ~1,000+ tokens).
    size: int = 96
    overlap: int = 0
    unit: str = "tokens"  # "chars" | "tokens" | "model"
    encoding: str = DEFAULT_ENCODING
    # unit "model": the embedding model whose tokenizer measures chunks.
    tokenizer_model: str | None = None
    # Also write ``embed_text`` = what the dense model embeds (``embed/text.dense_text_for``).
    embed_text: bool = False

    def __post_init__(self) -> None:
        if self.size <= 0:
            raise ValueError("chunk size must be positive")
        if not 0 <= self.overlap < self.size:
            raise ValueError("chunk overlap must be >= 0 and smaller than the chunk size")
        if self.unit not in SIZE_UNITS:
            raise ValueError(f"size unit must be one of {', '.join(SIZE_UNITS)}")
        if self.unit == "model" and not self.tokenizer_model:
            raise ValueError("size unit 'model' needs tokenizer_model (the embedding model)")

    def sizer(self) -> Sizer:
        return make_sizer(self.unit, self.encoding, self.tokenizer_model)


@dataclass(frozen=True)
class ChunkingResult:
    chunks: list[Chunk]
    # Counters, e.g. {"hard_cuts": 2}, and notes (strings) for documents.metadata.
    stats: Mapping[str, int | str] = field(default_factory=dict)


class Strategy(Protocol):
    """The chunker interface every strategy implements."""

    name: str
    # True for the strategies that are also ``EmbeddingStrategy``s.
    needs_embeddings: ClassVar[bool]

    def chunk(self, doc: Document) -> ChunkingResult: ...


# The vectors of a list of texts, one unit vector per text (rows of a 2-D array).
Encode = Callable[[list[str]], Any]


class VectorStream(Protocol):
    """A document's vectors arriving in slices, in ``embedding_inputs`` order; what
    a strategy keeps of them is its own (``semantic``: gap distances only)."""

    def add(self, vectors: Any) -> None: ...

    def finish(self) -> ChunkingResult: ...


class EmbeddingStrategy(Strategy, Protocol):
    """The capability of a strategy that cuts by embeddings: ``chunk`` is
    ``assemble(doc, plan(doc), encode(embedding_inputs(doc, plan)))``, split into
    steps so the embedding in between can run anywhere (a model in this process,
    or batched across documents by the pipeline: ``chunk/semantic_dofn.py``).

    ``RUN_OPTIONS`` names the run's option objects the strategy takes as parameters
    (``"embedding"``: ``EmbeddingOptions``; ``"semantic"``: ``SemanticOptions``), which
    the pipeline passes next to a routing table's parameters. ``stream`` is the same
    ``assemble`` for a document whose vectors come a slice at a time (more inputs
    than one model call takes); ``CollectedVectors`` is the form that keeps them all.
    """

    RUN_OPTIONS: ClassVar[frozenset[str]]

    def plan(self, doc: Document) -> Any: ...

    def embedding_inputs(self, doc: Document, plan: Any) -> list[str]: ...

    def assemble(self, doc: Document, plan: Any, vectors: Any) -> ChunkingResult: ...

    def stream(self, doc: Document, plan: Any) -> VectorStream: ...

    def chunk_batch(self, docs: Sequence[Document], encode: Encode
                    ) -> list[ChunkingResult]: ...


def chunk_batch_by_embeddings(strategy: EmbeddingStrategy, docs: Sequence[Document],
                              encode: Encode) -> list[ChunkingResult]:
    """``EmbeddingStrategy.chunk_batch`` for any such strategy: every document's
    ``plan``, all their ``embedding_inputs`` in one ``encode`` call, then each
    document's ``assemble`` with its own slice of the vectors."""
    plans = [strategy.plan(doc) for doc in docs]
    inputs = [strategy.embedding_inputs(doc, plan) for doc, plan in zip(docs, plans, strict=True)]
    vectors = encode([text for texts in inputs for text in texts])
    results, offset = [], 0
    for doc, plan, texts in zip(docs, plans, inputs, strict=True):
        results.append(strategy.assemble(doc, plan, vectors[offset:offset + len(texts)]))
        offset += len(texts)
    return results


class CollectedVectors:
    """A ``VectorStream`` that keeps every slice and assembles once at the end."""

    def __init__(self, strategy: EmbeddingStrategy, doc: Document, plan: Any) -> None:
        self._strategy, self._doc, self._plan = strategy, doc, plan
        self._parts: list[Any] = []

    def add(self, vectors: Any) -> None:
        self._parts.append(vectors)

    def finish(self) -> ChunkingResult:
        vectors = np.concatenate(self._parts) if self._parts else np.zeros((0, 0))
        return self._strategy.assemble(self._doc, self._plan, vectors)


class SizedStrategy:
    """Common base: reads ``size``/``overlap`` (route params override the run's
    options) and rejects parameters the strategy does not know, so a typo in a
    routing table fails at start-up instead of being silently ignored."""

    name = ""
    needs_embeddings: ClassVar[bool] = False
    PARAMS: frozenset[str] = frozenset()

    def __init__(self, options: ChunkOptions, params: Mapping[str, Any]) -> None:
        unknown = set(params) - {"size", "overlap"} - self.PARAMS
        if unknown:
            raise ValueError(f"strategy {self.name!r} has no parameter(s) "
                             f"{', '.join(sorted(unknown))}")
        for name in ("size", "overlap"):
            value = params.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ValueError(f"params.{name}: expected an integer, got {value!r}")
        self.size = int(params.get("size", options.size))
        self.overlap = int(params.get("overlap", min(options.overlap, self.size - 1)))
        if self.size <= 0:
            raise ValueError(f"{self.name}: size must be positive")
        if not 0 <= self.overlap < self.size:
            raise ValueError(f"{self.name}: overlap must be >= 0 and smaller than size")
        self.sizer = options.sizer()


StrategyFactory = Callable[[ChunkOptions, Mapping[str, Any]], Strategy]


# A document's front matter (a cover, a title page, a filing's cover sheet) comes before
# its contents page, which stands on one of its first this many pages.
MAX_FRONT_MATTER_PAGES = 10


class HeadingIndex:
    """Heading path at any offset of a document, from its heading spans. A heading over
    a contents page or an index ("Contents": the next span after it is
    ``BlockKind.CONTENTS``) heads that navigation only: the next heading, whatever its
    level, takes its place, so it is never the parent of the document's text.

    A document's first contents page, on one of its first ``MAX_FRONT_MATTER_PAGES``
    pages, ends its front matter: a heading before it (a filing's cover sheet's "FORM
    10-K", "DOCUMENTS INCORPORATED BY REFERENCE", a title page's lines) heads nothing
    after it, so the sections after the contents start their own paths ("DEFINED
    TERMS", not "FORM 10-K > DEFINED TERMS"). In the front matter a heading that
    repeats one in its path, whole or at its start ("FORM 10-Q" over the contents page
    under the cover's "FORM 10-Q"; "ACME CORP FORM 10-Q" under "ACME CORP"), takes its
    place rather than nesting under it."""

    def __init__(self, doc: Document) -> None:
        self._starts: list[int] = []
        self._paths: list[tuple[str, ...]] = []
        stack: list[tuple[int, str, bool]] = []  # (level, title, over contents only)
        spans = doc.spans
        front_matter = True  # before the first contents page
        # The page of that contents page, where it is one of the first pages: only then
        # is what comes before it a cover (a document with none has no front matter to
        # repeat: "Smallville Season Eleven" is a section of the article "Smallville").
        first_contents = next((span.page for span in spans
                               if span.kind is BlockKind.CONTENTS), None)
        if first_contents is not None and first_contents > MAX_FRONT_MATTER_PAGES:
            first_contents = None
        cover = _bare_cover_page(spans)
        body_title = _body_title(spans, cover) if cover is not None else None
        for i, span in enumerate(spans):
            if cover is not None and span.page is not None and span.page > cover:
                # A bare cover's lines name the document; they head none of its pages.
                cover = None
                if stack:
                    stack = []
                    self._starts.append(span.start)
                    self._paths.append(())
            if span.kind is BlockKind.CONTENTS and front_matter:
                front_matter = False
                if span.page is not None and span.page <= MAX_FRONT_MATTER_PAGES:
                    # The front matter's headings end here (one over these contents only
                    # goes with the next heading, as below).
                    stack = [entry for entry in stack[-1:] if entry[2]]
                    self._starts.append(span.start)
                    self._paths.append(tuple(title for _, title, _ in stack))
                continue
            if span.kind is not BlockKind.HEADING:
                continue
            level = span.level or 1
            while stack and (stack[-1][0] >= level or stack[-1][2]):
                stack.pop()
            title = heading_name(" ".join(doc.text[span.start:span.end].split()))
            if front_matter and first_contents is not None:
                # The cover's line printed again over the next page ("FORM 10-Q", the
                # filer's name) replaces it there; it does not head itself.
                folded = title.casefold()
                repeated = [n for n, entry in enumerate(stack)
                            if folded.startswith(entry[1].casefold())]
                if repeated:
                    del stack[repeated[0]:]
            if _restates(title, stack):
                # A section's title printed again inside it ("EXCLUSIONS" over a page of
                # its subsection, "COVERED SERVICES - HOSPICE CARE" in "COVERED SERVICES >
                # Hospice Care"): the section goes on, not a section of itself.
                continue
            stack.append((level, title, i == body_title
                          or _over_contents_only(spans, i, level, title)))
            self._starts.append(span.start)
            self._paths.append(tuple(title for _, title, _ in stack))

    def path_at(self, offset: int) -> tuple[str, ...]:
        i = bisect.bisect_right(self._starts, offset) - 1
        return self._paths[i] if i >= 0 else ()


# Between a section's title and its subsection's where a page header prints both
# ("COVERED SERVICES - HOSPICE CARE").
_TITLE_JOINS = re.compile(r"\s+[-–—:|]\s+")


def _restates(title: str, stack: Sequence[tuple[int, str, bool]]) -> bool:
    """Is ``title`` a heading of its path said again: one of them, or several of them
    joined by a dash ("COVERED SERVICES - HOSPICE CARE" under "COVERED SERVICES >
    Hospice Care"), whatever the case?"""
    if not stack:
        return False
    said = {" ".join(entry[1].split()).casefold() for entry in stack}
    folded = title.casefold()
    return folded in said or all(part in said for part in _TITLE_JOINS.split(folded))


def _bare_cover_page(spans: Sequence[TextSpan]) -> int | None:
    """The first page, where it is a bare cover: every span on it a heading (the
    publisher's name, the document's), and the document goes on after it."""
    first = next((span.page for span in spans if span.page is not None), None)
    if first is None:
        return None
    on_cover = [span for span in spans if span.page == first]
    if not on_cover or any(span.kind is not BlockKind.HEADING for span in on_cover):
        return None
    return first if any(span.page is not None and span.page > first for span in spans) \
        else None


def _body_title(spans: Sequence[TextSpan], cover: int) -> int | None:
    """The index of the heading that opens the pages after a bare cover, where it is the
    only heading of its level or above in all of them and headings below it follow
    ("Summary of Benefits" over a booklet's sections set in capitals, a size smaller):
    the body's title, a second cover line. It heads the text up to the next heading,
    not the sections a reader sees as the document's own top level."""
    body = [(i, span) for i, span in enumerate(spans)
            if span.kind is BlockKind.HEADING and span.page is not None and span.page > cover]
    if len(body) < 3:
        return None
    i, first = body[0]
    level = first.level or 1
    if any((span.level or 1) <= level for _, span in body[1:]):
        return None
    return i


def _over_contents_only(spans: Sequence[TextSpan], i: int, level: int, title: str) -> bool:
    """Does heading span ``i`` head a contents page only: the next span that is no heading
    (within a few) is ``BlockKind.CONTENTS``, and it is a contents title ("Contents") or
    no heading between it and the contents sits below it? A section's heading over the
    section's own contents and its first subheading ("Item 7. Management's Discussion
    …" / "OUR BUSINESS" / the section's contents list) stays the parent of its text."""
    deeper = False
    for span in spans[i + 1:i + 8]:
        if span.kind is not BlockKind.HEADING:
            return span.kind is BlockKind.CONTENTS and (not deeper or is_contents_title(title))
        deeper = deeper or (span.level or 1) > level
    return False


def spans_to_chunks(doc: Document, spans: list[tuple[int, int]],
                    headings: HeadingIndex | None = None) -> list[Chunk]:
    headings = headings or HeadingIndex(doc)
    return [
        Chunk(start=s, end=e, text=doc.text[s:e], heading_path=headings.path_at(s))
        for s, e in spans
    ]


def contents_bounds(doc: Document) -> list[int]:
    """Where each run of contents lines (``BlockKind.CONTENTS``: a contents page, an
    index) starts and ends in the document's text."""
    bounds: list[int] = []
    previous: BlockKind | None = None
    for span in doc.spans:
        inside = span.kind is BlockKind.CONTENTS
        if inside != (previous is BlockKind.CONTENTS):
            bounds.append(span.start)
        previous = span.kind
    if previous is BlockKind.CONTENTS:
        bounds.append(len(doc.text))
    return bounds


class ContentsIndex:
    """A document's contents lines (``BlockKind.CONTENTS``), to ask what share of a
    range of its text they are."""

    def __init__(self, doc: Document) -> None:
        self._spans = [(span.start, span.end) for span in doc.spans
                       if span.kind is BlockKind.CONTENTS]
        self._starts = [start for start, _ in self._spans]

    def share(self, start: int, end: int) -> float:
        """The share of ``text[start:end]``'s characters in contents lines."""
        if end <= start or not self._spans:
            return 0.0
        first = max(bisect.bisect_right(self._starts, start) - 1, 0)
        inside = 0
        for a, b in self._spans[first:]:
            if a >= end:
                break
            inside += max(0, min(end, b) - max(start, a))
        return inside / (end - start)


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` narrowed to exclude surrounding whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
