"""OCR in the picture's own script (issue 41), with real Tesseract on pictures drawn
here: a Chinese and a Japanese picture read with the default languages give their own
characters without Tesseract's spaces between them, never Latin garbage; a reading in
the wrong script is not indexed; a script whose pack is missing waits for it."""

from __future__ import annotations

import io
import json
import os

import pytest
from made_documents import cjk_font_path, picture_of_lines

from ragbeam.transforms.extract.backends import EmbeddedTika, OcrSettings, ocr_unavailable
from ragbeam.transforms.extract.document import (
    UnsupportedDocumentError,
    build_extracted_document,
)
from ragbeam.transforms.extract.ocr import (
    OCR_LANGUAGES_KEY,
    OcrUnavailable,
    installed_packs,
    unspaced_cjk,
    word_confidence,
)
from ragbeam.transforms.types import FetchedFile, SourceFile

CHINESE = ("新鲜甘草黄酮养分，是一种天然的植物提取物。", "研究人员在实验室中测试了它的效果。")
JAPANESE = ("東京の港では毎朝クレーンの点検が行われます。",
            "作業員はブレーキの状態を確認しました。")
RUSSIAN = ("Начальник порта осмотрел каждый кран.", "Каждый кран был смазан и проверен.")


def test_tesseract_s_spaces_between_cjk_characters_go_and_hangul_word_spaces_stay():
    assert unspaced_cjk("新 鲜 甘 草 黄酮 养分 ， 是") == "新鲜甘草黄酮养分，是"
    assert unspaced_cjk("提取 物 ,。 東京 の 港") == "提取物,。東京の港"
    assert unspaced_cjk("使用 Python 编程 。") == "使用 Python 编程。"
    korean = "결과는 보고서에 정리되어 있습니다."
    assert unspaced_cjk(korean) == korean
    assert unspaced_cjk("line one\nline two") == "line one\nline two"


def test_word_confidence_is_the_character_weighted_mean_of_the_words():
    tsv = ("level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight"
           "\tconf\ttext\n"
           "1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t\n"
           "5\t1\t1\t1\t1\t1\t0\t0\t10\t10\t90.0\tabcd\n"
           "5\t1\t1\t1\t1\t2\t0\t0\t10\t10\t30.0\tab\n"
           "5\t1\t1\t1\t1\t3\t0\t0\t10\t10\t95.0\t \n")
    assert word_confidence(tsv) == (pytest.approx(70.0), 2)


@pytest.fixture(scope="module")
def cjk_ready():
    ocr_unavailable.cache_clear()
    installed_packs.cache_clear()
    needed = {"eng", "osd", "chi_sim", "chi_tra", "jpn"}
    problem = ocr_unavailable("eng") or (
        f"packs missing: {sorted(needed - installed_packs())}"
        if not needed <= installed_packs() else None) or (
        None if cjk_font_path() else "no CJK font (fonts-wqy-microhei)")
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs them (make ocr): {problem}")
        pytest.skip(problem)


def _read(lines, languages: str = "auto", name: str = "picture.png"):
    data = picture_of_lines(lines, cjk_font_path())
    tika = EmbeddedTika(ocr=OcrSettings(languages=languages))
    xhtml, metadata = tika.extract(data, name)
    fetched = FetchedFile(SourceFile(f"/in/{name}", "d", len(data)), data, "h")
    return build_extracted_document(fetched, xhtml, metadata)


def test_a_chinese_and_a_japanese_picture_are_read_in_their_script_by_default(cjk_ready):
    chinese = _read(CHINESE)
    assert CHINESE[0] in chinese.raw_text and CHINESE[1] in chinese.raw_text
    assert json.loads(chinese.metadata[OCR_LANGUAGES_KEY])["0"].startswith("chi_")
    japanese = _read(JAPANESE)
    assert JAPANESE[0] in japanese.raw_text.replace(" ", "")
    assert "東京の港" in japanese.raw_text  # no spaces between its characters
    assert json.loads(japanese.metadata[OCR_LANGUAGES_KEY])["0"].startswith("jpn ")


def test_text_read_in_the_wrong_script_is_not_indexed(cjk_ready):
    """With languages given (``eng``), a Chinese picture's reading is Latin garbage
    (``PSS MD, SEMANA "EK"``): below the confidence floor, so the picture has no text
    read: unsupported, saying why."""
    with pytest.raises(UnsupportedDocumentError, match=r"no confident reading \(best: eng"):
        _read(CHINESE, languages="eng")


def test_a_script_whose_pack_is_missing_waits_for_it(cjk_ready):
    if "rus" in installed_packs():
        pytest.skip("the Russian pack is installed here")
    with pytest.raises(OcrUnavailable, match=r"Cyrillic: rus; Debian: tesseract-ocr-rus"):
        _read(RUSSIAN)


HARBOUR = ("The harbour master inspects every crane on the quay each morning.",
           "Each crane was greased and tested before the first ship came in.",
           "The pilots read the tide tables posted at the harbour office.",
           "Two tugs wait at the breakwater for the container ships to arrive.",
           "The night shift logs every vessel that enters or leaves the port.",
           "Fog closed the harbour twice last winter for a whole day each time.")


@pytest.fixture(scope="module")
def osd_ready():
    ocr_unavailable.cache_clear()
    installed_packs.cache_clear()
    problem = ocr_unavailable("eng") or (
        None if "osd" in installed_packs() else "the osd pack is missing")
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs them (make ocr): {problem}")
        pytest.skip(problem)


@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_a_page_scanned_turned_is_read_upright(osd_ready, degrees):
    """A scan fed upside down or sideways read as it lies is below the confidence floor
    (``eng`` 32 % upside down): OSD says how to turn it, and it is read upright."""
    from PIL import Image

    picture = Image.open(io.BytesIO(picture_of_lines(HARBOUR))).rotate(degrees, expand=True)
    out = io.BytesIO()
    picture.save(out, "PNG")
    data = out.getvalue()
    tika = EmbeddedTika(ocr=OcrSettings(languages="auto"))
    xhtml, metadata = tika.extract(data, "scan.png")
    doc = build_extracted_document(FetchedFile(SourceFile("/in/scan.png", "d", len(data)),
                                               data, "h"), xhtml, metadata)
    assert HARBOUR[2] in doc.raw_text and HARBOUR[5] in doc.raw_text
    assert json.loads(doc.metadata[OCR_LANGUAGES_KEY])["0"].startswith("eng ")
