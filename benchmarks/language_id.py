"""Language identification: accuracy on short and mixed text, and speed, in one run.

    python benchmarks/language_id.py [--data benchmarks/data/langid-europarl-sample.tsv]
                                     [--lingua]

Data: 40 Europarl sentences in each of 21 languages (``benchmarks/data/langid-sources.csv``
says where they come from; nothing was tuned on them). Three sets:

* **sentence**: each sentence as it is (median ~110 characters);
* **short**: its first 30 characters, cut at a word boundary (a heading, a table cell);
* **mixed**: documents of three English paragraphs and three of another language,
  taken from the same sentences: right when the main language is one of the two
  and the mix names both.

Identifiers: ``ragbeam`` (``transforms/clean/language.py``: py3langid with its
confidence floor, what ``documents.language`` uses; it abstains on text too short
to tell, so its accuracy is also given over the texts it answered),
``py3langid`` (the same model, always answering) and, with ``--lingua`` when
``lingua-language-detector`` is importable, lingua in high and low accuracy mode
(all languages). Times are milliseconds per text on this machine, measured in the
same run; ``os.getloadavg()`` is printed beside them.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import sys
import time
from collections.abc import Callable

REPO = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO / "benchmarks" / "data" / "langid-europarl-sample.tsv"
SHORT_CHARS = 30
MIXED_DOCUMENTS = 60


def load(path: pathlib.Path) -> list[tuple[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        language, _, text = line.partition("\t")
        if text:
            rows.append((language, text))
    return rows


def short(text: str, n: int = SHORT_CHARS) -> str:
    return text if len(text) <= n else text[:n].rsplit(" ", 1)[0]


def mixed_documents(rows: list[tuple[str, str]]) -> list[tuple[frozenset[str], str]]:
    rng = random.Random(5)
    english = [t for lang, t in rows if lang == "en"]
    others = [(lang, t) for lang, t in rows if lang != "en"]
    docs = []
    for _ in range(MIXED_DOCUMENTS):
        lang = rng.choice(sorted({lang for lang, _ in others}))
        theirs = rng.sample([t for code, t in others if code == lang], 3)
        docs.append((frozenset({"en", lang}),
                     "\n\n".join([*rng.sample(english, 3), *theirs])))
    return docs


def ragbeam_identifier() -> tuple[Callable[[str], str | None], Callable[[str], set[str]]]:
    from ragbeam.transforms.clean.language import identify_language

    def main(text: str) -> str | None:
        return identify_language(text).language

    def languages(text: str) -> set[str]:
        guess = identify_language(text)
        return set(guess.mix) or {guess.language}

    return main, languages


def lingua_identifiers() -> dict[str, Callable[[str], str | None]]:
    from lingua import LanguageDetectorBuilder

    def wrap(detector) -> Callable[[str], str | None]:
        def detect(text: str) -> str | None:
            found = detector.detect_language_of(text)
            return found.iso_code_639_1.name.lower() if found else None
        return detect

    return {"lingua-high": wrap(LanguageDetectorBuilder.from_all_languages().build()),
            "lingua-low": wrap(LanguageDetectorBuilder.from_all_languages()
                               .with_low_accuracy_mode().build())}


def score(name: str, identify: Callable[[str], str | None], sets: dict) -> None:
    identify("warm up: load the model before timing")
    for set_name, data in sets.items():
        if set_name == "mixed":
            continue
        started = time.perf_counter()
        right = sum(identify(text) == language for language, text in data)
        ms = 1000 * (time.perf_counter() - started) / len(data)
        print(f"{name:12s} {set_name:9s} accuracy {right / len(data):.3f}  "
              f"({right}/{len(data)})  {ms:6.2f} ms/text  load {os.getloadavg()[0]:.1f}")
    mixed = sets["mixed"]
    started = time.perf_counter()
    right = sum(identify(text) in pair for pair, text in mixed)
    ms = 1000 * (time.perf_counter() - started) / len(mixed)
    print(f"{name:12s} {'mixed':9s} main language one of the two {right / len(mixed):.3f}  "
          f"{ms:6.2f} ms/document")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=pathlib.Path, default=DEFAULT_DATA)
    parser.add_argument("--lingua", action="store_true",
                        help="also score lingua-language-detector (if importable)")
    args = parser.parse_args(argv)
    rows = load(args.data)
    sets = {"sentence": rows, "short": [(lang, short(t)) for lang, t in rows],
            "mixed": mixed_documents(rows)}
    print(f"{len(rows)} sentences, {len({lang for lang, _ in rows})} languages, "
          f"{len(sets['mixed'])} mixed documents")
    main_language, languages = ragbeam_identifier()
    score("ragbeam", main_language, sets)
    for set_name in ("sentence", "short"):
        answers = [(language, main_language(text)) for language, text in sets[set_name]]
        answered = [(language, found) for language, found in answers if found]
        right = sum(language == found for language, found in answered)
        print(f"{'ragbeam':12s} {set_name:9s} answered {len(answered) / len(answers):.3f}, "
              f"accuracy when answered {right / max(len(answered), 1):.3f}")
    from ragbeam.transforms.clean.language import classify

    score("py3langid", lambda text: classify(text)[0], sets)
    both = sum(languages(text) == pair for pair, text in sets["mixed"])
    print(f"{'ragbeam':12s} {'mixed':9s} mix names exactly the two {both / len(sets['mixed']):.3f}")
    if args.lingua:
        try:
            identifiers = lingua_identifiers()
        except ImportError:
            print("lingua-language-detector is not installed: skipped", file=sys.stderr)
            return 0
        for name, identify in identifiers.items():
            score(name, identify, sets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
