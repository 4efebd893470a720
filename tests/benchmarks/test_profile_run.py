"""``benchmarks/profile_run.py``'s stages: each py-spy sample goes to the stage whose
code it is in (the layout pass apart from extraction's plumbing, the extraction
children's own Python apart from Tika, a blocked stderr reader as waiting); each perf
sample to its process and shared object."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import profile_run
from profile_run import PACKAGE_FRAME, perf_compare, perf_split, stage_of, summarise

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
    assert stage_of(CHILD, fallback) == "extraction child: PDF fallback (pdfminer)"
    second = [*tika, _frame("EmbeddedTika._extract_utf8_stream",
                            "transforms/extract/backends.py")]
    assert stage_of(CHILD, second) == "extraction child: Tika's second, UTF-8 extraction"
    reply = [_frame("_child_main", "transforms/extract/isolation.py"),
             _frame("_write_message", "transforms/extract/isolation.py")]
    assert stage_of(CHILD, reply) == "extraction child: messages (pickle, pipe)"
    encoding = [_frame("ChunkDocument.process", "transforms/chunk/dofn.py"),
                "DataOutputOperation.process (apache_beam/runners/worker/operations.py)",
                "FastPrimitivesCoderImpl.encode_to_stream (apache_beam/coders/coder_impl.py)"]
    assert stage_of(RUN, encoding) == "Beam: coders (encoding, decoding)"
    assert stage_of(CHILD, ["<module> (iscc_tika/__init__.py)"]) == "Tika (extraction child)"


def test_the_summary_spreads_the_run_process_s_cpu_over_its_own_samples():
    lines = [";".join([*RUN, "thread (0x1)", *frames]) + f" {n}" for frames, n in (
        ([_frame("_native_pdf_layout", "transforms/extract/layout.py")], 3),
        ([_frame("clean_document", "transforms/clean/document.py")], 1))]
    lines.append(";".join([*CHILD, "thread (0x2)",
                           _frame("EmbeddedTika._extract_with",
                                  "transforms/extract/backends.py")]) + " 4")
    text = summarise("\n".join(lines) + "\n", main_cpu_s=8.0, children_cpu_s=5.0)
    assert "layout pass (PDFium, per line)" in text and " 6.00" in text
    assert "Tika (extraction child)" in text and " 5.00" in text
    assert "beyond Tika: 50.0% of the samples" in text


def test_perf_samples_go_to_their_process_and_shared_object(monkeypatch):
    tika = "/venv/lib/python3.11/site-packages/iscc_tika/libtika_native.so"
    pdfium = "/venv/lib/python3.11/site-packages/pypdfium2_raw/libpdfium.so"
    samples = (
        [("python", 10, 10, "_PyEval_EvalFrameDefault", "/usr/lib/libpython3.11.so.1.0")] * 3
        + [("python", 10, 12, "FPDF_LoadPage", pdfium)] * 2  # the run process's pool thread
        + [("python", 20, 20, "tika_extract", tika)] * 1500  # the extraction child
        + [("python", 20, 20, "copy_page_range", "[kernel.kallsyms]")] * 4
        + [("Apache Tika", 20, 21, "tika_stream", tika)] * 2
        + [("python", 30, 30, "unmap_page_range", "[kernel.kallsyms]")] * 5  # a fork
        + [("tesseract", 31, 31, "_dl_relocate_object", "/usr/lib/ld-linux-x86-64.so.2")] * 7
        + [("python", 40, 40, "_PyEval_EvalFrameDefault",
            "/usr/lib/libpython3.11.so.1.0")] * 60)  # the memory guard
    script = "".join(f"{comm:>16} {pid}/{tid}  7f00 {symbol}+0x1 ({dso})\n"
                     for comm, pid, tid, symbol, dso in samples)
    # the run process: the most samples of the processes that ran no Tika and no tesseract
    script += "".join(
        f"{'python':>16} 10/10  7f00 _PyEval_EvalFrameDefault+0x1 "
        "(/usr/lib/libpython3.11.so.1.0)\n" for _ in range(100))
    monkeypatch.setattr(profile_run.subprocess, "run",
                        lambda *a, **k: subprocess.CompletedProcess(a, 0, stdout=script))
    split = {key: round(seconds, 6) for key, seconds in perf_split(REPO / "perf.data").items()}
    assert split["run process", "Python interpreter"] == 0.103
    assert split["run process", "PDFium"] == 0.002
    assert split["extraction children", "Tika (native image)"] == 1.5
    assert split["extraction children", "kernel: fork (page tables copied)"] == 0.004
    assert split["extraction children", "Tika's stream thread"] == 0.002
    assert split["Tika's forks before exec", "kernel"] == 0.005
    assert split["tesseract started by Tika", "libc, loader"] == 0.007
    assert split["memory guard, others", "Python interpreter"] == 0.06


def test_two_runs_side_by_side_by_process_kind_with_each_child_apart():
    """``--two-cores``: the one-core run's single child beside the two-core run's two,
    the difference of each kind and shared object in the last column."""
    def processes(*children: float) -> list:
        run = ("run process", "10", Counter({"Python interpreter": 20.0 - sum(children)}))
        return [run] + [("extraction children", str(11 + i),
                         Counter({"Tika (native image)": seconds,
                                  "kernel: fork (page tables copied)": 1.0}))
                        for i, seconds in enumerate(children)]

    table = perf_compare({"one core": processes(8.0), "two cores": processes(5.0, 4.5)})
    lines = table.splitlines()
    assert [float(x) for x in lines[1].split()[-3:]] == [21.0, 22.0, 1.0]  # the tree
    children = next(line for line in lines if "(all: 1/2 processes)" in line)
    assert [float(x) for x in children.split()[-3:]] == [9.0, 11.5, 2.5]
    fork = next(line for line in lines if "fork (page tables copied)" in line)
    assert fork.split()[-1] == "+1.00"
    assert lines[-1] == "  two cores: extraction children 6.00, 5.50 CPU s"
