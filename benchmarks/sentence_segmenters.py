"""Sentence segmenters measured on held-out treebank text before choosing one.

    pip install pysbd pyicu blingfire syntok sentencex      # the candidates
    python benchmarks/sentence_segmenters.py --ud-dir /work/data/heldout-16/ud

The truth: the test parts of three Universal Dependencies treebanks, which no
rule in this repository was written against (``evaluate/heldout/MANIFEST.csv``
names repository, path, commit, sha256 and licence; the files themselves are
not committed):

* English EWT (web text: reviews, e-mail, answers, blogs): sentences grouped by
  the treebank's own ``# newpar`` marks, joined by one space;
* German GSD and Chinese GSDSimp (news and Wikipedia, no paragraph marks): runs
  of ``--per-paragraph`` consecutive sentences, joined by one space (German) or
  nothing (Chinese, which has no spaces between sentences).

Each segmenter gets one paragraph at a time; a *boundary* is the start offset
of every sentence after the first (whitespace ignored). Reported per language:
boundary precision, recall, F1, and characters per second (best of
``--repeats`` interleaved runs, so load on a shared machine hits all alike).
"""

from __future__ import annotations

import argparse
import bisect
import pathlib
import sys
import time
from collections.abc import Callable, Iterable

Spans = list[tuple[int, int]]
Segmenter = Callable[[str], Spans]

TREEBANKS = {  # language → (file, how paragraphs are made, joiner)
    "en": ("en_ewt-ud-test.conllu", "newpar", " "),
    "de": ("de_gsd-ud-test.conllu", "runs", " "),
    "zh": ("zh_gsdsimp-ud-test.conllu", "runs", ""),
}


def read_conllu_paragraphs(path: pathlib.Path, mode: str, per_paragraph: int
                           ) -> list[list[str]]:
    """Paragraphs as lists of sentence texts (``# text =`` lines)."""
    paragraphs: list[list[str]] = []
    current: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if mode == "newpar" and (line.startswith("# newpar") or line.startswith("# newdoc")):
            if current:
                paragraphs.append(current)
            current = []
        elif line.startswith("# text = "):
            current.append(line[len("# text = "):].strip())
            if mode == "runs" and len(current) == per_paragraph:
                paragraphs.append(current)
                current = []
    if current:
        paragraphs.append(current)
    return [p for p in paragraphs if p]


def join_paragraph(sentences: list[str], joiner: str) -> tuple[str, list[int]]:
    """The paragraph's text and the true boundaries (start of sentences 2…n)."""
    text, starts = "", []
    for i, sentence in enumerate(sentences):
        if i:
            text += joiner
            starts.append(len(text))
        text += sentence
    return text, starts


def boundaries(text: str, spans: Spans) -> set[int]:
    """Sentence starts after the first, moved past whitespace."""
    out = set()
    for start, _ in sorted(spans)[1:]:
        while start < len(text) and text[start].isspace():
            start += 1
        if 0 < start < len(text):
            out.add(start)
    return out


def _spans_from_breaks(text: str, breaks: Iterable[int]) -> Spans:
    cuts = sorted({b for b in breaks if 0 < b < len(text)})
    return list(zip([0, *cuts], [*cuts, len(text)], strict=True))


def _spans_from_strings(text: str, pieces: Iterable[str]) -> Spans:
    """Offsets of segment strings found in order in ``text``."""
    spans, pos = [], 0
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        start = text.find(piece, pos)
        if start < 0:  # the library changed the text: resynchronise on its first word
            start = text.find(piece.split()[0], pos) if piece.split() else -1
            if start < 0:
                continue
        spans.append((start, start + len(piece)))
        pos = start + 1
    return spans


def make_ragbeam(language: str) -> Segmenter:
    from ragbeam.transforms.chunk.sentences import split_sentences

    return lambda text: split_sentences(text, max_chars=10**9)


def make_pysbd(language: str) -> Segmenter:
    import pysbd

    seg = pysbd.Segmenter(language=language, clean=False, char_span=True)
    return lambda text: [(s.start, s.end) for s in seg.segment(text)]


