"""Golden output (``evaluate/golden.py``): a default run over the shared corpus gives the
checked-in fingerprint, document by document. A change meant to change output
regenerates it (the command is in the module's doc and docs/architecture.md)."""

from __future__ import annotations

import json

from ragbeam.evaluate.golden import (
    compare_outputs,
    fingerprint,
    fingerprint_differences,
)

from conftest import REPO

GOLDEN = REPO / "tests" / "data" / "golden" / "corpus.json"


def test_a_default_run_over_the_corpus_gives_the_golden_fingerprint(corpus_run):
    """corpus_run is ``run_default`` over the corpus, the run the fingerprint is of."""
    expected = json.loads(GOLDEN.read_text())
    differences = fingerprint_differences(expected, fingerprint(str(corpus_run.path)))
    assert not differences, (
        f"{len(differences)} documents differ from {GOLDEN.name}:\n" + "\n".join(differences)
        + "\nIf the change is meant to change output: python -m ragbeam.evaluate.golden "
          "--input ../shared/corpus --write tests/data/golden/corpus.json")


def test_the_fingerprint_and_the_comparison_see_one_changed_chunk(samples_run, tmp_path):
    """The checks can fail: one chunk's text edited in a copy of a run."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    copy = tmp_path / "copy"
    shutil.copytree(samples_run.path, copy)
    (path,) = sorted((copy / "chunks").glob("*.parquet"))
    rows = pq.read_table(path).to_pylist()
    rows[3]["text"] += " (edited)"
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(path)), path)

    before, after = fingerprint(str(samples_run.path)), fingerprint(str(copy))
    assert fingerprint_differences(before, before) == []
    assert fingerprint_differences(before, after) == [f"{rows[3]['doc_id']}: chunks_sha256"]
    differences = compare_outputs(str(samples_run.path), str(copy))
    assert differences == {"chunks": [f"{rows[3]['chunk_id']}: text"], "documents": []}
