"""The delete guard: how many vanished documents an incremental run may delete (pure).

An unmounted share, a half-synced bucket or a wrong ``--include`` looks, to a
run that compares listings, exactly like a mass deletion; applied to a vector
store it empties the index the same night. So an incremental run whose
vanished documents exceed a limit deletes none of them: each keeps its last
good row and chunks, with status ``vanished`` (``schemas/documents.py``), no
``delete`` is written, and the run exits 4 (``pipeline/cli.py``). The next run
decides again from scratch: the files are back (``unchanged``), or still gone
and the limit now allows it (``--max-delete-rate 1`` to accept), or held again.

What counts is documents whose content is gone from the corpus: a document
whose bytes live on under another path (moved, or a duplicate that takes over,
``content.py``) is not a deletion, and nor is a previous ``duplicate`` row
(it has no chunks of its own).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_DELETE_RATE = 0.2


@dataclass(frozen=True)
class DeleteGuard:
    """``max_rate``: the share of the previous run's live documents that may vanish
    (``--max-delete-rate``); ``max_count``: an absolute limit (``--max-deletes``),
    None for none. Both apply when both are set."""

    max_rate: float = DEFAULT_MAX_DELETE_RATE
    max_count: int | None = None

    def holds(self, vanished: int, previous_documents: int, current_files: int = 1) -> bool:
        """Whether a run where ``vanished`` of ``previous_documents`` vanished must
        keep them (never when nothing vanished). A listing with no file at all is
        never taken as "everything deleted", whatever the limits."""
        if vanished <= 0:
            return False
        if current_files == 0:
            return True
        if self.max_count is not None and vanished > self.max_count:
            return True
        return vanished > self.max_rate * previous_documents

    def describe(self) -> str:
        limits = [f"--max-delete-rate {self.max_rate:g}"]
        if self.max_count is not None:
            limits.append(f"--max-deletes {self.max_count}")
        return " and ".join(limits)

    def record(self) -> dict[str, float | int | None]:
        return {"max_delete_rate": self.max_rate, "max_deletes": self.max_count}


def held_line(vanished: int, previous_documents: int, guard: DeleteGuard) -> str:
    """The one line a held run prints: how many vanished, and how to accept it."""
    share = vanished / previous_documents if previous_documents else 1.0
    return (f"{vanished} of {previous_documents} documents of the previous run vanished "
            f"({share:.0%}), over {guard.describe()}: none was deleted (their last good "
            "chunks are kept, documents.status = 'vanished'); if they were removed on "
            "purpose, run again with --max-delete-rate 1")
