"""Topic-segmentation quality: a Choi-style test set and the Pk / WindowDiff metrics.

The set (Choi 2000): each sample concatenates passages of 1–3 consecutive
paragraphs, each passage from a different document than the one before it,
joined by a blank line exactly like the paragraphs inside a passage — so only
meaning marks the true boundaries, and a splitter that cuts at every
paragraph break gains nothing.

Metrics (Beeferman et al. 1999; Pevzner & Hearst 2002), over characters,
lower is better:

* **Pk**: slide a window of ``k`` characters (half the mean true segment
  length) over the text; count how often reference and hypothesis disagree
  on whether its two ends lie in the same segment.
* **WindowDiff**: same window; count how often they disagree on the *number*
  of boundaries inside it.

A hypothesis is a list of chunk spans; its boundaries are the chunk starts
(whitespace between chunks belongs to the chunk before).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragbeam.pipeline.config import ExtractOptions
from ragbeam.transforms.chunk.sentences import split_sentences
from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.extract.single_file import read_local_file

_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")


@dataclass(frozen=True)
class SegmentationSample:
    text: str
    boundaries: tuple[int, ...]  # start offsets of every segment after the first
    sources: tuple[str, ...]  # source name of each segment


def prose_paragraphs(text: str, min_chars: int = 200, min_sentences: int = 2) -> list[str]:
    """Paragraphs (blank-line separated) that read as prose: long enough, several
    full sentences, ending with a full stop, mostly letters."""
    kept = []
    for paragraph in _PARAGRAPH_BREAK.split(text):
        paragraph = paragraph.strip()
        if len(paragraph) < min_chars or not paragraph.endswith((".", "!", "?", ".\"", ".”")):
            continue
        if len(split_sentences(paragraph)) < min_sentences:
            continue
        letters = sum(ch.isalpha() or ch.isspace() for ch in paragraph)
        if letters < 0.85 * len(paragraph):
            continue
        kept.append(paragraph)
    return kept


def build_choi_samples(paragraphs_by_source: dict[str, list[str]], n_samples: int,
                       segments_per_sample: int = 10, max_paragraphs: int = 3,
                       seed: int = 0) -> list[SegmentationSample]:
    """Deterministic Choi-style samples from each source's paragraphs, in order."""
    rng = random.Random(seed)
    sources = sorted(name for name, paragraphs in paragraphs_by_source.items()
                     if len(paragraphs) >= max_paragraphs)
    if len(sources) < 2:
        raise ValueError("need at least two sources with enough paragraphs")
    samples = []
    for _ in range(n_samples):
        parts: list[str] = []
        boundaries: list[int] = []
        names: list[str] = []
        previous = None
        length = 0
        for _ in range(segments_per_sample):
            name = rng.choice([s for s in sources if s != previous])
            paragraphs = paragraphs_by_source[name]
            count = rng.randint(1, max_paragraphs)
            first = rng.randrange(0, len(paragraphs) - count + 1)
            passage = "\n\n".join(paragraphs[first:first + count])
            if parts:
                length += 2
                boundaries.append(length)
            parts.append(passage)
            names.append(name)
            length += len(passage)
            previous = name
        samples.append(SegmentationSample("\n\n".join(parts), tuple(boundaries), tuple(names)))
    return samples


def _segment_ids(length: int, boundaries: Sequence[int]) -> np.ndarray:
    """Segment number of every character position."""
    marks = np.zeros(length, dtype=np.int32)
    for b in boundaries:
        if 0 < b < length:
            marks[b] += 1
    return np.cumsum(marks)


def hypothesis_boundaries(spans: Sequence[tuple[int, int]]) -> list[int]:
    return [s for s, _ in sorted(spans)[1:]]


def window_size(length: int, boundaries: Sequence[int]) -> int:
    """Half the mean reference segment length (the usual choice of k)."""
    return max(1, round(length / (len(boundaries) + 1) / 2))


