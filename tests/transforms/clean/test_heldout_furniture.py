"""Cleaning on documents no rule was tuned on: the thresholds of issue 18.

CI generates PDFs with known furniture from the held-out seeds of
``benchmarks/furniture_generated.py`` (the rules were revised on its tuning seed
only). The real held-out PDFs of ``benchmarks/data/heldout*-pdfs.csv`` are not in
the repository; when they are present (``$RAGBEAM_HELDOUT_PDFS`` or
``../data/heldout-pdfs``, and likewise ``_DEV_``/``-dev-``,
``_CLOSING_``/``-closing-`` and ``_FINAL_``/``-final-``), their figures are
asserted too.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import REPO, require_corpus

MIN_FURNITURE_RECALL = 0.98
MIN_BODY_RETENTION = 0.995
MAX_DOCUMENT_LOSS_RETENTION = 0.99  # no document loses more than 1 % of its body words


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


scorer = _load("furniture_truth")
generator = _load("furniture_generated")


@pytest.fixture(scope="module")
def generated_scores(tmp_path_factory):
    corpus = require_corpus()
    folder = tmp_path_factory.mktemp("furniture-generated")
    truth = generator.generated_set(corpus, folder, generator.HELDOUT_SEEDS)
    return scorer.score_truth(truth, folder)


def test_generated_held_out_pdfs_meet_the_thresholds(generated_scores):
    totals = scorer.totals(generated_scores)
    assert totals["recall_line"] >= MIN_FURNITURE_RECALL, totals
    assert totals["recall_strict"] >= MIN_FURNITURE_RECALL, totals
    assert totals["retention"] >= MIN_BODY_RETENTION, totals
    assert len(generated_scores) == 8 * len(generator.HELDOUT_SEEDS)
    assert sum(s.truth_lines for s in generated_scores) > 300
    for score in generated_scores:
        assert score.retention >= MIN_BODY_RETENTION, score


def test_generated_furniture_is_measured_as_left_in_without_the_step(tmp_path):
    """The scorer and the generated truth can fail: without the step recall collapses."""
    from ragbeam.transforms.clean.document import CleanOptions

    folder = tmp_path / "gen"
    truth = generator.generated_set(require_corpus(), folder, generator.HELDOUT_SEEDS[:1])
    scores = scorer.score_truth(truth, folder, CleanOptions(remove_furniture=False))
    assert scorer.totals(scores)["recall_strict"] < 0.2


def test_real_held_out_pdfs_meet_the_thresholds_when_present():
    if not scorer.heldout_files_present(scorer.DEFAULT_HELDOUT):
        pytest.skip(f"held-out PDFs not in {scorer.DEFAULT_HELDOUT} (not redistributable; "
                    "see benchmarks/data/heldout-pdfs.csv)")
    scores = scorer.score_heldout(scorer.DEFAULT_HELDOUT)
    totals = scorer.totals(scores)
    assert totals["recall_line"] >= MIN_FURNITURE_RECALL, totals
    assert totals["retention"] >= MIN_BODY_RETENTION, totals
    for score in scores:
        assert score.retention >= MAX_DOCUMENT_LOSS_RETENTION, score


# Issue 23's sets. The dev set was looked at while the rules were revised; the
# closing set was scored once and one rule was added after; the final set was
# scored once with the final rules; issue 29's position rules were written while
# looking at all three. Where a target is missed (docs/benchmarks.md says by how
# much, per document, and why) the floor is the measured figure, so a change that
# loses ground fails here: (recall with the text gone from the document, worst
# document's retention). Scored on the text layer (OCR off): these pin the
# furniture rules; which pages OCR reads is OCR's own (a default run's figures,
# OCR on, are the benchmark's).
ISSUE_23_FLOORS = {"dev": (0.995, 0.995), "closing": (0.98, 0.995), "final": (0.995, 0.995)}
# Issue 29's sets, after their one score (docs/benchmarks.md, history): the closing set's measured
# figures with the rules its score taught (its two documents over 1 % are a paper's
# title as its running head and a table's repeated column headers, which the truth
# counts as body), the final set's as scored.
# Rounds 3 to 5 (docs/benchmarks.md, "Issue-29 rounds 3 to 5: scored"): their figures with
# the rules their scores taught.
ISSUE_29_FLOORS = {"issue29-closing": (0.965, 0.976), "issue29-final": (1.0, 0.998),
                   "issue29-r3dev": (0.987, 0.997), "issue29-r3final": (0.938, 0.996),
                   "issue29-r4": (1.0, 0.997), "issue29-r5": (0.991, 0.999)}


@pytest.mark.parametrize("name", sorted(ISSUE_23_FLOORS) + sorted(ISSUE_29_FLOORS))
def test_held_out_sets_keep_their_figures_when_present(name):
    heldout = scorer.HELDOUT_SETS[name]
    if not scorer.heldout_files_present(heldout.folder, heldout.manifest):
        pytest.skip(f"{name} PDFs not in {heldout.folder} (not redistributable; "
                    f"python benchmarks/furniture_truth.py --fetch {name} --download)")
    scores = scorer.score_heldout(heldout.folder, truth=heldout.truth, ocr="off")
    totals = scorer.totals(scores)
    min_recall, min_document_retention = {**ISSUE_23_FLOORS, **ISSUE_29_FLOORS}[name]
    assert totals["recall_gone"] >= min_recall, totals
    assert totals["retention"] >= MIN_BODY_RETENTION, totals
    for score in scores:
        assert score.retention >= min_document_retention, score
