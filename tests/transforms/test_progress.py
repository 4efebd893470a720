"""The per-process tally behind the progress line (transforms/progress.py)."""

from __future__ import annotations

from ragbeam.transforms import progress


def test_a_stage_s_first_event_is_written_at_once_even_inside_the_throttle(tmp_path, monkeypatch):
    """A stage that starts and ends within a second (embedding nine chunks) must still
    be seen by the launcher: its first tick is on disk before ``tick`` returns, even
    right after another stage's flush; later ticks wait for the throttle."""
    monkeypatch.setenv(progress.PROGRESS_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(progress, "_tally", None)
    progress.tick(progress.CHUNKED)
    progress.tick(progress.EMBEDDED)  # within the same second as the flush above
    assert progress.read_counts(str(tmp_path)) == {progress.CHUNKED: 1, progress.EMBEDDED: 1}
    progress.tick(progress.EMBEDDED)  # throttled: written by the pending timer
    assert progress.read_counts(str(tmp_path))[progress.EMBEDDED] == 1
    progress.flush()
    assert progress.read_counts(str(tmp_path))[progress.EMBEDDED] == 2
    monkeypatch.setattr(progress, "_tally", None)
