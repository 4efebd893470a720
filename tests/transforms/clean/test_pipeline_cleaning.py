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


def test_no_residue_cover_sheet_or_bare_heading_reaches_chunks(corpus_run, corpus_dir):
    """Issue 23: the attached job options, ResearchGate's cover sheet and heading-only
    chunks stay out of a real run's Parquet; what was left out is counted."""
    from ragbeam.transforms.clean.residue import find_residue

    docs = _docs(corpus_run, corpus_dir)
    llncs = docs[str(corpus_dir / "pdf/llncsdoc.pdf")]
    assert llncs["metadata"]["extract_embedded_left_out"] == "1"
    primer = docs[str(corpus_dir / "pdf/langchain-primer-icaens2023.pdf")]
    assert primer["metadata"]["clean_cover_page_removed"] == "1"
    assert primer["language"] == "en"  # its metadata says "tr"
    chunks = [c for c in corpus_run.table("chunks").to_pylist() if c["level"] != "parent"]
    for chunk in chunks:
        lines = chunk["text"].splitlines()
        assert not find_residue(lines, [0] * len(lines), [False] * len(lines)).lines, chunk
        assert not chunk["heading_path"] or chunk["text"].strip() != chunk["heading_path"][-1]
        assert "SEE PROFILE" not in chunk["heading_path"]
    assert corpus_run.summary["cleaning"]["embedded_resources_left_out"] >= 1
    # Furniture removal says how much it took: the documents' own counts, summed.
    assert corpus_run.summary["cleaning"]["furniture_lines_removed"] == sum(
        int(d["metadata"].get("clean_furniture_lines_removed", "0")) for d in docs.values()) > 0
