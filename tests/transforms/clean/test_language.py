"""documents.language comes from the cleaned text (py3langid's real model), with the mix
recorded for a bilingual document; wrong file metadata does not win."""

from __future__ import annotations

import json

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.clean.dofn import FAILURES, CleanDocument
from ragbeam.transforms.clean.language import _load, identify_language
from ragbeam.transforms.extract.document import clean_extracted
from ragbeam.transforms.types import Block, BlockKind, ExtractedDocument, SourceFile

from helpers import lines_of

EN = ("The committee approved the budget for the next financial year after a long "
      "debate about the cost of the new railway line.")
DE = ("Der Ausschuss hat den Haushalt für das nächste Geschäftsjahr nach einer langen "
      "Debatte über die Kosten der neuen Bahnstrecke gebilligt.")
ZH_TRADITIONAL = ("豐泰企業公司產業工會第三次理事會議記錄，本年度模範勞工選拔計有三位候選人，"
                  "其餘人員雖然未當選，但只要是被提名就是受到肯定。")


def test_one_language_and_no_mix():
    assert identify_language("\n\n".join([EN] * 3)).language == "en"
    assert identify_language(DE).language == "de"
    assert identify_language(DE).mix == {}


def test_traditional_chinese_is_zh():
    assert identify_language(ZH_TRADITIONAL).language == "zh"


def test_a_bilingual_text_records_both_languages():
    guess = identify_language("\n\n".join([EN, DE, EN, DE, EN]))
    assert guess.language == "en"
    assert set(guess.mix) == {"en", "de"} and abs(sum(guess.mix.values()) - 1) < 0.01


def test_too_little_text_is_no_guess():
    assert identify_language("12 34 56\n\nA1 B2").language is None


def _extracted(name: str, *texts: str) -> ExtractedDocument:
    return ExtractedDocument(
        source=SourceFile(f"/{name}.pdf", name, 1), content_hash="h",
        media_type="application/pdf", raw_text="",
        blocks=tuple(Block(BlockKind.PARAGRAPH, text, page=1) for text in texts),
        metadata={}, language="tr", lines=lines_of("application/pdf"))


def test_the_text_s_language_wins_over_metadata_and_the_switch_turns_it_off():
    documents = [clean_extracted(_extracted("bilingual", EN, DE, EN), CleanOptions()),
                 clean_extracted(_extracted("numbers", "12 34 56"), CleanOptions())]
    with beam.Pipeline() as pipeline:
        for label, options, expected in (
                ("on", CleanOptions(), [("bilingual", "en", "text", ["de", "en"]),
                                        ("numbers", "tr", "metadata", None)]),
                ("off", CleanOptions(identify_language=False),
                 [("bilingual", "tr", None, None), ("numbers", "tr", None, None)])):
            docs = (pipeline | f"{label} create" >> beam.Create(documents)
                    | f"{label} clean" >> beam.ParDo(CleanDocument(options)).with_outputs(
                        FAILURES, main="ok")).ok
            assert_that(docs | f"{label} fields" >> beam.Map(
                lambda d: (d.doc_id, d.language, d.metadata.get("language_source"),
                           sorted(json.loads(d.metadata.get("language_mix", "null")) or [])
                           or None)),
                equal_to(expected), label=f"{label} languages")


def test_an_incremental_worker_loads_the_model_with_its_first_document_only():
    """An unchanged re-run cleans nothing: its worker set-up loads no model."""
    _load.cache_clear()
    lazy = CleanDocument(CleanOptions(), load_at_setup=False)
    lazy.setup()
    assert _load.cache_info().currsize == 0
    english = clean_extracted(_extracted("english", EN, EN), CleanOptions())
    (doc,) = lazy.process(english)
    assert doc.language == "en" and _load.cache_info().currsize == 1
    _load.cache_clear()
    eager = CleanDocument(CleanOptions())
    eager.setup()
    (same,) = eager.process(english)
    assert _load.cache_info().currsize == 1 and same == doc
