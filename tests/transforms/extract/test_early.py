"""Extraction started before the pipeline (``early.py``), with real Tika children:
a result is taken only for the same file and bytes under the same settings, and
carries the taker's source; feeding stops when a stage starts or the budget ends."""

from __future__ import annotations

import dataclasses
import pathlib

import pytest

from ragbeam.transforms.extract import early
from ragbeam.transforms.extract.isolation import ExtractionPool
from ragbeam.transforms.extract.settings import ExtractionSettings
from ragbeam.transforms.ids import doc_id_for, sha256_hex
from ragbeam.transforms.types import ExtractedDocument, FetchedFile, SourceFile

from conftest import SAMPLES

SETTINGS = ExtractionSettings.of(("embedded", {}), timeout_s=60, processes=1,
                                 max_text_chars=1_000_000)


def _source(path: pathlib.Path, listed: float = 0.0) -> SourceFile:
    return SourceFile(str(path), doc_id_for(path.name), path.stat().st_size, listed=listed)


def _fetched(path: pathlib.Path, listed: float) -> FetchedFile:
    data = path.read_bytes()
    return FetchedFile(_source(path, listed), data, sha256_hex(data))


@pytest.fixture
def pool():
    pool = ExtractionPool(("embedded", {}), size=1, timeout_s=60)
    pool.start()
    yield pool
    pool.close()


@pytest.fixture
def corpus(tmp_path):
    for name in ("faq.txt", "handbook.md", "station-news.html"):
        (tmp_path / name).write_bytes((SAMPLES / name).read_bytes())
    return sorted(tmp_path.iterdir())


def test_the_stage_takes_the_same_document_it_would_have_made_with_its_own_source(
        pool, corpus):
    extraction = early.EarlyExtraction(pool, [_source(p) for p in corpus],
                                       SETTINGS, max_file_bytes=10**8)
    extraction.start()
    extraction.join()
    for path in corpus:
        # The stage's file: listed later than the early start's, same path and bytes.
        fetched = _fetched(path, listed=123.0)
        future = extraction.take(fetched)
        assert future is not None
        document, seconds = future.result(timeout=60)
        assert isinstance(document, ExtractedDocument) and seconds > 0
        assert document.source == fetched.source
        direct = pool.run(lambda extractor, f=fetched: SETTINGS.extract(f, extractor))
        assert document == direct
        assert extraction.take(fetched) is None  # each result is taken once
    assert extraction.taken == len(corpus)
    extraction.close()


def test_a_file_whose_bytes_changed_since_is_not_taken(pool, corpus):
    extraction = early.EarlyExtraction(pool, [_source(corpus[0])], SETTINGS,
                                       max_file_bytes=10**8)
    extraction.start()
    extraction.join()
    assert extraction.submitted == 1
    changed = _fetched(corpus[0], listed=1.0)
    changed = dataclasses.replace(changed, data=changed.data + b"\nedited",
                                  content_hash=sha256_hex(changed.data + b"\nedited"))
    assert extraction.take(changed) is None
    extraction.close()


def test_feeding_stops_at_the_byte_budget_and_when_a_stage_starts(pool, corpus):
    sizes = [p.stat().st_size for p in corpus]
    budgeted = early.EarlyExtraction(pool, [_source(p) for p in corpus], SETTINGS,
                                     max_file_bytes=10**8, max_bytes=sizes[0] + sizes[1] - 1)
    budgeted.start()
    budgeted.close()
    assert budgeted.submitted == 1

    stopped = early.EarlyExtraction(pool, [_source(p) for p in corpus], SETTINGS,
                                    max_file_bytes=10**8)
    early.register(stopped)
    try:
        # Another stage (another pool) starting stops every early start, and takes nothing.
        assert early.stage_started(dataclasses.replace(SETTINGS, processes=2)) is None
        stopped.start()
        stopped.close()
        assert stopped.submitted == 0
    finally:
        early.unregister(stopped)


def test_a_stage_with_other_settings_takes_nothing(pool, corpus):
    extraction = early.EarlyExtraction(pool, [_source(corpus[0])], SETTINGS,
                                       max_file_bytes=10**8)
    early.register(extraction)
    try:
        # Any other setting (here the text limit) and the stage takes nothing; the
        # stage's own value, made again, is equal: it takes.
        assert early.stage_started(dataclasses.replace(SETTINGS, max_text_chars=5)) is None
        assert early.stage_started(ExtractionSettings.of(
            ("embedded", {}), timeout_s=60, processes=1, max_text_chars=1_000_000)) is extraction
    finally:
        early.unregister(extraction)
        extraction.close()


