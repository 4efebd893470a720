"""The one definition of CJK characters and of sentence- and clause-end marks.

Cleaning, sentence segmentation, recursive splitting, routing, retrieval
tokenizers and the quality metrics all ask the same two questions — "is this a
CJK character?" and "does this mark end a sentence?" — so they import the
answers from here instead of keeping their own copies.

CJK here means the scripts written without spaces between words, plus their
punctuation blocks: CJK radicals, symbols and punctuation, kana, bopomofo,
the unified ideographs and extension A (U+2E80–U+9FFF), Hangul syllables
(U+AC00–U+D7AF), compatibility ideographs (U+F900–U+FAFF), half- and
full-width forms (U+FF00–U+FFEF) and the supplementary ideograph planes
(U+20000–U+2FA1F).
"""

from __future__ import annotations

import re

# Bodies of regex character classes (use as f"[{CJK_CLASS}]"). The CJK scripts'
# main block (radicals, kana, the unified ideographs), then Hangul, compatibility
# ideographs, full-width forms and the supplementary ideographs.
CJK_SCRIPTS_CLASS = "\u2e80-\u9fff"
CJK_CLASS = CJK_SCRIPTS_CLASS + "\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0002fa1f"
CJK_CHAR = re.compile(f"[{CJK_CLASS}]")
# Full-width and ideographic punctuation (，：（）！？「」…; not full-width letters or
# digits): the punctuation CJK text uses as its own.
CJK_PUNCTUATION_CLASS = "\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\u3000-\u303f"

# Marks that end a sentence wherever they stand in CJK text (they are unambiguous there).
CJK_SENTENCE_ENDS = "。！？"
# Marks that end a sentence in spaced scripts when followed by whitespace (or the end).
LATIN_SENTENCE_ENDS = ".!?"
ELLIPSIS = "…"
SENTENCE_ENDS = CJK_SENTENCE_ENDS + LATIN_SENTENCE_ENDS + ELLIPSIS
# Semicolons (Latin, full-width): the clause level of the recursive splitter.
SEMICOLONS = ";；"
# Clause ends: not sentence ends, but a line ending in one is not cut off mid-clause.
CLAUSE_ENDS = SEMICOLONS + ":："
# Commas, the ideographic one (、) included: the level below clauses.
COMMAS = ",，、"
QUESTION_MARKS = "?？"
# What a line ends with when it is prose rather than a heading: sentence and clause
# ends and the Latin and full-width commas (not the ellipsis or 、, which titles use).
PROSE_LINE_ENDS = LATIN_SENTENCE_ENDS + CJK_SENTENCE_ENDS + CLAUSE_ENDS + ",，"
# Closing quotes and brackets that stay with the sentence before them (``"Stop." Then``).
CLOSERS = "”’\"'」』）)】》]"


def is_cjk(ch: str) -> bool:
    """Whether ``ch`` (one character; '' is not) is a CJK character or CJK punctuation."""
    return bool(ch) and CJK_CHAR.match(ch) is not None
