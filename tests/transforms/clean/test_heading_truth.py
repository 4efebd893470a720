"""The heading scorer (benchmarks/heading_truth.py): its matching rule, and the tuning
set's figures when the PDFs are present (they are not in the repository)."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from conftest import REPO


def _load_scorer():
    spec = importlib.util.spec_from_file_location(
        "heading_truth", REPO / "benchmarks" / "heading_truth.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


scorer = _load_scorer()


def test_matching_ignores_numbers_case_and_wrapping_but_not_other_words():
    assert scorer.same_heading("1 Introduction", "INTRODUCTION 1")
    assert scorer.same_heading("The Rise of Personal Computers (1980s)",
                               "the rise of personal computers")
    assert not scorer.same_heading("Related Work", "Future Work")
    assert scorer.match(["Results", "Results", "Noise"], ["Results"]) == 1  # each line once


def test_the_truth_file_lists_the_manifest_s_pdfs_in_two_disjoint_sets():
    truth = json.loads(scorer.TRUTH.read_text(encoding="utf-8"))
    tuning, heldout = set(truth["tuning"]), set(truth["heldout"])
    assert tuning and heldout and not tuning & heldout
    import csv

    with open(scorer.MANIFEST, newline="", encoding="utf-8") as f:
        assert {row["file"] for row in csv.DictReader(f)} == tuning | heldout


def test_tuning_set_precision_and_recall_when_the_pdfs_are_present():
    if scorer.check_files(scorer.DEFAULT_PDFS):
        pytest.skip(f"heading PDFs not in {scorer.DEFAULT_PDFS} "
                    "(see benchmarks/data/heading-pdfs.csv)")
    truth = json.loads(scorer.TRUTH.read_text(encoding="utf-8"))
    detected, hits, lines, found = scorer.score_set(scorer.DEFAULT_PDFS, truth["tuning"], False)
    assert hits / detected >= 0.9 and found / lines >= 0.8


def test_dev29_truth_lists_its_manifest_s_pdfs_with_a_level_per_heading():
    import csv

    truth = json.loads(scorer.TRUTH.read_text(encoding="utf-8"))
    with open(scorer.DEV29_MANIFEST, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {row["file"] for row in rows} == set(truth["dev29"])
    assert all(row["set"] == "dev29" and 2 <= int(row["pages"]) <= 40 for row in rows)
    levels = scorer.levels(truth, "dev29")
    assert set(levels) == set(truth["dev29"])
    for file, headings in truth["dev29"].items():
        assert [text for _, text in levels[file]] == headings
        assert all(isinstance(level, int) and level >= 1 for level, _ in levels[file])
    assert 150 <= sum(map(len, truth["dev29"].values())) <= 250


def test_dev29_shares_no_pdf_with_another_benchmark_manifest():
    import csv

    with open(scorer.DEV29_MANIFEST, newline="", encoding="utf-8") as f:
        dev29 = {row["sha256"] for row in csv.DictReader(f)}
    others = set()
    for manifest in [*(REPO / "benchmarks" / "data").glob("*.csv"),
                     REPO / "benchmarks" / "large_docs.csv"]:
        if manifest == scorer.DEV29_MANIFEST:
            continue
        with open(manifest, newline="", encoding="utf-8") as f:
            others |= {row.get("sha256") for row in csv.DictReader(f)}
    assert len(dev29) == 12 and not dev29 & others



# The issue-29 heading sets' figures with this round's rules (docs/cleaning.md, "Issue-29
# rounds 3 to 5: scored"), precision and recall truncated to three decimals: a change
# that loses ground fails here where the PDFs are present (they are not
# redistributable; CI skips).
ISSUE_29_HEADING_FLOORS = {
    "issue29-closing": (0.830, 0.936), "issue29-final": (0.895, 0.967),
    # final, r3dev, r3final since issue 38's tagged headings (four tagged PDFs): the
    # tree's headings where there is no outline. r3dev trades precision for recall
    # (P 0.892 -> 0.867, R 0.847 -> 0.867): scienceparse-c921… tags three authors' names
    # H2, and Abstract, Author Keywords and two sections the type missed H1.
    "issue29-r3dev": (0.866, 0.866), "issue29-r3final": (0.926, 0.750),
    # r5 since issue 38's keyword headings: 3 more found (an annex, "Chapter 1 Template",
    # a contents title over its contents), one of them only its first line (an annex
    # title whose second line PDFium sizes apart): P 0.910 -> 0.900, R 0.859 -> 0.887.
    "issue29-r4": (0.942, 0.811), "issue29-r5": (0.899, 0.886),
}
_SET_FILES = {
    "issue29-closing": (scorer.DEFAULT_ISSUE29_PDFS, scorer.ISSUE29_MANIFEST),
    "issue29-final": (scorer.DEFAULT_ISSUE29_PDFS, scorer.ISSUE29_MANIFEST),
    "issue29-r3dev": (scorer.DEFAULT_R3_PDFS, scorer.R3_MANIFEST),
    "issue29-r3final": (scorer.DEFAULT_R3_PDFS, scorer.R3_MANIFEST),
    "issue29-r4": (scorer.DEFAULT_R4_PDFS, scorer.R4_MANIFEST),
    "issue29-r5": (scorer.DEFAULT_R5_PDFS, scorer.R5_MANIFEST),
}


@pytest.mark.parametrize("name", sorted(ISSUE_29_HEADING_FLOORS))
def test_issue29_heading_sets_keep_their_figures_when_present(name):
    folder, manifest = _SET_FILES[name]
    if scorer.check_files(folder, manifest):
        pytest.skip(f"{name} PDFs not in {folder} (python benchmarks/heading_truth.py "
                    f"--fetch --set {name} --download)")
    truth = json.loads(scorer.TRUTH.read_text(encoding="utf-8"))
    detected, hits, lines, found = scorer.score_set(folder, truth[name], False)
    min_precision, min_recall = ISSUE_29_HEADING_FLOORS[name]
    assert hits / detected >= min_precision and found / lines >= min_recall, (
        name, hits / detected, found / lines)
