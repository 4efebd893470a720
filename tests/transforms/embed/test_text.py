"""What BM25 / the sparse vector and what the dense model see of a chunk
(``transforms/embed/text.py``; chosen on the retrieval benchmark, issue 38): the dense
model the document label and the nearest heading, then the text; BM25 the whole
contextual header, then the text."""

from __future__ import annotations

from ragbeam.evaluate.evaluation import indexed_texts
from ragbeam.evaluate.run_data import chunk_rows_from_dicts
from ragbeam.transforms.embed.lexical import FieldedText
from ragbeam.transforms.embed.sparse import encode_sparse_document, with_sparse_vector
from ragbeam.transforms.embed.text import (
    DENSE_TEXT,
    chunk_embedding_text,
    chunk_sparse_fields,
    chunk_sparse_text,
    context_parts,
    dense_text_for,
    headings_after_label,
    short_context,
    sparse_fields_for,
    sparse_text_for,
    without_label_year,
)
from ragbeam.transforms.plan.layers import dense_key

LABEL = "Apple Inc. · Form 10-Q · quarterly period ended July 1, 2023"
PATH = ("PART I — FINANCIAL INFORMATION", "Item 2. Management's Discussion", "Gross Margin")
CONTEXT = " > ".join((LABEL, *PATH))
TEXT = "Gross margin percentage rose to 44.5 %, driven by services."
INDEXED = f"{LABEL} > Gross Margin\n\n{TEXT}"  # the dense text
CONTEXTUAL = f"{CONTEXT}\n\n{TEXT}"  # BM25's


def _row(**extra) -> dict:
    return {"chunk_id": "c", "doc_id": "d", "chunk_index": 0, "text": TEXT, "context": CONTEXT,
            "heading_path": list(PATH), "char_start": 0, "char_end": len(TEXT),
            "token_count": 12, **extra}


def test_the_dense_model_sees_the_label_and_the_nearest_heading_not_the_whole_path():
    assert dense_text_for(CONTEXT, TEXT, PATH) == INDEXED
    assert chunk_embedding_text(_row()) == INDEXED
    # An earlier run's embed_text column held the whole path: it is not embedded again.
    assert chunk_embedding_text(_row(embed_text=f"{CONTEXT}\n\n{TEXT}")) == INDEXED


def test_bm25_and_the_sparse_vector_index_the_whole_header():
    assert sparse_text_for(CONTEXT, TEXT, PATH) == CONTEXTUAL
    assert chunk_sparse_text(_row()) == CONTEXTUAL
    # as two fields (the header's length counts apart), from the chunk's fields
    assert sparse_fields_for(CONTEXT, TEXT, PATH) == FieldedText(CONTEXT, TEXT, "Apple Inc.")
    assert chunk_sparse_fields(_row()) == FieldedText(CONTEXT, TEXT, "Apple Inc.")
    vector = with_sparse_vector(_row())["sparse"]
    assert vector == encode_sparse_document(FieldedText(CONTEXT, TEXT, "Apple Inc.")).as_row()
    assert vector != encode_sparse_document(CONTEXTUAL).as_row()
    assert vector != encode_sparse_document(INDEXED).as_row()


def test_a_heading_the_text_starts_with_is_indexed_once():
    text = "Gross Margin\nGross margin percentage rose."
    assert dense_text_for(CONTEXT, text, PATH) == f"{LABEL}\n\n{text}"


def test_a_table_chunk_keeps_its_title_and_header_row():
    context = f"{CONTEXT}\nNet sales by category\n| Category | 2023 | 2022"
    assert short_context(context, PATH) == (
        f"{LABEL} > Gross Margin\nNet sales by category\n| Category | 2023 | 2022")


