"""Chunks with nothing a person would search for are dropped, and counted."""

from __future__ import annotations

import shutil

from ragbeam.transforms.chunk.base import ChunkingResult
from ragbeam.transforms.chunk.searchable import DROPPED_KEY, drop_unsearchable
from ragbeam.transforms.types import BlockKind, Chunk, ChunkLevel, Document, SourceFile, TextSpan

from conftest import require_corpus
from helpers import read_table, run_cli

SRC = SourceFile(uri="/x", doc_id="d", size_bytes=1)


def _doc(text: str, media_type: str = "text/plain",
         headings: tuple[tuple[int, int], ...] = ()) -> Document:
    spans = [TextSpan(s, e, BlockKind.HEADING, None, 1, s, e, i) for i, (s, e) in
             enumerate(headings)]
    return Document(source=SRC, content_hash="h", media_type=media_type, text=text,
                    spans=tuple(spans))


def _whole(doc: Document) -> ChunkingResult:
    return ChunkingResult([Chunk(0, len(doc.text), doc.text)], {"hard_cuts": 0})


def _kept(doc: Document) -> bool:
    result = drop_unsearchable(doc, _whole(doc))
    assert result.stats[DROPPED_KEY] == 1 - len(result.chunks)
    assert result.stats["hard_cuts"] == 0  # the strategy's own stats stay
    return bool(result.chunks)


def test_chunks_without_a_letter_are_dropped():
    for text in ("| 139", "11 12 13\n\n14 15\n\n16 17 18 19", "42", "--- | ---", "3.14159"):
        assert not _kept(_doc(text)), text


def test_whole_table_rows_of_numbers_stay():
    # Their header row travels in the chunk's context (records.chunk_context).
    assert _kept(_doc("2016 | 91,154 | 20,539\n2017 | 96,571 | 25,489"))
    assert not _kept(_doc("| 139"))  # the end of a row cut by the chunker
    assert not _kept(_doc("2016 | 91,154\n139"))


def test_short_real_text_stays():
    for text in ("Main document", "谢谢 | 75", "X2 + Y2 = Z", "Revenue | 139", "Call me.",
                 "Ja.", "22. Roberts,"):
        assert _kept(_doc(text)), text


def test_empty_sheets_names_are_dropped_but_a_heading_with_body_stays():
    assert not _kept(_doc("Sheet2\n\nSheet3", headings=((0, 6), (8, 14))))
    assert not _kept(_doc("Tabelle1", headings=((0, 8),)))
    assert _kept(_doc("Sheet2\n\nTotal 139", headings=((0, 6),)))  # a body line
    assert _kept(_doc("Results\n\nSheet3", headings=((0, 7), (9, 15))))  # a real heading
    assert _kept(_doc("Sheet2 Sheet3"))  # body text that reads like labels stays


def test_media_tags_are_dropped():
    assert not _kept(_doc("Test Title\nTest Artist\nTest Album\n2008", media_type="audio/mpeg"))
    assert not _kept(_doc("Big Buck Bunny", media_type="video/mp4"))
    assert _kept(_doc("Big Buck Bunny", media_type="image/png"))  # OCR'd text is content


def test_a_parent_is_never_dropped_and_parents_are_renumbered():
    doc = _doc("| 1\n\nAlpha beta\n\n| 2\n\nGamma")
    chunks = [Chunk(0, 3, "| 1"), Chunk(5, 15, "Alpha beta"), Chunk(17, 20, "| 2", parent=None),
              Chunk(22, 27, "Gamma", ChunkLevel.PARENT),
              Chunk(22, 27, "Gamma", ChunkLevel.CHUNK, parent=3)]
    result = drop_unsearchable(doc, ChunkingResult(chunks))
    assert [c.text for c in result.chunks] == ["Alpha beta", "Gamma", "Gamma"]
    assert result.chunks[2].parent == 1
    assert result.stats[DROPPED_KEY] == 2


def test_run_counts_dropped_chunks_and_keeps_every_document(tmp_path):
    corpus = require_corpus()
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("xlsx/excel-headers-footers.xlsx", "msg/zh-outlook.msg"):
        shutil.copy(corpus / name, folder / name.split("/")[1])
    numbers = folder / "numbers.txt"
    numbers.write_text("139\n", encoding="utf-8")
    out = tmp_path / "out"
    # At 128 tokens both files leave a piece that is no text (the size places the cuts).
    summary = run_cli(["--input", str(folder), "--output", str(out), "--chunk-size", "128"])
    documents = {row["source_uri"].rsplit("/", 1)[-1]: row
                 for row in read_table(out, "documents").to_pylist()}
    assert set(documents) == {"excel-headers-footers.xlsx", "zh-outlook.msg", "numbers.txt"}
    assert all(row["status"] == "ok" for row in documents.values())
    dropped = {name: int(dict(row["metadata"])["chunk_dropped_unsearchable"])
               for name, row in documents.items()}
    assert dropped["numbers.txt"] == 1 and documents["numbers.txt"]["chunk_count"] == 0
    assert dropped["excel-headers-footers.xlsx"] >= 1 and dropped["zh-outlook.msg"] >= 1
    assert summary["chunks_dropped_unsearchable"] == sum(dropped.values())
    texts = [row["text"] for row in read_table(out, "chunks").to_pylist()]
    assert "Sheet2\n\nSheet3" not in texts and all(any(ch.isalpha() for ch in t) for t in texts)
    # An incremental re-run keeps the document with no chunks as it was.
    rerun = run_cli(["--input", str(folder), "--output", str(tmp_path / "rerun"),
                     "--previous", str(out), "--chunk-size", "128"])
    assert rerun["documents_unchanged"] == 3 and rerun["chunks_dropped_unsearchable"] == 0
    again = {row["source_uri"].rsplit("/", 1)[-1]: row
             for row in read_table(tmp_path / "rerun", "documents").to_pylist()}
    assert again["numbers.txt"]["chunk_count"] == 0


def test_a_chunk_of_binary_or_encoding_garbage_is_dropped():
    """Issue 41: a PDF's bytes read as text (``%PDF-1.4 %âãÏÓ 114 0 obj``) and text in
    the wrong encoding have letters, but nothing a person would search for."""
    pdf = (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n114 0 obj\n<</Filter/FlateDecode/Length 2817>>stream\n"
           + bytes(range(128, 256)) * 3 + b"\nendstream\nendobj\n")
    assert not _kept(_doc(pdf.decode("cp1252", errors="replace")))
    chinese = "新鲜甘草黄酮养分是一种天然的植物提取物，研究人员在实验室中测试了它的效果。" * 3
    assert not _kept(_doc(chinese.encode("utf-8").decode("cp1252", errors="replace")))
    assert _kept(_doc(chinese))
    assert _kept(_doc("Élève à l'école — où ça? Déjà vu, çà et là, naïve café."))
