"""Pictures on a user's first day (issue 41), in one real run with the defaults: a
picture with text is read, in its own script, wherever it is (a picture file, the only
content of a slide deck or a Word file, a JPEG Tika cannot parse); a picture without
text, or one nothing can decode, is ``unsupported``, never an extraction failure
counted toward ``--max-error-rate``."""

from __future__ import annotations

import os

import pytest
from made_documents import (
    cjk_font_path,
    jpeg_of,
    picture_of_lines,
    picture_only_docx,
    picture_only_pptx,
)

from ragbeam.schemas.documents import STATUS_UNSUPPORTED
from ragbeam.transforms.extract.backends import ocr_unavailable
from ragbeam.transforms.extract.ocr import installed_packs

from conftest import TEST_EXTRACT_TIMEOUT
from helpers import read_table, run_cli, settle

DECK = ("Harbour cranes were inspected today.", "Every brake was tested under load.")
MEMO = ("Quarterly invoice for harbour cranes.", "Payment is due within thirty days.")
CHINESE = ("新鲜甘草黄酮养分，是一种天然的植物提取物。", "研究人员在实验室中测试了它的效果。")
JAPANESE = ("東京の港では毎朝クレーンの点検が行われます。",
            "作業員はブレーキの状態を確認しました。")


@pytest.fixture(scope="module")
def ocr_ready():
    ocr_unavailable.cache_clear()
    installed_packs.cache_clear()
    needed = {"eng", "osd", "chi_sim", "chi_tra", "jpn"}
    problem = ocr_unavailable("eng") or (
        "packs missing" if not needed <= installed_packs() else None) or (
        None if cjk_font_path() else "no CJK font (fonts-wqy-microhei)")
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs them (make ocr): {problem}")
        pytest.skip(problem)


def _unparseable_jpeg() -> bytes:
    """A JPEG whose APP1 segment declares length 0: Tika's metadata reader gives up
    ("Can't read JPEG metadata"); libjpeg, which Tesseract reads it with, skips it."""
    jpeg = jpeg_of(picture_of_lines(DECK[:1]))
    return jpeg[:2] + b"\xff\xe1\x00\x00" + jpeg[2:]


def test_pictures_are_read_in_their_script_or_unsupported_never_failed(ocr_ready, tmp_path,
                                                                       capsys):
    corpus = tmp_path / "in"
    corpus.mkdir()
    font = cjk_font_path()
    files = {
        "deck.pptx": picture_only_pptx(picture_of_lines(DECK)),
        "memo.docx": picture_only_docx(picture_of_lines(MEMO)),
        "blank-deck.pptx": picture_only_pptx(picture_of_lines([""])),
        "scan.jpg": _unparseable_jpeg(),
        "cut.jpg": jpeg_of(picture_of_lines(DECK))[:200],  # nothing decodes it
        "chinese.png": picture_of_lines(CHINESE, font),
        "japanese.png": picture_of_lines(JAPANESE, font),
    }
    for name, data in files.items():
        (corpus / name).write_bytes(data)
    settle(corpus)
    out = tmp_path / "out"
    summary = run_cli(["--input", str(corpus), "--output", str(out), "--max-error-rate", "0",
                       "--extract-timeout", TEST_EXTRACT_TIMEOUT])
    docs = {r["source_uri"].rsplit("/", 1)[-1]: r
            for r in read_table(out, "documents").to_pylist()}
    status = {name: doc["status"] for name, doc in docs.items()}
    assert status == {"deck.pptx": "ok", "memo.docx": "ok", "scan.jpg": "ok",
                      "chinese.png": "ok", "japanese.png": "ok",
                      "blank-deck.pptx": STATUS_UNSUPPORTED, "cut.jpg": STATUS_UNSUPPORTED}
    assert summary["documents_error"] == 0 and summary["outcome"] == "ok"
    text = {name: " ".join((doc["text"] or "").split()) for name, doc in docs.items()}
    assert all(line in text["deck.pptx"] for line in DECK)
    assert all(line in text["memo.docx"] for line in MEMO)
    assert DECK[0] in text["scan.jpg"]
    assert "only content is 1 picture(s), in which OCR read no text" in docs[
        "blank-deck.pptx"]["error"]
    assert "the image: tesseract failed" in docs["cut.jpg"]["error"]
    # Their own characters, no Tesseract spaces between them, no Latin letters.
    assert all(line in text["chinese.png"] for line in CHINESE)
    assert "東京の港" in text["japanese.png"]
    assert not any(c.isascii() and c.isalpha() for c in text["chinese.png"] + text[
        "japanese.png"])
    assert (docs["chinese.png"]["language"], docs["japanese.png"]["language"]) == ("zh", "ja")
