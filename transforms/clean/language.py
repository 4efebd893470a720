"""The language of a cleaned document, read from its text (pure).

File metadata names a language for few documents and is often wrong (a
template's ``tr`` on an English PDF), so ``documents.language`` comes from
the text: py3langid (a maintained fork of langid.py: 97 languages, its model
inside the wheel, no download) classifies up to ``MAX_SAMPLES`` paragraphs
spread evenly over the document, each weighted by its letters. A sample the
model is unsure of (normalised probability under ``MIN_CONFIDENCE``: a row
of names, an e-mail signature) does not vote; Chinese varieties it tells
apart by vocabulary (``yue``, ``wuu``) count as ``zh``, their macrolanguage,
as traditional-script Mandarin is often taken for them. The language with
the largest share is the document's; every language with at least
``MIX_SHARE`` of the letters is recorded in the mix, so a bilingual document
says so. Chosen by ``benchmarks/language_id.py`` (accuracy on short
sentences and speed, against lingua).

Deterministic: the same text gives the same samples and the same answer.
``with_language`` applies it to a cleaned ``Document``: ``Document.language``,
with ``language_source`` in its metadata (``text``, or ``metadata`` when the
text has too few letters to tell and the file's own claim stays) and, for a
bilingual document, ``language_mix`` as JSON ``{"de": 0.4, "en": 0.6}``.
The Clean stage calls it in the worker (``dofn.CleanDocument``), which loads
the model once in ``setup``: never inside an extraction child's time limit.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from dataclasses import dataclass, replace

from py3langid.langid import MODEL_FILE, LanguageIdentifier

from ragbeam.transforms.types import Document

MAX_SAMPLES = 32
MAX_SAMPLE_CHARS = 1000
MIN_SAMPLE_LETTERS = 20
MIX_SHARE = 0.2
MIN_CONFIDENCE = 0.5
_MACROLANGUAGE = {"yue": "zh", "wuu": "zh"}
_NO_LANGUAGE = "zxx"
_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class LanguageGuess:
    language: str | None  # ISO 639-1, None when the text has too few letters
    mix: dict[str, float]  # language → share of the sampled letters, when bilingual


def _letters(text: str) -> int:
    return sum(map(str.isalpha, text))


def _has_letters(text: str, wanted: int) -> bool:
    """``_letters(text) >= wanted``, mostly told from the text's start: a paragraph
    rarely needs more than its first few words to show ``wanted`` letters."""
    return _letters(text[:4 * wanted]) >= wanted or (
        len(text) > 4 * wanted and _letters(text) >= wanted)


def _samples(text: str) -> list[str]:
    paragraphs = [p[:MAX_SAMPLE_CHARS] for p in _PARAGRAPH.split(text)
                  if _has_letters(p[:MAX_SAMPLE_CHARS], MIN_SAMPLE_LETTERS)]
    if len(paragraphs) <= MAX_SAMPLES:
        return paragraphs
    step = len(paragraphs) / MAX_SAMPLES
    return [paragraphs[int(i * step)] for i in range(MAX_SAMPLES)]


_LOADING = threading.Lock()


@functools.cache
def _load():  # -> py3langid LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _identifier():
    """The model, loaded once per process (one thread loads, the others wait)."""
    with _LOADING:
        return _load()


def classify(text: str) -> tuple[str, float]:
    """``(language, probability)`` of one piece of text."""
    language, probability = _identifier().classify(text)
    return _MACROLANGUAGE.get(language, language), float(probability)


def identify_language(text: str) -> LanguageGuess:
    """The main language of ``text`` and, if it has more than one, the mix."""
    weights: dict[str, int] = {}
    for sample in _samples(text):
        language, probability = classify(sample)
        if probability >= MIN_CONFIDENCE and language != _NO_LANGUAGE:
            weights[language] = weights.get(language, 0) + _letters(sample)
    total = sum(weights.values())
    if not total:
        return LanguageGuess(None, {})
    ranked = sorted(weights.items(), key=lambda item: (-item[1], item[0]))
    mix = {language: round(n / total, 3) for language, n in ranked if n / total >= MIX_SHARE}
    return LanguageGuess(ranked[0][0], mix if len(mix) > 1 else {})


def load_model() -> threading.Thread:
    """Start loading the model in the background (a worker's setup): join the thread
    before the first document, so its time is spent while the worker starts."""
    thread = threading.Thread(target=_identifier, name="ragbeam-langid", daemon=True)
    thread.start()
    return thread


def with_language(doc: Document) -> Document:
    """``doc`` with its language identified from its text (see the module docstring)."""
    guess = identify_language(doc.text)
    metadata = {**doc.metadata, "language_source": "text" if guess.language else "metadata"}
    if guess.mix:
        metadata["language_mix"] = json.dumps(guess.mix, sort_keys=True)
    return replace(doc, language=guess.language or doc.language, metadata=metadata)
