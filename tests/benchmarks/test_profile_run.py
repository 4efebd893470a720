"""``benchmarks/profile_run.py``'s stages: each py-spy sample goes to the stage whose
code it is in (the layout pass apart from extraction's plumbing, the extraction
children's own Python apart from Tika, a blocked stderr reader as waiting)."""

from __future__ import annotations

import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

from profile_run import PACKAGE_FRAME, stage_of, summarise

RUN = ["process 10:\"python -m ragbeam.pipeline.cli run\""]
CHILD = [*RUN, "process 11:\"python -m ragbeam.transforms.extract.isolation\""]


def _frame(function: str, path: str) -> str:
    return f"{function} {PACKAGE_FRAME}{path})"


def test_samples_go_to_the_stage_of_their_code():
    layout = [_frame("ExtractWithTika.process", "transforms/extract/dofn.py"),
              _frame("_native_pdf_layout", "transforms/extract/layout.py")]
    assert stage_of(RUN, layout) == "layout pass (PDFium, per line)"
    pool = [_frame("ExtractionPool._run_admitted", "transforms/extract/isolation.py")]
    assert stage_of(RUN, pool) == "extraction plumbing (pool, early start, guards)"
    reader = ["Thread.run (threading.py)",
              _frame("_log_child_output", "transforms/extract/isolation.py")]
    assert stage_of(RUN, reader) == "waiting"
    tika = [_frame("_child_main", "transforms/extract/isolation.py"),
            _frame("EmbeddedTika._extract_with", "transforms/extract/backends.py")]
    assert stage_of(CHILD, tika) == "Tika (extraction child)"
    fallback = [_frame("_child_main", "transforms/extract/isolation.py"),
                _frame("pdfminer_pages", "transforms/extract/backends.py")]
    assert stage_of(CHILD, fallback) == "extraction child: other (messages, PDF fallback)"
    assert stage_of(CHILD, ["<module> (iscc_tika/__init__.py)"]) == "Tika (extraction child)"


def test_the_summary_spreads_the_run_process_s_cpu_over_its_own_samples():
    lines = [";".join([*RUN, "thread (0x1)", *frames]) + f" {n}" for frames, n in (
        ([_frame("_native_pdf_layout", "transforms/extract/layout.py")], 3),
        ([_frame("clean_document", "transforms/clean/document.py")], 1))]
    lines.append(";".join([*CHILD, "thread (0x2)",
                           _frame("EmbeddedTika._extract_with",
                                  "transforms/extract/backends.py")]) + " 4")
    text = summarise("\n".join(lines) + "\n", main_cpu_s=8.0)
    assert "layout pass (PDFium, per line)" in text and " 6.00" in text
    assert "beyond Tika: 50.0% of the samples" in text
