"""The garbage-text score (``transforms/garbage.py``) on real text of several scripts,
and on binary data and text decoded in the wrong encoding; its measured precision and
recall over 1,087 texts are ``benchmarks/garbage_text.py``'s."""

from __future__ import annotations

from made_documents import HARBOUR, HARBOUR_POOR

from ragbeam.transforms.garbage import (
    MAX_WINDOWS,
    MIN_WORDS,
    WINDOW,
    _windows,
    garbage_share,
    is_garbage,
    is_known_word,
    text_language,
    unknown_word_share,
)

from conftest import CORPUS, require_corpus

# The first article of the UDHR, and a line of a Wikipedia page.
REAL = {
    "en": "All human beings are born free and equal in dignity and rights. They are endowed "
          "with reason and conscience and should act towards one another in a spirit of "
          "brotherhood.",
    "zh": "人人生而自由，在尊严和权利上一律平等。他们赋有理性和良心，并应以兄弟关系的精神相对待。",
    "ja": "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。",
    "ko": "모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다.",
    "ru": "Все люди рождаются свободными и равными в своем достоинстве и правах.",
    "vi": "Tất cả mọi người sinh ra đều được tự do và bình đẳng về nhân phẩm và quyền.",
    "is": "Hver maður er borinn frjáls og jafn öðrum að virðingu og réttindum. Menn eru "
          "gæddir vitsmunum og samvizku, og ber þeim að breyta bróðurlega hverjum við annan.",
    "he": "כל בני אדם נולדו בני חורין ושווים בערכם ובזכויותיהם.",
}


def test_real_text_of_many_scripts_is_not_garbage():
    for language, text in REAL.items():
        assert not is_garbage(text * 5), language


def test_text_in_the_wrong_encoding_is_garbage():
    for written, read, language in (("utf-8", "cp1252", "zh"), ("utf-8", "latin-1", "ru"),
                                    ("gbk", "latin-1", "zh"), ("cp1251", "cp1252", "ru"),
                                    ("shift_jis", "cp1252", "ja"), ("euc-kr", "cp1252", "ko")):
        wrong = (REAL[language] * 5).encode(written).decode(read, errors="replace")
        assert is_garbage(wrong), (written, read)


def test_binary_files_read_as_text_are_garbage():
    require_corpus()
    for folder in ("pdf", "docx", "xlsx", "pptx", "epub"):
        path = sorted((CORPUS / folder).iterdir())[0]
        data = path.read_bytes()
        for encoding in ("cp1252", "latin-1", "utf-8"):
            assert is_garbage(data.decode(encoding, errors="replace")), (path, encoding)


def test_a_long_text_costs_at_most_max_windows_and_a_garbage_part_counts_by_its_share():
    text = REAL["en"] * 2000
    windows = _windows(text)
    assert len(windows) == MAX_WINDOWS and all(len(w) == WINDOW for w in windows)
    assert windows[0] == text[:WINDOW] and windows[-1] == text[-WINDOW:]
    junk = bytes(range(128, 256)).decode("latin-1") * 100
    assert 0.2 < garbage_share(text[:40_000] + junk * 1) < 0.5
    assert garbage_share("") == 0.0 and not is_garbage("   ")


# --- Words a poor OCR layer garbles (unknown_word_share) -------------------------------

HARBOUR_WORDS = frozenset(w.strip(".,").lower() for w in HARBOUR.split()) | {"ha", "e"}


def _english_only(language: str) -> frozenset[str] | None:
    return HARBOUR_WORDS if language == "eng" else None


def test_a_poor_ocr_layer_has_a_large_share_of_unknown_words_its_clean_text_none():
    from ragbeam.transforms.extract.ocr import POOR_WORD_SHARE

    assert unknown_word_share(HARBOUR, _english_only) == 0.0
    assert unknown_word_share(HARBOUR_POOR, _english_only) > 2 * POOR_WORD_SHARE


def test_words_are_their_parts_between_joiners_without_digits_marks_or_case_changes():
    words = frozenset({"state", "of", "the", "art", "and", "or", "don", "t", "e", "g"})
    for token in ("state-of-the-art", "and/or", "don't", "e.g", "STATE", "State"):
        assert is_known_word(token, words), token
    for token in ("1n", "st4te", "ha\\/e", "sTate", "stAte", "pesuZt", "and@or", "unknown"):
        assert not is_known_word(token, words), token


def test_only_a_language_with_a_word_list_and_enough_words_is_judged():
    german = ("Die Hafenmeisterin prüfte jeden Kran am nördlichen Kai und stellte fest, dass "
              "die Bremsen von zwei Kränen abgenutzt waren. Jeder Kran wurde geschmiert, und "
              "seine Seile wurden unter Last geprüft, bevor die Schiffe einliefen. Der Pegel "
              "an der Mole wurde gereinigt und für das neue Jahr geeicht.")
    assert text_language(german.split()) == "deu"
    assert unknown_word_share(german, _english_only) is None  # no German list here
    assert unknown_word_share(" ".join(HARBOUR.split()[:MIN_WORDS - 1]), _english_only) is None
    names = " ".join(["Aberdeen Bristol Cardiff Dundee Exeter"] * 10)  # no function words
    assert text_language(names.split()) is None
    assert unknown_word_share(names, _english_only) is None
    assert text_language(HARBOUR_POOR.split()) == "eng"  # its short words survive
