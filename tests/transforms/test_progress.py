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


def test_while_embedding_the_line_names_the_stage_and_the_eta_covers_the_chunks():
    from collections import Counter

    counts = Counter({progress.MATCHED: 52, progress.EXTRACTED: 52, progress.CHUNKED: 52,
                      progress.CHUNKS: 2447, progress.EMBEDDED: 1024})
    line = progress.progress_line(counts, 60.0, total=52, embedding_s=20.0)
    assert "52/52 files done" in line and "embedding 1,024/2,447 chunks" in line
    # every file is chunked, but 1,423 chunks remain at 51.2 chunks/s: ~28 s, not none
    assert line.endswith("ETA 28 s")
    # half the files chunked: their chunks extrapolate to the whole run
    half = Counter({progress.MATCHED: 52, progress.CHUNKED: 26, progress.CHUNKS: 1200,
                    progress.EMBEDDED: 600})
    assert progress.progress_line(half, 30.0, total=52, embedding_s=10.0).endswith("ETA 30 s")


def test_the_starting_line_says_what_the_run_waits_for():
    progress.set_phase("starting: loading the embedding model")
    try:
        assert progress.starting_line(39, 12.0) == (
            "ragbeam: 12 s · 39 files matched · starting: loading the embedding model")
    finally:
        progress.set_phase("starting")
    assert progress.starting_line(39, 2.0).endswith("· starting")