def test_a_context_is_taken_apart_into_label_headings_and_table_lines():
    assert context_parts(CONTEXT + "\n| a | b", PATH) == (LABEL, list(PATH), ["| a | b"])
    # a first heading that restates the label is said once (records.context_header)
    restated = ("Apple Inc.", *PATH)
    assert context_parts(CONTEXT, restated) == (LABEL, list(PATH), [])
    # a document without a label: its headings only
    assert short_context("Guide > Install > Linux", ("Guide", "Install", "Linux")) in (
        "Guide > Install > Linux", "Guide > Linux")
    # no heading path known: the first line is kept whole
    assert short_context(CONTEXT, ()) == CONTEXT
    # a table lines only context (no label, no path)
    assert context_parts("| a | b", ()) == ("| a | b", [], [])


def test_the_evaluation_indexes_what_the_pipeline_indexes():
    chunks = chunk_rows_from_dicts([_row()])
    assert indexed_texts(chunks, "contextual") == ([FieldedText(CONTEXT, TEXT, "Apple Inc.")],
                                                   [INDEXED])
    assert indexed_texts(chunks, "contextual")[0][0].joined() == CONTEXTUAL
    assert indexed_texts(chunks, "text") == ([TEXT], [TEXT])


def test_vectors_of_the_old_embedding_text_are_redone():
    record = {"model": "m", "revision": "r", "dimension": 384, "normalized": True,
              "precision": "fp32", "backend": "torch"}
    # a run before the choice embedded the whole header and recorded no ``text``
    assert dense_key(record) != dense_key({**record, "text": DENSE_TEXT})


def test_headings_after_label_drop_the_title_printed_again():
    label = "Annual Report 2023 · 10-K"
    assert headings_after_label(label, ("Annual Report 2023", "Item 7.", "Item 7.", "Liquidity")
                                ) == ["Item 7.", "Liquidity"]
    assert headings_after_label("", ("Annual Report 2023", "Item 7.")) == [
        "Annual Report 2023", "Item 7."]


def test_a_headings_fiscal_year_the_label_states_is_said_once():
    label = "港湾機械株式会社 事業報告 · 2023年度"
    path = ("1 企業集団の現況（自 2023年4月1日 至 2024年3月31日）",
            "（3）財産および損益の状況の推移")
    assert headings_after_label(label, path) == ["1 企業集団の現況", path[1]]
    assert without_label_year(label, "会社の概況（2023年4月1日から2024年3月31日まで）") == \
        "会社の概況"
    # another year, a span shorter than a year, a label without the year: kept
    assert headings_after_label("港湾機械株式会社 事業報告 · 2022年度", path) == list(path)
    assert without_label_year(label, "第3四半期（自 2023年4月1日 至 2023年12月31日）") == \
        "第3四半期（自 2023年4月1日 至 2023年12月31日）"
    assert without_label_year(label, "（自 2023年4月1日 至 2024年3月31日）") == \
        "（自 2023年4月1日 至 2024年3月31日）"  # nothing else to say: kept
    # the header's parts are found again, and the dense text's nearest heading
    context = " > ".join([label, *headings_after_label(label, path)])
    assert context_parts(context + "\n| 区分 | 2023年度", path) == (
        label, ["1 企業集団の現況", path[1]], ["| 区分 | 2023年度"])
    assert short_context(context, path) == f"{label} > {path[1]}"


def test_a_label_word_the_text_already_holds_is_not_indexed_again():
    # An encyclopedia article: its subject names the label and most of its text.
    context = "Lake Varnu > Geography"
    text = "Lake Varnu lies in a glacial valley; the lakes nearby are smaller."
    assert sparse_text_for(context, text, ("Geography",)) == f"Geography\n\n{text}"
    # a chunk that does not name the subject keeps the label: it still tells
    # the documents apart
    other = "The valley was settled in 1820."
    assert sparse_text_for(context, other, ("Geography",)) == f"{context}\n\n{other}"
    # only the words the text holds go (stemmed: "lakes" holds "Lake")
    assert sparse_text_for("Lake Orlen", text, ()) == f"Orlen\n\n{text}"
    # a table line that restates a label word holds it as well
    assert sparse_text_for("Lake Varnu\nVarnu depths", other, ()) == (
        f"Lake\nVarnu depths\n\n{other}")


