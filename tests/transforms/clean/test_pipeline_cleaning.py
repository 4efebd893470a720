"""What cleaning and structured extraction leave in a real pipeline run's Parquet."""

from __future__ import annotations


def _docs(corpus_run, corpus_dir) -> dict[str, dict]:
    rows = corpus_run.table("documents").to_pylist()
    return {row["source_uri"]: {**row, "metadata": dict(row["metadata"] or [])} for row in rows}


def test_documents_record_cleaning_counters_and_email_headers(corpus_run, corpus_dir):
    docs = _docs(corpus_run, corpus_dir)
    llncs = docs[str(corpus_dir / "pdf/llncsdoc.pdf")]["metadata"]
    assert llncs["clean_furniture_lines_removed"] == "6"
    assert int(llncs["clean_lines_joined"]) > 100
    dpr = docs[str(corpus_dir / "pdf/dpr-multi-column.pdf")]["metadata"]
    assert int(dpr["clean_hyphenations_joined"]) > 200
    mail = docs[str(corpus_dir / "eml/family-day.eml")]["metadata"]
    assert mail["email_subject"] == "Family Day"
    assert "mallori@unstructured.io" in mail["email_from"]


def test_markdown_and_html_chunks_carry_their_headings(corpus_run, corpus_dir):
    docs = _docs(corpus_run, corpus_dir)
    faq = docs[str(corpus_dir / "md/docling-faq.md")]
    assert faq["media_type"] == "text/markdown"
    wiki = docs[str(corpus_dir / "html/wikipedia-microsoft.html")]
    assert "Afrikaans" not in wiki["text"]
    chunks = corpus_run.table("chunks").to_pylist()
    for doc in (faq, wiki):
        paths = [c["heading_path"] for c in chunks if c["doc_id"] == doc["doc_id"]]
        assert sum(bool(p) for p in paths) > len(paths) / 2, doc["source_uri"]
