"""Text that is binary data or encoding garbage, by a measured score (pure).

A PDF behind a few bytes of HTML was detected as ``text/html`` and its bytes,
decoded as windows-1252, became 1,490 ``ok`` chunks (``%PDF-1.4 %âãÏÓ 114 0 obj
<> endobj xref …``); a file in one encoding read as another reads the same way
(``æ–°é²œç”˜è‰``). Such text is told from text in any language by
charset-normalizer's *mess ratio* (``md.mess_ratio``: the share of a decoded
text's characters that its detectors find suspicious — accents piled on
letters, symbols inside words, unprintables, case and script changes where a
language has none), which is what that library decides encodings with.

The score of a text is the share of its windows (``WINDOW`` characters, at most
``MAX_WINDOWS`` spread evenly over it, so a long document costs no more than a
short one) whose mess ratio reaches ``WINDOW_MESS``; a window with few
characters outside ASCII and the scripts' own blocks (``_SUSPECT``) is clean
without being measured: binary and mojibake are made of them. A text is garbage
when its score reaches ``GARBAGE_SHARE``; one under ``MIN_CHARS`` characters never
is (a few characters say too little). Both thresholds were chosen on, and
precision and recall are measured by, ``benchmarks/garbage_text.py``: the first
article of the UDHR in 482 languages and real documents of the corpus, against
binary files decoded as Tika decodes text (windows-1252, ISO-8859-1, UTF-8) and
the same texts in eight wrong encodings (docs/benchmarks.md).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator

from charset_normalizer.md import mess_ratio

WINDOW = 1000
MAX_WINDOWS = 16
# A text shorter than this is never called garbage: a few characters say too little
# (three soft hyphens are cleaning's to refuse).
MIN_CHARS = 40
# Per window: its mess ratio from here on is garbage (charset-normalizer stops
# measuring once it is reached). Real text of 482 languages stays below 1.2
# (Javanese script, Khmer and Lao highest); binary decoded as text is over 2.
WINDOW_MESS = 1.5
# Windows measured only when this share of their characters are suspects.
SUSPECT_SHARE = 0.10
GARBAGE_SHARE = 0.5
# Controls, Latin-1's upper half (where windows-1252 and ISO-8859-1 put the bytes
# 0x80-0xFF of binary data and of UTF-8 read as either), the replacement
# character and the private use area.
_SUSPECT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\xff\ufffd\ue000-\uf8ff]")


def _windows(text: str) -> list[str]:
    """At most ``MAX_WINDOWS`` windows of ``WINDOW`` characters, evenly spread."""
    if len(text) <= WINDOW:
        return [text] if len(text.strip()) >= MIN_CHARS else []
    count = min(MAX_WINDOWS, len(text) // WINDOW)
    step = (len(text) - WINDOW) / max(count - 1, 1)
    return [text[round(i * step):round(i * step) + WINDOW] for i in range(count)]


def window_is_garbage(window: str) -> bool:
    """One window's verdict (see the module doc)."""
    if len(_SUSPECT.findall(window)) < SUSPECT_SHARE * len(window):
        return False
    return mess_ratio(window, WINDOW_MESS) >= WINDOW_MESS


def garbage_share(text: str) -> float:
    """The share of ``text``'s sampled windows that are garbage (0 for no text)."""
    windows = _windows(text)
    if not windows:
        return 0.0
    return sum(map(window_is_garbage, windows)) / len(windows)


def is_garbage(text: str) -> bool:
    """Whether ``text`` reads as binary data or encoding garbage (the module doc)."""
    return garbage_share(text) >= GARBAGE_SHARE



# --- Words a poor OCR layer garbles ----------------------------------------------------
#
# A scan's text layer written by a poor OCR engine reads "tbe Comrnittee rnay ha\/e 1n":
# mostly ASCII, so the mess ratio above finds nothing wrong; what is wrong is its words.
# ``unknown_word_share`` is the share of a text's words that are not words of its
# language. The language is told by its function words (``FUNCTION_WORDS``: at least
# ``LANGUAGE_SHARE`` of the words; prose has 0.3-0.5 in its own language and under 0.05
# in the others) and judged only where a list of that language's words is at hand (the
# caller's ``words_of``: OCR uses Tesseract's own list of the pack that would read the
# page): a text in a language without a list is never judged. Measured, and the
# threshold that uses it chosen, by ``benchmarks/text_layer_quality.py``.

