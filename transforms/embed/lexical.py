"""Lexical terms of a text, by language: the one tokenizer behind ``ragbeam eval``'s
BM25 and the sparse vectors of ``--sparse`` (``sparse.py``), so a query encoded for
a store and a question scored by the evaluation see the same terms.

Spaced scripts: case-folded words, without the stop words of the text's language,
stemmed with its Snowball stemmer (PyStemmer); the language is given or guessed
from stop words (bm25s' lists for en, de, fr, es, it, pt, nl). CJK runs: jieba
words plus character bigrams (Chinese has no spaces between words). Numbers are
kept as they are. ``indexed_terms``: a chunk's term frequencies and BM25 length, its
contextual header a field that counts ``HEADER_LENGTH_WEIGHT`` a term in the length.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

import Stemmer

from ragbeam.transforms.charsets import CJK_CHAR

WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)
_CJK = CJK_CHAR
_CJK_RUN = re.compile(f"(?:{CJK_CHAR.pattern})+")
# A fiscal year's shorthand, "FY23", "FY 23", "FY'23" (case-folded): also its year in
# full, as "FY2023" and "fiscal 2023" and a Japanese "2023年度" give it.
_FY_SHORT = re.compile(r"(?<![^\W\d_])fy\s?['’]?(\d\d)(?!\d)")
CENTURY_PIVOT = 70  # a two-digit year below it is this century's, else the last's
# Languages with a Snowball stemmer (PyStemmer) and a stop-word list (bm25s).
LANGUAGES = {"en": ("english", "STOPWORDS_EN_PLUS"), "de": ("german", "STOPWORDS_GERMAN"),
             "fr": ("french", "STOPWORDS_FRENCH"), "es": ("spanish", "STOPWORDS_SPANISH"),
             "it": ("italian", "STOPWORDS_ITALIAN"), "pt": ("portuguese", "STOPWORDS_PORTUGUESE"),
             "nl": ("dutch", "STOPWORDS_DUTCH")}
DEFAULT_LANGUAGE = "en"
# How much a term of a chunk's contextual header adds to the chunk's BM25 length, against
# 1 for a term of its text (``indexed_terms``); its terms count in full in the term
# frequencies. Chosen on the retrieval benchmark (issue 38, docs/benchmarks.md).
HEADER_LENGTH_WEIGHT = 0.5


@functools.cache
def _stopwords(language: str) -> frozenset[str]:
    import bm25s.stopwords

    return frozenset(w.casefold() for w in getattr(bm25s.stopwords, LANGUAGES[language][1]))


@functools.cache
def _stemmer(language: str):
    return Stemmer.Stemmer(LANGUAGES[language][0])


def guess_language(words: Sequence[str]) -> str:
    """The language with the most distinct stop words (two letters or more) among
    ``words`` (case-folded words of a spaced script); English on a tie, and
    unless another language has at least two."""
    distinct = {w for w in words if len(w) > 1}
    counts = {language: len(distinct & _stopwords(language)) for language in LANGUAGES}
    best = max(LANGUAGES, key=lambda language: (counts[language], language == DEFAULT_LANGUAGE))
    return best if best == DEFAULT_LANGUAGE or counts[best] >= 2 else DEFAULT_LANGUAGE


@functools.lru_cache(maxsize=1)
def _jieba():
    import jieba  # 0.02 s: only Chinese text needs it
    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def _cjk_tokens(run: str) -> list[str]:
    """A CJK run: jieba's words (Chinese segmentation), plus character bigrams so a
    word jieba cut differently in the question and in the text still matches."""
    words = [w for w in _jieba().lcut(run) if w.strip()]
    return words + ["".join(pair) for pair in itertools.pairwise(run)]


def _words_and_cjk(folded: str) -> tuple[list[str], list[str]]:
    """The spaced-script words (with ``full_years``) and the CJK terms of ``folded``."""
    words: list[str] = []
    cjk: list[str] = []
    for match in WORD.finditer(folded):
        word = match.group()
        if not _CJK.search(word):
            words.append(word)
            continue
        # Mixed runs: CJK stretches to jieba, other letters as words.
        last = 0
        for run in _CJK_RUN.finditer(word):
            if run.start() > last:
                words.append(word[last:run.start()])
            cjk.extend(_cjk_tokens(run.group()))
            last = run.end()
        if last < len(word):
            words.append(word[last:])
    words.extend(full_years(folded))
    return words, cjk


def tokenize(text: str, language: str | None = None) -> list[str]:
    """Retrieval terms of ``text``, by language.

    Spaced scripts: case-folded words, without the stop words of the text's
    language, stemmed with its Snowball stemmer (``language`` given, or
    guessed from the stop words: en, de, fr, es, it, pt, nl). CJK runs: jieba
    words plus character bigrams. Numbers are kept as they are; a fiscal year named
    in short ("FY23") also gives its year in full (``full_years``).
    """
    words, cjk = _words_and_cjk(text.casefold())
    return _terms(words, cjk, language or guess_language(words))


def _terms(words: list[str], cjk: list[str], language: str) -> list[str]:
    """``tokenize``'s terms of the words and CJK terms of a text in ``language``."""
    stop = _stopwords(language)
    kept = [w for w in words if w not in stop]
    stems = _stemmer(language).stemWords(kept) if kept else []
    return stems + cjk


