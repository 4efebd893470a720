"""Machine residue never reaches the cleaned text; ordinary text that looks a bit like it stays."""

from __future__ import annotations

import base64
import hashlib
import json
import random

from ragbeam.transforms.clean.document import CleanOptions, clean_document
from ragbeam.transforms.clean.residue import find_residue, is_blob_line, is_dictionary_line
from ragbeam.transforms.types import Block, BlockKind, ExtractedDocument, SourceFile

from helpers import lines_of

SRC = SourceFile(uri="/x.pdf", doc_id="d", size_bytes=1)
JOB_OPTIONS = """<<
  /ASCII85EncodePages false
  /AllowTransparency false
  /CalGrayProfile (Gray Gamma 2.2)
  /CalCMYKProfile (ISO Coated v2 300% \\050ECI\\051)
  /ColorImageDict <<
    /QFactor 0.15
    /HSamples [1 1 1 1] /VSamples [1 1 1 1]
  >>
  /ColorImageResolution 300
  /Description <<
    /DEU <FEFF00560065007200770065006e00640065006e00200053006900650020006400690065007300650020>
  >>
>> setdistillerparams"""
XMP = """<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"""


def _doc(*blocks: Block) -> ExtractedDocument:
    return ExtractedDocument(source=SRC, content_hash="h", media_type="application/pdf",
                             raw_text="", blocks=blocks, metadata={},
                             lines=lines_of("application/pdf"))


def _residue_of(text: str, code: bool = False) -> set[int]:
    lines = text.splitlines()
    return set(find_residue(lines, [0] * len(lines), [code] * len(lines)).lines)


def test_pdf_dictionaries_xmp_packets_and_blobs_are_residue():
    assert _residue_of(JOB_OPTIONS) == set(range(len(JOB_OPTIONS.splitlines())))
    assert _residue_of(XMP) == set(range(len(XMP.splitlines())))
    blob = base64.b64encode(random.Random(1).randbytes(120)).decode()
    assert is_blob_line(blob)
    assert is_blob_line("<" + hashlib.sha512(b"x").hexdigest() * 2 + ">")
    assert _residue_of("\ufffd\ufffd\ue001\ufffd \ufffd\ufffd\ufffd\ue010\ufffd x") == {0}


def test_text_that_only_resembles_residue_stays():
    ordinary = [
        f"The release is signed with SHA-256 {hashlib.sha256(b'x').hexdigest()} as usual.",
        "See /usr/local/bin and /etc/hosts on the server.",
        "and/or 2 3 4",
        "Revenue 2023 2024 1,234 5,678",
        "x << 2 shifts left; y >> 1 shifts right",
        "Antidisestablishmentarianism" * 3,  # a long word: not base64 (no digits)
        "中文文本没有问题，也不是残留。" * 4,
        # An XML sample in a markup guide declares its own namespaces, not XMP's.
        '<TEI xmlns="http://www.tei-c.org/ns/1.0"',
        'xmlns:xlink="http://www.w3.org/1999/xlink"',
        'xmlns:mml="http://www.w3.org/1998/Math/MathML">',
    ]
    assert _residue_of("\n".join(ordinary)) == set()
    assert not is_dictionary_line("The /Name of a PDF object")


def test_a_dictionary_in_a_code_block_is_the_author_s_and_stays():
    assert _residue_of(JOB_OPTIONS, code=True) == set()


def test_clean_document_removes_residue_and_counts_it():
    doc = clean_document(_doc(
        Block(BlockKind.PARAGRAPH, "A real paragraph about typesetting.", page=1),
        Block(BlockKind.PARAGRAPH, JOB_OPTIONS),
        Block(BlockKind.PARAGRAPH, XMP),
    ), CleanOptions())
    assert doc.text == "A real paragraph about typesetting."
    lines = len(JOB_OPTIONS.splitlines()) + len(XMP.splitlines())
    assert doc.metadata["clean_residue_lines_removed"] == str(lines)
    assert int(doc.metadata["clean_residue_chars_removed"]) > 500
    assert set(json.loads(doc.metadata["clean_residue_rules"])) >= {"dictionary", "xmp"}
    kept = clean_document(_doc(Block(BlockKind.PARAGRAPH, JOB_OPTIONS)),
                          CleanOptions(remove_residue=False))
    assert "/ASCII85EncodePages false" in kept.text


def test_an_inline_formula_in_a_math_font_keeps_the_symbols_its_sentence_reads():
    """A formula set in a font without a Unicode map comes out with private-use and
    replacement characters around its letters: the line is binary residue, but its
    single letters, numbers, Greek letters, operators and equation number belong to
    the sentence and stay; the unreadable characters go."""
    formula = "L \uf8eb\uf8ec\uf8ed = α \uf8f6\uf8f7\uf8f8 x + 2 \ufffd\ufffd\ufffd (3)"
    assert _residue_of(formula) == {0}
    doc = clean_document(_doc(Block(
        BlockKind.PARAGRAPH, f"We minimise the loss\n{formula}\nover all pairs.", page=1)),
        CleanOptions())
    assert "L = α x + 2 (3)" in doc.text and "\uf8eb" not in doc.text
    assert doc.text.startswith("We minimise the loss") and doc.text.endswith("over all pairs.")
    # A line of nothing but unreadable characters still goes, and so do its words.
    doc = clean_document(_doc(Block(BlockKind.PARAGRAPH, "Text before.", page=1),
                              Block(BlockKind.PARAGRAPH, "\uf8eb\uf8ec\uf8ec\uf8ec\uf8ec\uf8ed"
                                    "\ufffd\ufffdgarbled\ufffd\ufffd", page=1)), CleanOptions())
    assert doc.text == "Text before."


