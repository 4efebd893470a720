"""Nothing binary and no link junk is ever a chunk (issues 41 and 38), in one real run:

* a PDF behind a line of HTML (a download artefact) was detected as ``text/html`` and
  its bytes became 1,490 ``ok`` chunks of ``%PDF-1.4 %âãÏÓ 114 0 obj``: it is read as
  the PDF it is;
* a web page written in UTF-8 that declares windows-1252 reads as mojibake: refused
  with a clear reason, never chunked;
* a PDF's link annotations (Tika wrote each URI into the page's text: bare
  ``https://…/ExternalLink/EDGAR/…`` chunks) and comments are the page's links and
  annotations in the documents row's metadata, never text.
"""

from __future__ import annotations

import json

from made_documents import LinkedPage, pdf_with_links

from ragbeam.transforms.garbage import is_garbage

from conftest import TEST_EXTRACT_TIMEOUT, require_corpus
from helpers import read_table, run_cli, settle

UDHR_ZH = "人人生而自由，在尊严和权利上一律平等。他们赋有理性和良心，并应以兄弟关系的精神相对待。"
EDGAR = ("https://content.edgar-online.com/ExternalLink/EDGAR/0001104659-22-065872.html"
         "?hash=668190187fe1dd4c7228ba582d7f3c283ec5dbc41f762f4a2c447c95ca9ca6a7"
         "&dest=tm2215904d1_ex3-1_htm")
FILING = [
    LinkedPage(["Exhibit index of the quarterly report.",
                "Exhibit 3.1 Restated certificate of incorporation, as amended."],
               links=[EDGAR, EDGAR]),
    LinkedPage(["Signatures of the registrant's officers follow on this page."],
               links=["https://www.example.com/investors"], comment="Check the officer list"),
]


def test_binary_is_never_a_chunk_and_links_are_metadata(tmp_path):
    corpus = require_corpus()
    folder = tmp_path / "in"
    folder.mkdir()
    pdf = (corpus / "pdf" / "llncsdoc.pdf").read_bytes()
    (folder / "downloaded.pdf").write_bytes(b"<html><head></head></html>\n" + pdf)
    (folder / "wrong-charset.html").write_bytes(
        ('<html><head><meta charset="windows-1252"><title>UDHR</title></head><body><p>'
         + UDHR_ZH * 20 + "</p></body></html>").encode("utf-8"))
    (folder / "filing.pdf").write_bytes(pdf_with_links(FILING))
    settle(folder)
    out = tmp_path / "out"
    run_cli(["--input", str(folder), "--output", str(out), "--max-error-rate", "1",
             "--extract-timeout", TEST_EXTRACT_TIMEOUT])
    docs = {r["source_uri"].rsplit("/", 1)[-1]: {**r, "metadata": dict(r["metadata"])}
            for r in read_table(out, "documents").to_pylist()}
    chunks = read_table(out, "chunks").to_pylist()

    downloaded = docs["downloaded.pdf"]
    assert (downloaded["status"], downloaded["media_type"]) == ("ok", "application/pdf")
    assert downloaded["metadata"]["extract_skipped_leading_bytes"] == "27"
    assert "Springer" in downloaded["text"] and downloaded["page_count"] == 7

    wrong = docs["wrong-charset.html"]
    assert wrong["status"] == "error" and wrong["chunk_count"] == 0
    assert wrong["error"].startswith("extract: UnreadableTextError: the extracted text reads "
                                     "as binary data or encoding garbage")

    assert not any(is_garbage(c["text"]) or "endobj" in c["text"] for c in chunks)

    filing = docs["filing.pdf"]
    assert filing["status"] == "ok" and "http" not in filing["text"]
    assert "Check the officer" not in filing["text"]
    assert not any("http" in c["text"] for c in chunks if c["doc_id"] == filing["doc_id"])
    assert json.loads(filing["metadata"]["extract_links"]) == [
        {"page": 1, "uri": EDGAR}, {"page": 2, "uri": "https://www.example.com/investors"}]
    assert json.loads(filing["metadata"]["extract_annotations"]) == [
        {"page": 2, "title": "Reviewer", "contents": "Check the officer list"}]