def test_settings_that_differ_in_any_field_share_neither_results_nor_pool(pool, corpus):
    """One value is the early start's match and the pool's key: a field added to
    ``ExtractionSettings`` is part of both (and must get a changed value here)."""
    from ragbeam.transforms.clean.document import CleanOptions
    from ragbeam.transforms.extract.guards import ArchiveLimits
    from ragbeam.transforms.extract.isolation import release_pool

    changed_values = {"backend": ExtractionSettings.of(("embedded", {"ocr": None}), timeout_s=60,
                                                       processes=1).backend,
                      "timeout_s": 61.0, "processes": 2, "memory_limit_bytes": 1 << 30,
                      "max_text_chars": 5, "clean": CleanOptions(dehyphenate=False),
                      "archive_limits": ArchiveLimits(max_depth=1)}
    assert set(changed_values) == {f.name for f in dataclasses.fields(ExtractionSettings)}
    extraction = early.EarlyExtraction(pool, [_source(corpus[0])], SETTINGS,
                                       max_file_bytes=10**8)
    early.register(extraction)
    _, own_pool = SETTINGS.acquire_pool()
    try:
        for name, value in changed_values.items():
            changed = dataclasses.replace(SETTINGS, **{name: value})
            assert changed != SETTINGS and early.stage_started(changed) is None, name
            _, other_pool = changed.acquire_pool()
            release_pool(other_pool)
            assert other_pool is not own_pool, name
        same = dataclasses.replace(SETTINGS)
        assert early.stage_started(same) is extraction and same.acquire_pool()[1] is own_pool
        release_pool(own_pool)
    finally:
        release_pool(own_pool)
        early.unregister(extraction)
        extraction.close()


def test_files_the_read_stage_would_refuse_are_left_to_it(pool, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    large = tmp_path / "large.txt"
    large.write_bytes(b"x" * 100)
    extraction = early.EarlyExtraction(pool, [_source(empty), _source(large),
                                              SourceFile(str(tmp_path / "gone.txt"), "g", 5)],
                                       SETTINGS, max_file_bytes=50)
    extraction.start()
    extraction.close()
    assert extraction.submitted == 0


def test_a_document_that_fails_early_is_that_documents_failure_once(corpus_dir, tmp_path):
    """A file that hangs Tika, fed early: the stage takes the timeout (it does not
    extract the file a second time and wait for the limit again)."""
    from ragbeam.transforms.extract.isolation import ExtractionTimeout

    hang = tmp_path / "hang.one"
    hang.write_bytes((corpus_dir / "bad/fuzzed-hang.one").read_bytes())
    pool = ExtractionPool(("embedded", {}), size=1, timeout_s=2)
    pool.start()
    try:
        extraction = early.EarlyExtraction(pool, [_source(hang)], SETTINGS,
                                           max_file_bytes=10**8)
        extraction.start()
        extraction.join()
        future = extraction.take(_fetched(hang, listed=5.0))
        assert future is not None
        with pytest.raises(ExtractionTimeout):
            future.result(timeout=60)
        assert pool.stats().timeouts == 1 and pool.stats().documents == 1
        extraction.close()
    finally:
        pool.close()


def test_a_result_dropped_before_it_ran_is_dropped_for_the_stage_too(tmp_path):
    """An interrupted run's pool cancels what was queued (``ExtractionPool.abort``): the
    stage's future for it must end too, or a stage waiting for it waits forever (the
    callback that hands the result on raised CancelledError and left it pending)."""
    from concurrent.futures import Future

    path = tmp_path / "a.txt"
    path.write_bytes(b"some text")
    extraction = early.EarlyExtraction(None, [], SETTINGS, max_file_bytes=10**8)
    fetched = _fetched(path, listed=1.0)
    queued: Future = Future()
    extraction._results[fetched.source.uri] = (fetched.content_hash, queued)
    taken = extraction.take(fetched)
    assert taken is not None and not taken.done()
    assert queued.cancel()
    assert taken.cancelled()