# Fewer words than this say too little (a title page, a figure, a form).
MIN_WORDS = 40
# The first SAMPLE_WORDS words tell the language; when under CLEAN_SHARE of them are
# unknown the page is clean (born-digital pages: median 0.05), and the rest is not read.
SAMPLE_WORDS = 100
CLEAN_SHARE = 0.1
LANGUAGE_SHARE = 0.12
# ISO 639-3 (Tesseract's pack names) -> the language's commonest short words.
FUNCTION_WORDS: dict[str, frozenset[str]] = {lang: frozenset(words.split()) for lang, words in {
    "eng": "the of and to in a is that for it as was with be by on not he this are or his "
           "from at which but have an they you were her she there been all we their has "
           "would when if so no will more can its into than them these may such other",
    "deu": "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als "
           "auch es an werden aus er hat dass sie nach wird bei einer um am sind noch wie "
           "einem über einen so zum war haben nur oder aber vor zur bis",
    "fra": "de la le et les des en un du une que est pour qui dans par sur au pas plus ne se "
           "il ce sont avec ou son aux sa leur cette nous ses elle mais été ont comme",
    "spa": "de la que el en y los del se las por un para con no una su al es lo como más "
           "pero sus le ha me si sin sobre este ya entre cuando todo esta ser son dos",
    "ita": "di e il la che in a per un del non le è della si una al con da dei sono gli "
           "alla come nel più ha delle anche lo questo ma nella",
    "por": "de a o que e do da em um para é com não uma os no se na por mais as dos como "
           "mas foi ao ele das tem à seu sua ou ser quando muito nos já está",
    "nld": "de en van het een in is dat op te zijn met voor niet aan er die door om ook als "
           "bij maar nog wordt uit tot naar dan worden zo",
}.items()}
_LANGUAGES_OF: dict[str, tuple[str, ...]] = {}
for _language, _words_of_language in FUNCTION_WORDS.items():
    for _word in _words_of_language:
        _LANGUAGES_OF[_word] = (*_LANGUAGES_OF.get(_word, ()), _language)
# Characters a word's edges carry (quotes, brackets, sentence punctuation).
_EDGE = "\"'“”‘’«»()[]{}<>.,;:!?¿¡*†‡§•·…–—"
# A word is its parts joined by these (state-of-the-art, don't, and/or, e.g.).
_JOINERS = re.compile(r"[-'’/.&\xad]")
_WORD_TOKEN = re.compile(r"\S*[^\W\d_]\S*")
_CASE_CHANGE = re.compile("[a-zß-öø-ÿ][A-ZÀ-ÖØ-Þ]")


def text_language(tokens: list[str]) -> str | None:
    """The language (a ``FUNCTION_WORDS`` key) whose function words are at least
    ``LANGUAGE_SHARE`` of ``tokens``, the most if several; None if none is."""
    shares = dict.fromkeys(FUNCTION_WORDS, 0)
    for token in tokens:
        for language in _LANGUAGES_OF.get(token.lower(), ()):
            shares[language] += 1
    best = max(shares, key=lambda language: shares[language])
    return best if shares[best] >= LANGUAGE_SHARE * len(tokens) else None


def is_known_word(token: str, words: frozenset[str]) -> bool:
    """Whether a token (edges stripped) is a word of ``words`` (lower case): each
    part between joiners a word, nothing but letters in it, and no change from lower
    to upper case inside (``pesuZt``, ``SUNivors``)."""
    if not (token.islower() or token.isupper() or token[1:].islower()) \
            and _CASE_CHANGE.search(token):
        return False
    lowered = token.lower()
    if lowered in words:
        return True
    parts = [part for part in _JOINERS.split(lowered) if part]
    return len(parts) > 1 and all(part in words for part in parts)


def judged_language(text: str) -> str | None:
    """The language whose word list ``unknown_word_share`` would judge ``text`` by, or
    None where it judges nothing (fewer than ``MIN_WORDS`` words, no language told):
    what a caller tests before it reads a list of words."""
    return _sample(text)[2]


def _sample(text: str) -> tuple[Iterator[str], list[str], str | None]:
    """``text``'s tokens after the first ``SAMPLE_WORDS``, those, and their language
    (None with fewer than ``MIN_WORDS``)."""
    tokens = (match.group().strip(_EDGE) for match in _WORD_TOKEN.finditer(text))
    sample = list(itertools.islice(tokens, SAMPLE_WORDS))
    return tokens, sample, None if len(sample) < MIN_WORDS else text_language(sample)


def unknown_word_share(text: str, words_of: Callable[[str], frozenset[str] | None]
                       ) -> float | None:
    """The share of ``text``'s words (tokens with a letter) that are not words of its
    language (``words_of(language)``: that language's words, lower case), or None
    where it is not measured: fewer than ``MIN_WORDS`` words, no language told (by the
    first ``SAMPLE_WORDS``), or no list of its words. A text whose first
    ``SAMPLE_WORDS`` words have under ``CLEAN_SHARE`` unknown is judged by them alone
    (most pages: a page costs a tenth of a millisecond)."""
    tokens, sample, language = _sample(text)
    if language is None or not (words := words_of(language)):
        return None
    unknown = sum(not is_known_word(t, words) for t in sample)
    if unknown < CLEAN_SHARE * len(sample):
        return unknown / len(sample)
    count = len(sample)
    for token in tokens:
        unknown += not is_known_word(token, words)
        count += 1
    return unknown / count
