"""The garbage-text score (``transforms/garbage.py``) on real text of several scripts,
and on binary data and text decoded in the wrong encoding; its measured precision and
recall over 1,087 texts are ``benchmarks/garbage_text.py``'s."""

from __future__ import annotations

from ragbeam.transforms.garbage import MAX_WINDOWS, WINDOW, _windows, garbage_share, is_garbage

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
