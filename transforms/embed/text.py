"""What a retriever indexes of a chunk, chosen on the retrieval benchmark (issue 38;
docs/benchmarks.md, "What the dense model and BM25 see"):

* the **dense** vector (all-MiniLM-L6-v2) embeds a short header, the document
  label and the nearest heading (and a table's title and header row), then the
  text (``dense_text_for``): the whole heading path fills a third of the word
  pieces of a 10-Q chunk and pulls a document's vectors together (reference: 40
  questions at 600 tokens with it, 42 with the short header); the text alone cannot
  tell twenty 10-Qs apart (sec-10-q: 15, against 39 with the whole header and 44
  with the short one);
* **BM25** and the sparse vector index the whole contextual header (title · kind ·
  period > heading path, a table's title and header row), a blank line, then the
  text (``sparse_text_for``): the short header alone scored as well with BM25 but
  lost hits once fused with the dense ranking (hybrid, sec-10-q). A label word the
  text or a table line already holds is not said again (a word with a digit always
  is); a heading's words do not count.

Both never repeat the heading a chunk's text starts with, and both leave out the note
markers a text's words carry ("… removed.[1] In", "Madison)[13][14]"; ``without_note_marks``):
numbers in brackets said nowhere else, they diluted an encyclopedia article's vectors
(issue 38, reference: dense 42 → 45 questions at 600 tokens, all documents). The chunk
text keeps them.

Pure, and below the Chunk stage: chunk rows get their ``embed_text`` (the dense
text) from here, the Embed stage embeds the same text, and the sparse encoder
indexes ``sparse_text_for``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ragbeam.transforms.embed.lexical import WORD, FieldedText, guess_language, tokenize

# Between the parts of a heading path in a chunk's ``context`` ("Guide > Install").
CONTEXT_SEPARATOR = " > "
# Between the title, kind and period of the document label ("Apple Inc. · Form 10-Q").
LABEL_SEPARATOR = " · "
# documents.metadata keys cleaning sets (``transforms/clean/title.py``): where the title
# (the ``title`` column) came from, what the document is and the period it covers.
TITLE_SOURCE_KEY = "title_source"
KIND_KEY = "document_kind"
PERIOD_KEY = "document_period"
# Around a period's second name ("2025年3月期 第3四半期（2024年度第3四半期）").
ALIAS_OPEN, ALIAS_CLOSE = "（", "）"
# … and an English period's ("Fourth Quarter and Full Year 2022 (FY2022)").
_ALIASES = ((ALIAS_OPEN, ALIAS_CLOSE), (" (", ")"))


def document_label(title: str | None, kind: str | None, period: str | None) -> str:
    """One line naming a document: title, kind and period, each once ("Apple Inc. ·
    Form 10-Q · quarterly period ended December 31, 2022"). A period said two ways,
    "2025年3月期 第3四半期（2024年度第3四半期）" or "Fourth Quarter and Full Year 2022
    (FY2022)", whose first way the title says already, adds its second way only."""
    parts: list[str] = []

    def said(part: str) -> bool:
        return any(part.casefold() in other.casefold() for other in parts)

    for part in (title, kind, period):
        if not part or said(part):
            continue
        for opening, closing in _ALIASES:
            first, bracket, other = part.partition(opening)
            if bracket and other.endswith(closing) and said(first.strip()):
                part = other[:-len(closing)]
                break
        else:
            parts.append(part)
            continue
        if not said(part):
            parts.append(part)
    return LABEL_SEPARATOR.join(parts)


def headings_after_label(label: str, heading_path: Sequence[str]) -> list[str]:
    """The headings of a chunk's header after its document label: the path less its
    leading headings that restate the label (a report's title printed again as its
    first heading), less a heading repeated at once, and each heading less the span
    of dates that states the fiscal year the label names already
    (``without_label_year``)."""
    said = _folded(label)
    start = 0
    while said and start < len(heading_path) and _folded(heading_path[start]) in said:
        start += 1
    return _without_repeats([without_label_year(label, h) for h in heading_path[start:]])


# A Japanese heading's fiscal year as a span of dates, in brackets: "1 企業集団の現況（自
# 2023年4月1日 至 2024年3月31日）", "（2023年4月1日から2024年3月31日まで）".
_DATE = r"((?:19|20)\d{2})\s*年\s*(\d{1,2})\s*月\s*\d{1,2}\s*日"
_BRACKETED_YEAR_SPAN = re.compile(
    rf"\s*[（(]\s*(?:自\s*)?{_DATE}\s*(?:至|から|～|〜)\s*{_DATE}\s*(?:まで)?\s*[）)]")
# Months from the first date's to the second's in a span of a whole year (1 April to 31
# March: 11; to 1 April: 12), as ``transforms/clean/title.py`` counts them.
_YEAR_SPAN_MONTHS = (11, 12)


def without_label_year(label: str, heading: str) -> str:
    """``heading`` less a bracketed span of dates that is a whole fiscal year the
    document's label states as 年度 ("1 企業集団の現況（自 2023年4月1日 至 2024年3月31日）"
    under a label "… 事業報告 · 2023年度": "1 企業集団の現況"): a business report's
    section headings print the year the label names already, and every chunk of the
    section carried it twice."""
    def said(match: re.Match) -> bool:
        y1, m1, y2, m2 = (int(g) for g in match.groups())
        return ((y2 - y1) * 12 + m2 - m1 in _YEAR_SPAN_MONTHS
                and f"{y1}年度" in label)

    if "年" not in heading or "年度" not in label:
        return heading
    stripped = _BRACKETED_YEAR_SPAN.sub(lambda m: "" if said(m) else m.group(0), heading)
    return stripped if stripped.strip() else heading


def _without_repeats(headings: Sequence[str]) -> list[str]:
    kept: list[str] = []
    for heading in headings:
        if not kept or kept[-1] != heading:
            kept.append(heading)
    return kept


def context_parts(context: str, heading_path: Sequence[str]) -> tuple[str, list[str], list[str]]:
    """A ``context`` taken apart: the document label, the headings after it
    (``headings_after_label``) and the lines below (a table's title and header row).

    The label is what the first line holds before the path's headings. Where the line
    reads both ways ("Title > Abstract" from a label "Title" and a path that restates
    it, or from no label and that path), the reading with a label and headings after
    it wins: a document almost always has a label.
    """
    first, newline, rest = context.partition("\n")
    lines = [line for line in rest.split("\n") if line] if newline else []
    readings = []
    # The headings as the header printed them: as they are, or each less a year its
    # label states (``without_label_year``; the whole line stands in for the label).
    starts = range(len(heading_path) + 1)
    tails = dict.fromkeys([tuple(_without_repeats(heading_path[start:])) for start in starts]
                          + [tuple(_without_repeats([without_label_year(first, h)
                                                     for h in heading_path[start:]]))
                             for start in starts])
    for tail_parts in tails:
        tail = list(tail_parts)
        joined = CONTEXT_SEPARATOR.join(tail)
        if not tail:
            label = first
        elif first == joined:
            label = ""
        elif first.endswith(CONTEXT_SEPARATOR + joined):
            label = first[:-len(CONTEXT_SEPARATOR + joined)]
        else:
            continue
        if headings_after_label(label, heading_path) == tail:
            readings.append((bool(label) and bool(tail), len(tail), label, tail))
    if not readings:  # not a header ``context_header`` made: table lines only
        return "", [], [line for line in (first, *lines) if line]
    _, _, label, tail = max(readings, key=lambda r: (r[0], r[1]))
    return label, tail, lines


def short_context(context: str, heading_path: Sequence[str]) -> str:
    """The header the dense model sees: the document label and the nearest heading
    (not the whole path), then the table lines (``"Apple Inc. · Form 10-Q · … > Gross
    Margin"``)."""
    label, headings, lines = context_parts(context, heading_path)
    path_line = CONTEXT_SEPARATOR.join(part for part in (label, *headings[-1:]) if part)
    return "\n".join(part for part in (path_line, *lines) if part)


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def _collapsed(line: str) -> str:
    return " ".join(line.split())


def header_for_text(context: str, text: str, heading_path: Sequence[str] = ()) -> str:
    """``context`` without the headings that ``text`` already starts with.

    A chunk that begins at a heading (every ``structure`` section does) has that
    heading as its first line and as the last part of its heading path; the
    embedder should see it once. A section whose first subsection starts at once
    opens with both headings ("Membership" then "Current justices", the path ending
    "Membership > Current justices"): the header's last parts that are among the text's
    opening heading lines (its first lines, each a part of the header or a heading of
    ``heading_path``) are left out, the nearest heading of a short header too. Only
    whole lines count: a paragraph that merely begins with the heading's words keeps
    its full header.
    """
    path_line, newline, rest = context.partition("\n")
    parts = path_line.split(CONTEXT_SEPARATOR) if path_line else []
    headings = {_collapsed(h) for h in (*parts, *heading_path)}
    opening = set()
    for line in text.splitlines():
        if not line.strip():
            continue
        if _collapsed(line) not in headings:
            break
        opening.add(_collapsed(line))
    while parts and _collapsed(parts[-1]) in opening:
        parts.pop()
    path_line = CONTEXT_SEPARATOR.join(parts)
    return "\n".join(part for part in (path_line, rest if newline else "") if part)


# A note marker: numbered notes in brackets (or "[citation needed]") written against the
# word or mark before them, as an encyclopedia article or a paper prints its references
# ("removed after impeachment.[1]", "Marbury v. Madison)[13][14]"). One after a space
# ("[3] Smith, J. …", a reference list's entry; "t ∈ [1, n]") is the text's own.
_NOTE_MARKS = re.compile(r"(?<=\S)(?:\[(?:\d{1,3}|citation needed)\])+")


def without_note_marks(text: str) -> str:
    """``text`` less its note markers (``_NOTE_MARKS``): what a retriever indexes of a
    chunk's text. A marker stands for a note printed elsewhere; indexed, its brackets and
    number said nothing of the passage and weighed on a small model's vector (an
    encyclopedia paragraph holds one every sentence)."""
    return _NOTE_MARKS.sub("", text) if "[" in text else text


def embed_text_for(context: str, text: str, heading_path: Sequence[str] = ()) -> str:
    """The contextual text: the header, a blank line, then the text; a heading is
    never repeated (``header_for_text``)."""
    header = header_for_text(context, text, heading_path)
    return f"{header}\n\n{text}" if header else text


@functools.lru_cache(maxsize=4096)
def _word_terms(word: str, language: str) -> tuple[str, ...]:
    """A label word's retrieval terms (a document's label recurs in each of its chunks)."""
    return tuple(tokenize(word, language))


def _label_parts_not_in(label: str, text: str) -> list[str]:
    """``label``'s parts (the title first), each less the words whose retrieval terms
    ``text`` already holds (``lexical.tokenize``, in the text's language), a word with a
    digit (a year, a period, a form number) always kept; a part that keeps no word is
    empty."""
    language = guess_language(WORD.findall(text.casefold()))
    held = set(tokenize(text, language))
    parts = []
    for part in label.split(LABEL_SEPARATOR):
        words = []
        for word in part.split():
            terms = _word_terms(word, language)
            if terms and not any(c.isdigit() for c in word) and held.issuperset(terms):
                continue
            held.update(terms)
            words.append(word)
        parts.append(" ".join(words))
    return parts


def sparse_text_for(context: str, text: str, heading_path: Sequence[str] = ()) -> str:
    """What BM25 and the sparse vector index: the whole contextual header, then the
    text (``embed_text_for``), the document label giving each chunk its words once:
    a label word the text or the table lines already hold is not added again
    (``_label_parts_not_in``). The headings do not count: a section heading that
    restates a word of the title ("Size of the Court" in an article titled "Supreme
    Court of the United States") cut it out of the label, and every chunk of the
    section then named the document by a fragment ("Supreme of the United States"),
    one count of the subject short of its neighbours' (issue 38, reference: 31 → 32
    questions at 600 tokens, all documents; BM25 on no other dev domain's all-600 cell
    lost).

    The label stands for the document in every chunk of it: it tells documents apart
    whatever a chunk says. Said once more beside a text that already names the
    subject, it raised the chunks that repeat the subject's name over the ones that
    answer (an encyclopedia article's lead below its sections, each named after its
    subject; issue 38, reference: 29 → 33 questions at 600 tokens, all documents).
    A word with a digit stays: a period tells a company's filings apart. The text's note
    markers are left out (``without_note_marks``). As two fields (BM25 and the sparse
    vector count the header's terms but a fraction of its length): ``sparse_fields_for``.
    """
    return sparse_fields_for(context, text, heading_path).joined()


def sparse_fields_for(context: str, text: str, heading_path: Sequence[str] = ()
                      ) -> FieldedText:
    """``sparse_text_for`` as its two fields, the header (empty for none) and the text:
    what ``lexical.indexed_terms`` counts, the header's terms in full and its length at
    ``lexical.HEADER_LENGTH_WEIGHT``."""
    text = without_note_marks(text)
    label, headings, lines = context_parts(context, heading_path)
    name = ""
    if label:
        parts = _label_parts_not_in(label, "\n".join((*lines, text)))
        name = parts[0]  # the document's title, as the header holds it
        path_line = CONTEXT_SEPARATOR.join(
            part for part in (LABEL_SEPARATOR.join(p for p in parts if p), *headings) if part)
        context = "\n".join(part for part in (path_line, *lines) if part)
    return FieldedText(header_for_text(context, text, heading_path), text, name)


def dense_text_for(context: str, text: str, heading_path: Sequence[str] = ()) -> str:
    """What the dense model embeds: the document label and the nearest heading
    (``short_context``), the table lines, a blank line, then the text; a heading is
    never repeated, the text's note markers left out (``without_note_marks``). Without
    ``heading_path`` the whole first line of ``context`` is kept."""
    return embed_text_for(short_context(context, heading_path), without_note_marks(text),
                          heading_path)


# run.json's ``embedding`` record says what the vectors were made from, so that vectors
# of another text (runs before this choice embedded the whole heading path) are redone.
DENSE_TEXT = ("label > nearest heading + text less note markers "
              "(transforms/embed/text.dense_text_for)")
# … and, with ``--text-vector``, what the second vector of a chunk is made from: its
# text alone, in ``chunks.text_embedding``; a chunk then scores the closer of its two
# vectors to a query (max-sim: ``evaluate/retrieval.max_sim``).
TEXT_VECTOR = ("chunk text alone less note markers (chunks.text_embedding); a chunk scores "
               "its closer vector")


def text_vector_text_for(text: str) -> str:
    """What a chunk's second vector (``--text-vector``) is embedded from: its text alone,
    less note markers, as the dense text leaves them out (``without_note_marks``)."""
    return without_note_marks(text)


def chunk_embedding_text(row: Mapping[str, Any]) -> str:
    """What a chunk row's dense vector is embedded from (``dense_text_for``; made from
    ``context``, ``heading_path`` and ``text``, not read from ``embed_text``: a row an
    earlier run wrote holds another text there)."""
    return dense_text_for(row.get("context") or "", row["text"], row.get("heading_path") or ())


def chunk_embedding_texts(row: Mapping[str, Any], text_vector: bool) -> str | tuple[str, str]:
    """What the Embed stage embeds of a chunk row: its dense text, or with
    ``--text-vector`` the pair (dense text, chunk text), embedded in the same batch.
    A row that keeps its dense vector (``first_vector_kept``: only ``--text-vector``
    changed since the run that made it) gives its chunk text twice: identical texts are
    encoded once (``encode_texts``), and ``with_vectors`` keeps its first vector."""
    if text_vector and first_vector_kept(row):
        text = text_vector_text_for(row["text"])
        return text, text
    dense = chunk_embedding_text(row)
    return (dense, text_vector_text_for(row["text"])) if text_vector else dense


def first_vector_kept(row: Mapping[str, Any]) -> bool:
    """A row the Embed stage is given with its dense vector and without its second:
    only the second is to be made (``plan/layers.py`` keeps the first when the dense
    layers of two runs differ by ``--text-vector`` alone)."""
    return row.get("embedding") is not None and row.get("text_embedding") is None


def chunk_sparse_text(row: Mapping[str, Any]) -> str:
    """What a chunk row's sparse vector indexes (``sparse_text_for``)."""
    return chunk_sparse_fields(row).joined()


def chunk_sparse_fields(row: Mapping[str, Any]) -> FieldedText:
    """``chunk_sparse_text`` as its header and text (``sparse_fields_for``)."""
    return sparse_fields_for(row.get("context") or "", row["text"],
                             row.get("heading_path") or ())