def test_a_heading_does_not_cut_a_word_out_of_the_label():
    # An encyclopedia article titled after its subject, a section heading restating one
    # of the title's words: each chunk of the section still names the document whole,
    # not by a fragment ("Varnu > Size of the lake" would leave "Lake" out of the label
    # of this section's chunks alone).
    text = "The valley was settled in 1820."
    path = ("Geography", "Size of the lake")
    assert sparse_text_for("Lake Varnu > Geography > Size of the lake", text, path) == (
        f"Lake Varnu > Geography > Size of the lake\n\n{text}")
    # the text's words still go
    assert sparse_text_for("Lake Varnu > Geography > Size of the lake",
                           "Varnu is deep.", path) == (
        "Lake > Geography > Size of the lake\n\nVarnu is deep.")


def test_a_label_word_with_a_digit_is_always_indexed():
    # a period tells a company's filings apart: said again where the text says it too
    label = "Acme Corp · Form 10-Q · Q3 2023"
    text = "Acme Corp revenue in Q3 2023 rose 4 %."
    assert sparse_text_for(f"{label} > Revenue", text, ("Revenue",)) == (
        f"Form 10-Q · Q3 2023 > Revenue\n\n{text}")
    # a table's lines below the label are kept whole
    context = f"{label} > Revenue\nNet sales\n| Region | 2023"
    assert sparse_text_for(context, text, ("Revenue",)) == (
        f"Form 10-Q · Q3 2023 > Revenue\nNet sales\n| Region | 2023\n\n{text}")


def test_note_markers_are_not_indexed_but_stay_in_the_text():
    """An encyclopedia paragraph's numbered notes ("…removed.[1]", "Madison)[13][14]") are
    left out of what the dense model and BM25 see; brackets after a space (a reference
    list's "[3] Smith", an interval "[1, n]") and the chunk text are kept."""
    from ragbeam.transforms.embed.text import without_note_marks

    text = ("Justices have lifetime tenure (no justice has been removed).[1] The Court "
            "heard few cases,[9][10] its power grew[citation needed] in 1801.[12]")
    plain = ("Justices have lifetime tenure (no justice has been removed). The Court "
             "heard few cases, its power grew in 1801.")
    assert without_note_marks(text) == plain
    assert dense_text_for("Court > Tenure", text, ("Tenure",)) == f"Court > Tenure\n\n{plain}"
    assert sparse_text_for("Court > Tenure", text, ("Tenure",)).endswith(f"\n\n{plain}")
    assert chunk_embedding_text(_row(text=text)).endswith(plain)
    kept = "[3] Smith, J. (2001). Courts.\nfor t ∈ [1, n] and [2]"
    assert without_note_marks(kept) == kept
    assert without_note_marks("Table [12 rows]") == "Table [12 rows]"


def test_a_section_opening_with_its_first_subsection_says_each_heading_once():
    """A section whose text opens with its own heading and its first subsection's
    ("Membership" then "Current justices"): neither header repeats what the text's
    opening lines say; a heading only the header says stays."""
    label, path = "Federal Judiciary", ("Membership", "Current justices")
    context = " > ".join((label, *path))
    text = "Membership\nCurrent justices\nThe court is currently filled with nine justices."
    assert dense_text_for(context, text, path) == f"{label}\n\n{text}"
    assert sparse_text_for(context, text, path) == f"{label}\n\n{text}"
    # Only the subsection's heading opens the text: its parent stays in BM25's header.
    inner = "Current justices\nThe court is currently filled with nine justices."
    assert sparse_text_for(context, inner, path) == f"{label} > Membership\n\n{inner}"
    assert dense_text_for(context, inner, path) == f"{label}\n\n{inner}"
    # A paragraph that starts with a heading's words is no heading line.
    prose = "Membership of the court is fixed by statute."
    assert dense_text_for(context, prose, path) == f"{label} > Current justices\n\n{prose}"
