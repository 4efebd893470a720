"""Shared fixtures: the real corpus, and real pipeline runs read back from Parquet."""

from __future__ import annotations

import csv
import os
import pathlib
import sys
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, settings

# No property test's outcome may depend on the machine's speed: no per-example
# deadline, and no health check that times data generation (both wall-clock). CI
# must also be reproducible: there the property tests explore the same examples on
# every run (locally they keep exploring new ones).
LOAD_INDEPENDENT = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("default", **LOAD_INDEPENDENT)
settings.register_profile("ci", derandomize=True, **LOAD_INDEPENDENT)
settings.load_profile("ci" if os.environ.get("CI") else "default")

REPO = pathlib.Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
# --extract-timeout for runs whose documents must all be extracted: far beyond what
# any test document needs, so that no outcome depends on the machine's load (the
# limit counts wall-clock seconds, from the extraction child's start). The hang file
# (bad/fuzzed-hang.one) still ends quickly: the default memory cap kills it. A test
# of the limit itself uses a document that never finishes (the hang file, a server
# that never answers) against a short one, which has no race to lose.
TEST_EXTRACT_TIMEOUT = "300"

sys.path.insert(0, str(REPO / "tests"))

# ``slow`` tests: ``make quick`` leaves them out, ``make test`` (CI) runs them. A test
# is slow when it takes one of these fixtures (a real pipeline over the whole shared
# corpus, ``ragbeam compare``: three runs, a headless browser), so a new test that
# takes one is marked too; or when its module is below: modules whose tests each run
# ragbeam end to end (several times, or with the model, OCR, a store, a bucket) or
# measure over the whole corpus. What stays quick: the pure functions of every stage,
# the Python API, DoFns on a few elements, and one end-to-end run over samples/
# (test_end_to_end). Runner tests are marked where they are (test_runners.py).
SLOW_FIXTURES = frozenset({"corpus_run", "samples_compare", "chromium"})
SLOW_MODULES = frozenset({
    # whole-corpus measures
    "transforms/chunk/test_quality_corpus.py", "transforms/clean/test_furniture_truth.py",
    "transforms/clean/test_heldout_furniture.py", "evaluate/test_segmentation_quality.py",
    "reliability/test_hostile_corpus.py",
    # end-to-end runs, many per module
    "pipeline/test_faults.py", "pipeline/test_incremental.py",
    "pipeline/test_change_detection.py", "pipeline/test_remote_storage.py",
    "pipeline/test_determinism.py", "pipeline/test_progress.py", "pipeline/test_store_sync.py",
    "pipeline/test_embedding_column.py", "pipeline/test_early_start.py", "pipeline/test_cli.py",
    "pipeline/test_claim.py", "pipeline/test_reuse_extraction.py", "deploy/test_reindex.py",
    "reliability/test_kill_rerun.py",
    "reliability/test_worker_memory.py", "reliability/test_retries.py",
    "transforms/embed/test_embed_pipeline.py", "transforms/sink/test_stores.py",
    "transforms/extract/test_ocr_and_fallback.py",
})
TESTS = pathlib.Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow_modules: set[pathlib.Path] = set()
    for item in items:
        module = pathlib.Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())) or module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("slow"):
            slow_modules.add(item.path)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # Under pytest-xdist, modules holding a slow test are handed out first (each
        # worker sorts alike, the order stays stable within a module): a long module
        # started last would leave the other workers idle until it ends.
        items.sort(key=lambda item: item.path not in slow_modules)



def require_shared(relative: str) -> pathlib.Path:
    """A path under ``../shared`` (material outside the repository: the corpus, seeds).
    A plain clone has no ``../shared``: the test skips saying what is missing; in CI,
    which has it, its absence fails."""
    path = SHARED / relative
    if path.exists():
        return path
    if os.environ.get("CI"):
        pytest.fail(f"{path} missing: CI runs with ../shared beside the repo")
    pytest.skip(f"needs {path} (../shared beside the repository; absent in a plain clone)")


def require_corpus() -> pathlib.Path:
    """The shared corpus: its absence fails in CI and skips elsewhere."""
    return require_shared("corpus")


@pytest.fixture(scope="session")
def corpus_dir() -> pathlib.Path:
    return require_corpus()


@pytest.fixture(scope="session")
def corpus_manifest(corpus_dir: pathlib.Path) -> list[dict[str, str]]:
    with open(corpus_dir / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@dataclass
class RunOutput:
    path: pathlib.Path
    summary: dict

    def table(self, name: str):
        from helpers import read_table

        return read_table(self.path, name)


def shared_folder(tmp_path_factory, name: str) -> pathlib.Path:
    """A folder for ``name`` that every pytest-xdist worker of this session sees (the
    session's base temporary folder; without xdist, this process's)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    return base / name


def shared_output(tmp_path_factory, name: str, make, done: str = "run.json") -> pathlib.Path:
    """``folder/out``, made once per test session by ``make(out)`` however many workers
    ask: the first builds it under a lock, the others wait for it and read it. Made
    when ``out/done`` exists (a build that failed is made again by the next asker)."""
    import fcntl
    import shutil

    folder = shared_folder(tmp_path_factory, name)
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "out"
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / done).exists():
            shutil.rmtree(out, ignore_errors=True)
            make(out)
    return out


def shared_run(tmp_path_factory, name: str, args: list[str]) -> RunOutput:
    """``ragbeam run ARGS --output OUT``, run once per test session (``shared_output``)."""
    import json

    from helpers import run_cli

    out = shared_output(tmp_path_factory, name,
                        lambda out: run_cli([*args, "--output", str(out)]))
    return RunOutput(out, json.loads((out / "run.json").read_text()))


@pytest.fixture(scope="session")
def corpus_run(corpus_dir, tmp_path_factory) -> RunOutput:
    """The one whole-corpus run of the suite (many tests read it): ``ragbeam run`` over
    every file of the shared corpus with the defaults, the run whose fingerprint is the
    golden file (``evaluate/golden.py run_default``). Besides the MANIFEST's documents
    it holds the corpus's own files (MANIFEST.csv, README.md, the licences)."""
    import json

    from ragbeam.evaluate.golden import run_default

    out = shared_output(tmp_path_factory, "corpus_run",
                        lambda out: run_default(str(corpus_dir), str(out)))
    return RunOutput(out, json.loads((out / "run.json").read_text()))


@pytest.fixture(scope="session")
def corpus_manifest_uris(corpus_dir, corpus_manifest) -> set[str]:
    """``source_uri`` of every document the corpus's MANIFEST lists."""
    return {str(corpus_dir / row["path"]) for row in corpus_manifest}


@pytest.fixture(scope="session")
def samples_run(tmp_path_factory) -> RunOutput:
    return shared_run(tmp_path_factory, "samples_run", [
        "--input", str(SAMPLES), "--exclude", "*.py", "--extract-timeout", TEST_EXTRACT_TIMEOUT])
