"""The one guarded path for a single file outside Beam (``ragbeam.chunk_file``,
evaluation): the Extract stage's guards and the Clean stage's rule, as in a run."""

from __future__ import annotations

import pytest
from reliability.hostile import zip_of_zeros

import ragbeam
from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.extract.guards import ArchiveBombError, ArchiveLimits, TextTooLargeError
from ragbeam.transforms.extract.single_file import (
    SingleFileExtractor,
    read_local_file,
    shared_extractor,
)

from conftest import SAMPLES

EMBEDDED = ("embedded", {"max_string_chars": 1_000_000})


def test_an_archive_bomb_is_refused_before_tika_sees_it(tmp_path):
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(zip_of_zeros(2, 64 << 20))
    with pytest.raises(ArchiveBombError):
        ragbeam.chunk_file(bomb)


def test_the_text_limit_holds(tmp_path):
    short = SAMPLES / "station-news.html"
    with SingleFileExtractor(EMBEDDED, timeout_s=60) as files:
        limit = len(files.extract(read_local_file(short)).raw_text)
    with SingleFileExtractor(EMBEDDED, timeout_s=60, max_text_chars=limit) as files:
        with pytest.raises(TextTooLargeError):
            files.extract(read_local_file(SAMPLES / "handbook.md"))
        # The child survives a refused document: the next file is extracted and cleaned.
        doc = files.extract_and_clean(read_local_file(short), CleanOptions())
    assert doc.text.strip() and doc.source.uri.endswith("/station-news.html")


def test_one_shared_extractor_per_settings():
    first = shared_extractor(EMBEDDED, 60.0)
    assert shared_extractor(EMBEDDED, 60.0) is first
    assert shared_extractor(EMBEDDED, 30.0) is not first


def test_the_shared_extractor_keeps_its_archive_limits():
    """Mutation caught: the cache key made by hand without the archive limits (then
    other limits got the extractor of the defaults)."""
    strict = ArchiveLimits(max_unpacked_bytes=1 << 20)
    first = shared_extractor(EMBEDDED, 60.0, archive_limits=strict)
    assert first is shared_extractor(EMBEDDED, 60.0, archive_limits=ArchiveLimits(1 << 20))
    assert first is not shared_extractor(EMBEDDED, 60.0)
    assert first._archive_limits == strict


def test_the_run_s_extract_options_give_one_shared_extractor_with_their_limits():
    """``ExtractOptions.file_extractor``: what chunk_file, evaluation and benchmarks take."""
    from ragbeam.pipeline.config import ExtractOptions

    run_defaults = ExtractOptions()
    files = run_defaults.file_extractor()
    assert files is shared_extractor(run_defaults.backend_spec, run_defaults.timeout_s,
                                     run_defaults.memory_limit_bytes,
                                     run_defaults.max_text_chars)
    assert ExtractOptions().file_extractor() is files
    assert ExtractOptions(timeout_s=5).file_extractor() is not files