def pk(length: int, reference: Sequence[int], hypothesis: Sequence[int],
       k: int | None = None) -> float:
    k = k or window_size(length, reference)
    if length <= k:
        return 0.0
    ref, hyp = _segment_ids(length, reference), _segment_ids(length, hypothesis)
    same_ref = ref[:-k] == ref[k:]
    same_hyp = hyp[:-k] == hyp[k:]
    return float(np.mean(same_ref != same_hyp))


def window_diff(length: int, reference: Sequence[int], hypothesis: Sequence[int],
                k: int | None = None) -> float:
    k = k or window_size(length, reference)
    if length <= k:
        return 0.0
    ref, hyp = _segment_ids(length, reference), _segment_ids(length, hypothesis)
    return float(np.mean((ref[k:] - ref[:-k]) != (hyp[k:] - hyp[:-k])))


@dataclass(frozen=True)
class SegmentationScore:
    pk: float
    window_diff: float
    mean_chunk_chars: float
    chunks: int


def score(samples: Sequence[SegmentationSample],
          spans_per_sample: Sequence[Sequence[tuple[int, int]]]) -> SegmentationScore:
    """Mean Pk and WindowDiff over samples, and the mean chunk size in characters."""
    pks, wds, sizes = [], [], []
    for sample, spans in zip(samples, spans_per_sample, strict=True):
        hyp = hypothesis_boundaries(spans)
        pks.append(pk(len(sample.text), sample.boundaries, hyp))
        wds.append(window_diff(len(sample.text), sample.boundaries, hyp))
        sizes.extend(e - s for s, e in spans)
    return SegmentationScore(float(np.mean(pks)), float(np.mean(wds)),
                             float(np.mean(sizes)) if sizes else 0.0, len(sizes))


# English prose in ../shared/corpus used for the test set (MiniLM is an English model).
CHOI_SOURCES = (
    "epub/winter-sports.epub",
    "pdf/dpr-multi-column.pdf",
    "pdf/llncsdoc.pdf",
    "html/wikipedia-microsoft.html",
    "html/blog-post.html",
    "rtf/outlook2003-welcome.rtf",
    "docx/autogen-paper.docx",
    "txt/norwich-city.txt",
)


def cleaned_text(path: str) -> str:
    """A file's text exactly as the pipeline sees it: guarded extraction, then cleaning
    (the one single-file path, ``transforms/extract/single_file.py``)."""
    files = ExtractOptions().file_extractor()
    return files.extract_and_clean(read_local_file(path), CleanOptions()).text


def corpus_choi_samples(corpus_dir: str, n_samples: int = 20, seed: int = 0
                        ) -> list[SegmentationSample]:
    """The *tuning* set: English prose of ../shared/corpus (thresholds were chosen on it)."""
    return _choi_samples(corpus_dir, CHOI_SOURCES, n_samples, seed)


# English prose of the held-out material (evaluate/heldout/MANIFEST.csv; fetched, not
# committed): no rule or threshold was chosen on these.
HELDOUT_CHOI_SOURCES = (
    "en/react-paper.pdf",
    "en/chatglm-6b-readme-en.md",
    "en/what-is-haystack.html",
    "en/twain-tom-sawyer-abroad.txt",
    "en/twain-tom-sawyer-detective.txt",
)


def heldout_choi_samples(docs_dir: str, n_samples: int = 20, seed: int = 0
                         ) -> list[SegmentationSample]:
    """The *held-out* set, built the same way from ``HELDOUT_CHOI_SOURCES``."""
    return _choi_samples(docs_dir, HELDOUT_CHOI_SOURCES, n_samples, seed)


def _choi_samples(root: str, sources: tuple[str, ...], n_samples: int, seed: int
                  ) -> list[SegmentationSample]:
    paragraphs = {name: prose_paragraphs(cleaned_text(os.path.join(root, name)))
                  for name in sources}
    return build_choi_samples(paragraphs, n_samples, seed=seed)
