"""One worker process, several runner threads, one bounded extraction pool.

A real ``ragbeam run`` on the multi-threaded local runner (four threads in one
process) with ``--extract-processes 2``: however many threads run the Extract
stage, at most two extraction children are alive at any moment, and the whole
process tree stays within the documented memory budget of a worker
(``worker_memory_budget_mib``: the worker, the pool's children at their cap,
the documents in flight; docs/running-at-scale.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from reliability.hostile import pdf_with_pages, varied_page_texts
from reliability.processes import tree_rss_bytes

from ragbeam.pipeline.runner import worker_memory_budget_mib

from conftest import TEST_EXTRACT_TIMEOUT, require_corpus
from helpers import read_table

THREADS = 4
PROCESSES = 2
MEMORY_CAP_MB = 512


def _extraction_children(root: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == root and b"extract.isolation" in cmdline:
            found.append(int(entry))
    return found


def test_threads_share_one_bounded_pool_within_the_memory_budget(tmp_path):
    corpus = require_corpus()
    inputs = tmp_path / "in"
    for path in corpus.rglob("*"):  # the real corpus, without its broken and hanging files
        rel = path.relative_to(corpus)
        if (not path.is_file() or rel.parts[0] in ("bad", "LICENSES") or len(rel.parts) == 1
                or path.suffix == ".md5"):
            continue
        (inputs / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, inputs / rel)
    for i in range(4):  # a few longer documents, so extractions overlap
        (inputs / f"long-{i}.pdf").write_bytes(pdf_with_pages(varied_page_texts(300 + i)))
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "ragbeam.pipeline.cli", "run", "--input", str(inputs),
           "--output", str(out), "--extract-processes", str(PROCESSES),
           "--extract-memory-mb", str(MEMORY_CAP_MB), "--extract-timeout", TEST_EXTRACT_TIMEOUT,
           "--direct_running_mode", "multi_threading", "--direct_num_workers", str(THREADS)]
    most_children, seen, peak = 0, set(), 0
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as proc:
        deadline = time.monotonic() + 600
        while proc.poll() is None and time.monotonic() < deadline:
            children = _extraction_children(proc.pid)
            seen.update(children)
            most_children = max(most_children, len(children))
            peak = max(peak, tree_rss_bytes(proc.pid))
            time.sleep(0.02)
        if proc.poll() is None:
            proc.kill()
        output = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
    assert proc.returncode == 0, output
    documents = read_table(out, "documents").to_pylist()
    assert sum(d["status"] == "ok" for d in documents) >= len(documents) - 2
    assert 1 <= most_children <= PROCESSES, (most_children, seen)
    budget = worker_memory_budget_mib(PROCESSES, MEMORY_CAP_MB, with_model=False)
    print(f"{THREADS} threads, pool of {PROCESSES}: {len(seen)} children started, at most "
          f"{most_children} at once; peak tree RSS {peak / 2**20:,.0f} MiB "
          f"(budget {budget:,} MiB)")
    assert peak < budget * 2**20
