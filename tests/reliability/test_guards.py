"""Size guards (pure): archive bombs are refused by ratio, size, entry count and
nesting; real office documents and e-books pass; text over the limit is refused."""

from __future__ import annotations

import gzip

import pytest
from reliability.hostile import nested_zips, zip_of_zeros

from ragbeam.transforms.extract.guards import (
    ArchiveBombError,
    ArchiveLimits,
    TextTooLargeError,
    check_archive,
    check_extracted_text,
    extractor_string_limit,
)

from conftest import SAMPLES

ZIP_BASED = ("docx", "xlsx", "pptx", "odt", "epub")


def test_real_zip_based_documents_pass(corpus_dir):
    files = [p for p in corpus_dir.rglob("*") if p.suffix.lstrip(".") in ZIP_BASED]
    files.append(SAMPLES / "lab-rules.docx")
    assert len(files) >= 9
    for path in files:
        if path.parent.name == "bad":  # broken on purpose: covered by the hostile corpus
            continue
        report = check_archive(path.read_bytes())
        assert report is not None and report.kind == "zip", path
        assert report.entries > 0 and report.unpacked_bytes < 20 * path.stat().st_size, path


def test_zip_of_zeros_is_refused_by_ratio():
    with pytest.raises(ArchiveBombError, match=r"ratio of [\d,.]+:1 \(limit 100:1\)"):
        check_archive(zip_of_zeros(2, 64 << 20))


def test_a_small_zip_of_zeros_is_under_the_ratio_floor():
    report = check_archive(zip_of_zeros(1, 1 << 20))  # 1 MiB: compressible, but small
    assert report is not None and report.unpacked_bytes == 1 << 20


def test_total_unpacked_size_limit():
    limits = ArchiveLimits(max_unpacked_bytes=3 << 20, max_ratio=1e9)
    check_archive(zip_of_zeros(3, 1 << 20), limits)
    with pytest.raises(ArchiveBombError, match="unpacks to over"):
        check_archive(zip_of_zeros(4, 1 << 20), limits)


def test_entry_count_limit_is_read_before_parsing_entries():
    with pytest.raises(ArchiveBombError, match=r"over 101 entries \(limit 100\)"):
        check_archive(zip_of_zeros(101, 10), ArchiveLimits(max_entries=100))


def test_nesting_depth_limit_and_nested_sizes_count():
    assert check_archive(nested_zips(3)).depth == 2
    with pytest.raises(ArchiveBombError, match="nested more than 3 levels"):
        check_archive(nested_zips(5))
    # Sizes inside nested archives multiply: 2**4 leaves of 2,400 bytes.
    assert check_archive(nested_zips(4), ArchiveLimits(max_depth=5)).unpacked_bytes == 16 * 2400


def test_gzip_is_measured_by_inflating_not_by_its_size_field():
    with pytest.raises(ArchiveBombError, match="archive bomb"):
        check_archive(gzip.compress(bytes(64 << 20), compresslevel=1))
    report = check_archive(gzip.compress(b"text " * 1000))
    assert report is not None and report.unpacked_bytes == 5000


def test_non_archives_and_damaged_archives_are_left_to_tika():
    assert check_archive(b"%PDF-1.4 not an archive") is None
    assert check_archive((SAMPLES / "faq.txt").read_bytes()) is None
    damaged = zip_of_zeros(2, 1000)[:-30]
    report = check_archive(damaged)  # no central directory: nothing to count, no error
    assert report is not None and report.entries == 0


def test_extracted_text_limit():
    check_extracted_text(1000, {}, 1000)
    with pytest.raises(TextTooLargeError, match="over the --max-text-chars limit of 1,000"):
        check_extracted_text(1001, {}, 1000)
    with pytest.raises(TextTooLargeError):  # Tika flagged a cut: refused even if short
        check_extracted_text(10, {"X-TIKA:EXCEPTION:write_limit_reached": ["true"]}, 1000)
    assert extractor_string_limit(50_000_000) > 50_000_000
