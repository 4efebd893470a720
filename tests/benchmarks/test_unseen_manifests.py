"""The issue-39 furniture truth sets and issue 41's unseen set: their manifests and truth
files agree, and their sources are new. Nothing here extracts or cleans a file (the sets
stay unseen until their scoring); where the files are fetched, their bytes are checked."""

from __future__ import annotations

import csv
import json
import pathlib
import sys

import pytest

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import furniture_truth as ft  # noqa: E402
import issue29_truth_check as check  # noqa: E402

ISSUE39_SETS = ("issue39-a", "issue39-b", "issue39-c", "issue39-d", "issue39-e", "issue39-f",
                "issue39-g", "issue39-h", "issue39-i", "issue39-j")
# Documents chosen to print no furniture at all (body retention checks), per set.
RETENTION_CHECKS = {"issue39-d": {"sapphire-manual-ja.pdf"},
                    "issue39-e": {"embedded-term-project-report-ko.pdf",
                                  "imagevision-sdk-manual-ja.pdf"},
                    "issue39-h": {"giro-ac6050-imu-datasheet-en.pdf"},
                    "issue39-i": {"charla-git-principiantes-slides-es.pdf"},
                    "issue39-j": {"ipat-user-manual-en.pdf"}}
ISSUE41_MANIFEST = BENCHMARKS / "data" / "issue41-unseen.csv"


@pytest.mark.parametrize("name", ISSUE39_SETS)
def test_issue39_truth_matches_its_manifest(name):
    heldout = ft.HELDOUT_SETS[name]
    truth = json.loads(heldout.truth.read_text(encoding="utf-8"))
    rows = ft.manifest_rows(heldout.manifest)
    assert [row["file"] for row in rows] == list(truth)
    assert 8 <= len(rows) <= 16
    # issue39-e holds a whole listed company's annual report (174 p.): up to 400 pages
    assert 100 <= sum(entry["pages"] for entry in truth.values()) <= 400
    for row in rows:
        entry = truth[row["file"]]
        assert str(entry["pages"]) == row["pages"]
        assert len(row["commit"]) == 40 and len(row["sha256"]) == 64 and row["licence"]
        assert entry["patterns"] and all(entry["patterns"])
        for key in ("per_page", "other_furniture"):
            assert len(entry[key]) == entry["pages"]
            assert all(line == line.strip() and line for page in entry[key] for line in page)
    # every document has furniture to find, except those chosen as retention checks
    without = {file for file, entry in truth.items() if not sum(map(len, entry["per_page"]))}
    assert without == RETENTION_CHECKS.get(name, set())


@pytest.mark.parametrize("name", ISSUE39_SETS)
def test_issue39_sets_use_no_earlier_source(name):
    if check.added_at(ft.HELDOUT_SETS[name].manifest) is None:
        pytest.skip("no git history to tell which manifests came before the set's")
    assert check.check_new_sources(name) == 0
    repos = {n: {row["repo"] for row in ft.manifest_rows(ft.HELDOUT_SETS[n].manifest)}
             for n in ISSUE39_SETS}
    assert all(not repos[name] & repos[other] for other in ISSUE39_SETS if other != name)


@pytest.mark.parametrize("name", ISSUE39_SETS)
def test_issue39_sets_are_scored_only_when_named(name):
    assert ft.HELDOUT_SETS[name].on_request


def test_issue41_unseen_set_is_thirty_files_of_one_new_repository():
    with open(ISSUE41_MANIFEST, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 30
    assert len({row["path"] for row in rows}) == len({row["sha256"] for row in rows}) == 30
    assert len({row["repo"] for row in rows}) == 1
    assert len({row["media_type"] for row in rows}) >= 10
    # No other manifest draws on its repository, except a truth set marked on the unseen
    # set's own files (benchmarks/data/paragraph-pdfs.csv: seven of its PDFs, marked
    # before they were scored): those files may be listed again, nothing else of it.
    manifests = [m for m in sorted(check.ft.DATA.glob("*.csv")) if m != ISSUE41_MANIFEST]
    manifests.append(check.ft.REPO / "benchmarks" / "large_docs.csv")
    if check.SHARED_CORPUS_MANIFEST.is_file():
        manifests.append(check.SHARED_CORPUS_MANIFEST)
    unseen = {row["sha256"] for row in rows}
    for manifest in manifests:
        for row in check.ft.manifest_rows(manifest):
            same_repo = (row.get("repo") or row.get("source_repo")) == rows[0]["repo"]
            assert not same_repo or row.get("sha256") in unseen, (manifest, row)


@pytest.mark.parametrize("name", ISSUE39_SETS)
def test_issue39_files_are_as_listed_when_present(name):
    heldout = ft.HELDOUT_SETS[name]
    if not heldout.folder.is_dir():
        pytest.skip(f"{name} PDFs not fetched (python benchmarks/furniture_truth.py "
                    f"--fetch {name} --download)")
    assert ft.heldout_files_present(heldout.folder, heldout.manifest)