def make_icu(language: str) -> Segmenter:
    import icu

    iterator = icu.BreakIterator.createSentenceInstance(icu.Locale(f"{language}@ss=standard"))

    def segment(text: str) -> Spans:
        iterator.setText(text)
        # ICU offsets are UTF-16 code units; map them back to code points.
        units = [0]
        for ch in text:
            units.append(units[-1] + (2 if ord(ch) > 0xFFFF else 1))
        return _spans_from_breaks(text, (bisect.bisect_left(units, b) for b in iterator))

    return segment


def make_blingfire(language: str) -> Segmenter:
    import blingfire

    return lambda text: list(blingfire.text_to_sentences_and_offsets(text)[1])


def make_syntok(language: str) -> Segmenter:
    from syntok import segmenter

    def segment(text: str) -> Spans:
        spans = []
        for paragraph in segmenter.analyze(text):
            for sentence in paragraph:
                tokens = list(sentence)
                if tokens:
                    spans.append((tokens[0].offset, tokens[-1].offset + len(tokens[-1].value)))
        return spans

    return segment


def make_sentencex(language: str) -> Segmenter:
    import sentencex

    return lambda text: _spans_from_strings(text, sentencex.segment(language, text))


SEGMENTERS: dict[str, Callable[[str], Segmenter]] = {
    "ragbeam (rules)": make_ragbeam,
    "pysbd": make_pysbd,
    "PyICU": make_icu,
    "blingfire": make_blingfire,
    "syntok": make_syntok,
    "sentencex": make_sentencex,
}


def score(segment: Segmenter, paragraphs: list[tuple[str, list[int]]]
          ) -> tuple[float, float, float, float]:
    """Precision, recall, F1 of boundaries, and seconds taken."""
    true_positive = predicted = gold = 0
    started = time.perf_counter()
    results = [segment(text) for text, _ in paragraphs]
    seconds = time.perf_counter() - started
    for (text, truth), spans in zip(paragraphs, results, strict=True):
        found = boundaries(text, spans)
        true_positive += len(found & set(truth))
        predicted += len(found)
        gold += len(truth)
    precision = true_positive / predicted if predicted else 0.0
    recall = true_positive / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ud-dir", type=pathlib.Path,
                        default=pathlib.Path("/work/data/heldout-16/ud"))
    parser.add_argument("--languages", nargs="+", default=list(TREEBANKS))
    parser.add_argument("--per-paragraph", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--only", nargs="+", choices=list(SEGMENTERS))
    args = parser.parse_args(argv)
    names = args.only or list(SEGMENTERS)
    print(f"{'lang':<4} {'segmenter':<16} {'P':>6} {'R':>6} {'F1':>6} {'chars/s':>10}")
    for language in args.languages:
        file, mode, joiner = TREEBANKS[language]
        path = args.ud_dir / file
        if not path.exists():
            print(f"{language}: {path} missing (see evaluate/heldout/MANIFEST.csv)")
            continue
        paragraphs = [join_paragraph(p, joiner)
                      for p in read_conllu_paragraphs(path, mode, args.per_paragraph)]
        chars = sum(len(t) for t, _ in paragraphs)
        gold = sum(len(b) for _, b in paragraphs)
        print(f"# {language}: {len(paragraphs)} paragraphs, {gold} true boundaries, "
              f"{chars:,} characters")
        segmenters = {}
        for name in names:
            try:
                segmenters[name] = SEGMENTERS[name](language)
            except Exception as exc:  # a library without this language
                print(f"{language:<4} {name:<16} unavailable: {exc}")
        best: dict[str, tuple[float, float, float, float]] = {}
        for _ in range(args.repeats):
            for name, segment in segmenters.items():
                result = score(segment, paragraphs)
                if name not in best or result[3] < best[name][3]:
                    best[name] = result
        for name, (p, r, f1, seconds) in best.items():
            print(f"{language:<4} {name:<16} {p:>6.3f} {r:>6.3f} {f1:>6.3f} "
                  f"{chars / seconds:>10,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