def test_a_sentence_glued_to_its_formula_and_the_prose_around_it_stay():
    """A thesis's formulas, in a font without a Unicode map, are glued to the end of
    its sentences and fill most of a paragraph's characters: the sentence before the
    formula's first unreadable character stays with the formula's symbols, and the
    paragraph's lines without one that read as words stay whole (the block rule took
    them with the formulas). Binary data's letters between unreadable characters still
    go, and so does a line that is not words."""
    formula = "\ue006\ue044\ue0fc\ue052\ue0fd\ue045 \ue047 \ue008\ue0e6\ue0f0\ue0f9\ue0f6" * 4
    paragraph = (f"마스크의 흰색 영역만 유지되고, 검은색 영역은 제거된다.{formula}\n"
                 f"5) 엣지 검출\n{formula}\n{formula} x = 2 (3)\n"
                 "수평 및 수직 방향의 밝기 변화를 구한다.")
    doc = clean_document(_doc(Block(BlockKind.PARAGRAPH, paragraph, page=1)), CleanOptions())
    assert "\ue006" not in doc.text
    for kept in ("마스크의 흰색 영역만 유지되고, 검은색 영역은 제거된다.", "엣지 검출",
                 "x = 2 (3)", "수평 및 수직 방향의 밝기 변화를 구한다."):
        assert kept in doc.text
    binary = "x\uf8eb\uf8ec]\uf8edRj\uf8eb0\uf8ecobj\uf8eb\uf8ec\uf8ed stream\uf8eb\uf8ec\uf8ed"
    doc = clean_document(_doc(Block(BlockKind.PARAGRAPH, "Text before.", page=1),
                              Block(BlockKind.PARAGRAPH, f"{binary}\n{binary}\n12 0 obj <<",
                                    page=1)), CleanOptions())
    assert "Rj" not in doc.text and "stream" not in doc.text and "obj" not in doc.text


def test_a_dictionary_line_is_tokens_read_left_to_right_as_a_search_reads_them():
    """``is_dictionary_line`` in one C call reads a line as a search for each next token
    would: tokens with nothing but spaces between them, none taken back."""
    from ragbeam.transforms.clean.residue import _PS_FIRST, _PS_TOKEN, _PS_WORD_PREFIX, _PS_WORDS

    def by_search(line: str) -> bool:
        stripped = line.strip()
        if not stripped or not (stripped[0] in _PS_FIRST
                                or stripped[:_PS_WORD_PREFIX].split(None, 1)[0] in _PS_WORDS):
            return False
        position = 0
        for match in _PS_TOKEN.finditer(stripped):
            if stripped[position:match.start()].strip():
                return False
            position = match.end()
        return not stripped[position:].strip()

    pieces = ["/", "<<", ">>", "[", "]", "(", ")", "\\", "<", ">", "0", "1", ".", "-", "+",
              " ", "  ", "a", "F", "true", "R", "obj", "end", "def", "%", "{", "\t", "/Name",
              "(a)", "<0A>", "<< /A 1 >>", "ü", "truex", "R/"]
    rng = random.Random(7)
    lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
             for _ in range(5000)] + JOB_OPTIONS.splitlines()
    assert [is_dictionary_line(line) for line in lines] == [by_search(line) for line in lines]
    assert sum(map(is_dictionary_line, lines)) > 300  # both answers well represented


def test_a_wiki_citation_templates_messages_go_and_the_reference_stays():
    """A browser's print of a wiki page keeps the messages its citation templates print
    into a reference for the page's editors ("{{cite web}}: … (help)", "CS1 maint: …
    (link)"), also broken over two lines of the block; the reference's own words stay,
    and so do braces and "(help)" anywhere else."""
    from ragbeam.transforms.clean.residue import citation_errors

    lines = ['12. Doe, J. (2001). "A Harbour" (https://example.org/h). Retrieved May 1, 2002.',
             '{{cite web}}: Unknown parameter |deadurl= ignored (|url-status= suggested) (help)',
             '13. Roe, R. (1999). "Tides". The Daily. {{cite news}}: Unknown',
             'parameter |dead-url= ignored (|url-status= suggested) (help); Check |date= value',
             '(help) CS1 maint: archived copy as title (link) Tide tables, 3rd ed.',
             'Use {{cite web}} templates; press F1 (help) for more.',
             'x = {{a}}: b (help)']
    blocks = [0, 0, 1, 1, 1, 2, 3]
    changed = citation_errors(lines, blocks, [False] * len(lines))
    assert changed == {1: "", 2: '13. Roe, R. (1999). "Tides". The Daily.', 3: "",
                       4: "Tide tables, 3rd ed."}
    assert citation_errors(lines, blocks, [True] * len(lines)) == {}
