"""What a PDF line's style (``transforms.types.LineStyle``: its place on the page, its
font) says to cleaning: pure functions over styles, no PDF reading.

A PDF's lines carry their style when the layout pass placed them
(``transforms/extract/layout.py``); a line without one (``None``, or a font size of 0
for a line only placed) says nothing, and the text rules decide alone.
"""

from __future__ import annotations

import re

from ragbeam.transforms.types import LineStyle

# A font whose name says it is bold ("Arial-BoldMT", "…-Black", "…Heavy"), and a demibold
# ("…Demi"): the layout pass takes both for bold where the PDF gives no weight (the C pass,
# ``_pdfium_lines.c``, spells the same words); cleaning takes the bold names alone for bold
# where the PDF gives a weight but a browser's print gave a bold font its regular's (a
# demibold over its text is no heading there: issue29-r5's "VSM").
_BOLD_NAME = re.compile(r"bold|black|heavy")
_DEMI_NAME = re.compile(r"demi")


def bold_font_name(font: str, demi: bool = False) -> bool:
    folded = font.lower()
    return (_BOLD_NAME.search(folded) is not None
            or (demi and _DEMI_NAME.search(folded) is not None))

# Two font sizes differ when they are this many points apart, and this share of the
# larger: 10 and 10.9 pt (a paper's abstract and its body) are one size, 10 and 12 are not.
# In small print the step is a share of the size instead: 6.9 and 7.7 pt (a filing's
# text and its subheadings) differ as 10 and 11 do.
MIN_SIZE_STEP = 1.0
MIN_SIZE_RATIO = 0.08
MIN_SIZE_STEP_RATIO = 0.1


def sizes_differ(a: float, b: float) -> bool:
    """Are two measured font sizes (points) different sizes, not rounding apart?"""
    # Most lines are compared with lines of their own size: no arithmetic for those.
    larger = max(a, b)
    return a != b and abs(a - b) >= max(min(MIN_SIZE_STEP, MIN_SIZE_STEP_RATIO * larger),
                                        MIN_SIZE_RATIO * larger)


def style_changes(before: LineStyle | None, after: LineStyle | None) -> bool:
    """Does a paragraph end between two consecutive lines because their styles differ?

    A change of font size ends it (a heading over its text, a footnote under the
    body), and so does a change of face: bold to regular, or one font to another
    (a line's face is known only where its first and middle letters share it, so an
    italic word inside a body line changes nothing)."""
    if before is None or after is None or not before.size or not after.size:
        return False
    if sizes_differ(before.size, after.size) or before.bold != after.bold:
        return True
    return bool(before.font and after.font and before.font != after.font)