class FieldedText(NamedTuple):
    """What BM25 and the sparse vector index of a chunk, as its two fields: the
    contextual header (``text.sparse_fields_for``; empty for none) and the text; and
    ``name``, the words of the document's title (its label's first part) the header
    holds."""

    header: str
    text: str
    name: str = ""

    def joined(self) -> str:
        """The header, a blank line, then the text: one string (``sparse_text_for``)."""
        return f"{self.header}\n\n{self.text}" if self.header else self.text


def as_text(indexed: str | FieldedText) -> str:
    """What is indexed, as one string (a ``FieldedText`` joined)."""
    return indexed.joined() if isinstance(indexed, FieldedText) else indexed


class IndexedTerms(NamedTuple):
    """``indexed_terms`` of a chunk, and ``rarity_terms``: the terms that count in
    BM25's document frequency (every term but those only the document's title gives)."""

    counts: Counter[str]
    length: float
    rarity_terms: frozenset[str]


def indexed_terms(indexed: str | FieldedText, language: str | None = None,
                  header_length_weight: float | None = None
                  ) -> tuple[Counter[str], float]:
    """The term frequencies and the BM25 length of what is indexed of a chunk: the one
    rule of ``ragbeam eval``'s BM25 and of the sparse vectors (``sparse.py``).

    A header term counts in full in its term's frequency but adds only
    ``header_length_weight`` (default ``HEADER_LENGTH_WEIGHT``) to the length, a text
    term 1 (BM25F-like: the header is a field of the chunk). The header is the same
    words in every chunk of a section: counted in full in the length, a long heading
    path made a short chunk under it lose to a longer chunk elsewhere. A plain string
    is all text (a peer's chunk). The language is guessed once, from both fields
    together (``tokenize`` of the joined text gives the same terms).
    """
    counts, length, _ = bm25_terms(indexed, language, header_length_weight)
    return counts, length


def bm25_terms(indexed: str | FieldedText, language: str | None = None,
               header_length_weight: float | None = None) -> IndexedTerms:
    """``indexed_terms``, with the terms that count in the document frequency of
    ``ragbeam eval``'s BM25: all but those the document's title alone gives the chunk
    (``FieldedText.name``, its label's first part).

    The label is the document's, copied into each of its chunks: counted as the chunk's
    own words, its title made the document's name as common as the document is long, so
    a question that names a company or an article's subject found the name worth almost
    nothing, in every one of that document's chunks and in the text that says it (issue
    38: five dev domains, BM25 at 600 tokens over all documents, 244 → 260 questions).
    The title's words still count in the chunk's term frequencies: they tell documents
    apart. The label's kind and period ("Form 10-K", "FY2022") count as before: many
    documents' labels say them, and weighed by the texts alone, which seldom write "FY",
    they raised every fiscal-year filing over a quarter's for any question naming a
    fiscal year (the closing set lost 3 of 15). A term the text or a heading holds
    counts as before."""
    if not isinstance(indexed, FieldedText) or not indexed.header:
        counts = Counter(tokenize(as_text(indexed), language))
        return IndexedTerms(counts, float(sum(counts.values())), frozenset(counts))
    header_words, header_cjk = _words_and_cjk(indexed.header.casefold())
    text_words, text_cjk = _words_and_cjk(indexed.text.casefold())
    language = language or guess_language(header_words + text_words)
    header = Counter(_terms(header_words, header_cjk, language))
    text = Counter(_terms(text_words, text_cjk, language))
    weight = HEADER_LENGTH_WEIGHT if header_length_weight is None else header_length_weight
    length = sum(text.values()) + weight * sum(header.values())
    counts = header + text
    if not indexed.name:
        return IndexedTerms(counts, length, frozenset(counts))
    name = Counter(_terms(*_words_and_cjk(indexed.name.casefold()), language))
    # a term counts where the text holds it or the header holds it more often than the
    # title does (a heading, the label's kind or period say it too)
    return IndexedTerms(counts, length, frozenset(
        term for term in counts if text[term] or header[term] > name[term]))


def full_years(folded: str) -> list[str]:
    """The years in full of the fiscal years ``folded`` names in short ("fy23" →
    "2023"), one per mention: a slide deck's "FY23" then matches a question's "2023年度"
    or "fiscal 2023", as "FY2023" does."""
    return [str((2000 if int(m.group(1)) < CENTURY_PIVOT else 1900) + int(m.group(1)))
            for m in _FY_SHORT.finditer(folded)]


def words_of(text: str) -> list[str]:
    """Case-folded words and numbers of ``text`` (before stop words and stemming)."""
    return [m.group() for m in WORD.finditer(text.casefold())]
