"""What every cleaning step shares: the switches (``CleanOptions``), the line a step
works on (``CleanLine``) and the blocks line joining builds of them (``Assembly``).
Below every step module, so a step can name them without importing the module that
orders the steps (``document.py``) or another step (headings mark linejoin's blocks)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields

from ragbeam.transforms.types import BlockKind, LineStyle


@dataclass(frozen=True)
class CleanOptions:
    """Switches for each cleaning step (all part of the config fingerprint)."""

    repair_mojibake: bool = True
    unicode_nfkc: bool = True
    restore_spaces: bool = True
    protect_cjk_punctuation: bool = True
    remove_residue: bool = True
    remove_cover_page: bool = True
    remove_furniture: bool = True
    strip_leaders: bool = True
    mark_contents: bool = True
    dehyphenate: bool = True
    join_lines: bool = True
    detect_tables: bool = True
    detect_headings: bool = True
    identify_language: bool = True
    # Across the documents of a run (boilerplate.py, applied by the clean stage's
    # RemoveCorpusBoilerplate, not by clean_document). Opt-in (--clean-corpus-boilerplate):
    # a document's text then depends on the other documents processed in the same run,
    # so an incremental run, which processes only what changed, can cut differently
    # from a full one.
    remove_boilerplate: bool = False

    @classmethod
    def without(cls, steps: Iterable[str]) -> CleanOptions:
        """Default options with the named steps switched off (``--no-clean STEP``)."""
        return cls(**dict.fromkeys(steps, False))


# What --no-clean switches off: every per-document step (corpus boilerplate is opt-in).
CLEAN_STEPS = tuple(f.name for f in fields(CleanOptions) if f.name != "remove_boilerplate")


@dataclass(slots=True)
class CleanLine:
    """One cleaned source line and where it came from (mutable: steps rewrite ``text``)."""

    text: str
    kind: BlockKind
    block: int  # index of the source block
    page: int | None
    level: int
    raw_start: int
    raw_end: int
    after_blank: bool = False  # a blank line separated it from the previous line
    detached: bool = False  # outside the reading flow (PDF link target)
    indent: int = 0  # leading whitespace of the source line, in characters
    # Plain text only: whether the break after this line is a wrap (None: not plain text).
    wraps: bool | None = None
    # PDFs: where the line sits on its page and how it is set (None: unknown).
    style: LineStyle | None = None
    # PDFs: whether the break after it is a wrap by position (``linejoin.wraps_by_position``;
    # None: not placed, or its column's edge unknown).
    wrapped: bool | None = None
    # A row of a table found on a PDF page (``tables.py``): rows of one table share
    # ``block`` and stay lines of one block.
    table_row: bool = False


@dataclass
class Assembly:
    """Cleaned blocks under construction (``linejoin.assemble``; headings mark some of
    them): lists of (separator before, line)."""

    blocks: list[list[tuple[str, CleanLine]]]
    hyphenations_joined: int = 0
    lines_joined: int = 0
    # The headings the document's contents page lists, page references left out
    # (``headings.contents_entries``).
    contents: frozenset[str] = frozenset()
