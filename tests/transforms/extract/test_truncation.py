"""A document Tika could only partly read (a ZIP-based file cut short) is flagged
``incomplete`` and counted in run.json; real bytes, a real run."""

from __future__ import annotations

import io
import os
import zipfile

from ragbeam.transforms.errors import INCOMPLETE_KEY, TRUNCATED_FILE
from ragbeam.transforms.extract.truncation import truncated_zip

from conftest import SAMPLES
from helpers import read_table, run_cli, settle


def _docx_with_a_long_tail() -> bytes:
    """``lab-rules.docx`` rewritten with a large last part (an unreferenced XML part,
    stored): cut inside it, every text part is still whole, only the end of the file
    (the central directory) is missing, as after an interrupted copy."""
    out = io.BytesIO()
    with zipfile.ZipFile(SAMPLES / "lab-rules.docx") as source, \
            zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            target.writestr(info, source.read(info))
        tail = "<tail>" + os.urandom(10_000).hex() + "</tail>"
        target.writestr(zipfile.ZipInfo("customXml/item1.xml"), tail)
    return out.getvalue()


def test_truncated_zip_is_told_from_a_whole_one_by_its_bytes():
    whole = (SAMPLES / "lab-rules.docx").read_bytes()
    assert not truncated_zip(whole)
    assert truncated_zip(whole[:1500]) and truncated_zip(_docx_with_a_long_tail()[:9000])
    assert not truncated_zip(b"%PDF-1.7 cut") and not truncated_zip(b"")


def test_a_docx_cut_short_is_ok_flagged_incomplete_and_counted(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    data = _docx_with_a_long_tail()
    (folder / "whole.docx").write_bytes(data)
    (folder / "cut.docx").write_bytes(data[:9000])
    settle(folder)
    out = tmp_path / "out"
    summary = run_cli(["--input", str(folder), "--output", str(out)])
    docs = {os.path.basename(d["source_uri"]): d
            for d in read_table(out, "documents").to_pylist()}
    assert docs["cut.docx"]["status"] == docs["whole.docx"]["status"] == "ok"
    assert docs["cut.docx"]["text"] and docs["cut.docx"]["chunk_count"] > 0
    assert dict(docs["cut.docx"]["metadata"])[INCOMPLETE_KEY] == TRUNCATED_FILE
    assert INCOMPLETE_KEY not in dict(docs["whole.docx"]["metadata"])
    assert summary["documents_incomplete"] == 1
    assert summary["documents_incomplete_by_reason"] == {TRUNCATED_FILE: 1}
    # Permanent: the same bytes are carried over, not read again every night.
    again = run_cli(["--input", str(folder), "--output", str(tmp_path / "again"),
                     "--previous", str(out)])
    assert again["documents_processed"] == 0 and again["documents_incomplete"] == 1
