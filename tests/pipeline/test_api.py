"""``ragbeam.IngestDocuments`` inside a pipeline the test writes itself."""

from __future__ import annotations

import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to

import ragbeam
from ragbeam.pipeline.settings import ConfigError

from conftest import SAMPLES


def test_ingest_documents_in_a_users_own_pipeline(tmp_path):
    found = tmp_path / "found.txt"
    with beam.Pipeline() as p:
        tables = p | "Ingest" >> ragbeam.IngestDocuments(
            input=[str(SAMPLES)], exclude=["*.py"], strategy="recursive", chunk_size=300)
        # The user's own steps on the tagged outputs.
        per_doc = (tables["chunks"]
                   | beam.Map(lambda c: (c["source_uri"].rsplit("/", 1)[-1], 1))
                   | beam.CombinePerKey(sum))
        assert_that(per_doc | "Has chunks" >> beam.Map(lambda kv: kv[1] > 0)
                    | "One answer" >> beam.Distinct(),
                    equal_to([True]), label="every document has chunks")
        statuses = tables["documents"] | beam.Map(lambda d: d["status"])
        assert_that(statuses | beam.combiners.Count.PerElement(),
                    equal_to([("ok", 8), ("error", 1)]), label="statuses")
        assert_that(tables["errors"] | beam.Map(lambda e: (e["stage"], e["error_class"])),
                    equal_to([("extract", "permanent")]), label="errors")
        upserts = tables["changes"] | beam.Map(lambda c: c["op"]) | "Ops" >> beam.Distinct()
        assert_that(upserts, equal_to(["upsert"]), label="changes")
        _ = per_doc | "Note names" >> beam.Map(
            lambda kv: found.open("a", encoding="utf-8").write(kv[0] + "\n"))
    assert "handbook.md" in found.read_text(encoding="utf-8")


def test_ingest_documents_from_bytes_a_caller_holds():
    pairs = [("mem://notes/a.txt", b"First note. It has two sentences."),
             ("mem://notes/empty.txt", b"")]
    with beam.Pipeline() as p:
        tables = p | beam.Create(pairs) | ragbeam.IngestDocuments(strategy="recursive")
        assert_that(tables["chunks"] | beam.Map(lambda c: c["text"]),
                    equal_to(["First note. It has two sentences."]), label="chunks")
        assert_that(tables["documents"] | beam.Map(lambda d: (d["source_uri"], d["status"])),
                    equal_to([("mem://notes/a.txt", "ok"), ("mem://notes/empty.txt", "error")]),
                    label="documents")


def test_options_are_validated_like_the_cli():
    with pytest.raises(ConfigError, match=r"chunk_sise: unknown key \(did you mean 'chunk_size'"):
        ragbeam.IngestDocuments(chunk_sise=300)
    with pytest.raises(ConfigError, match=r"chunk_size: Input should be a valid integer"):
        ragbeam.IngestDocuments(chunk_size="300")


def test_an_input_that_matches_nothing_raises_like_the_cli(tmp_path):
    """`ragbeam run` exits 2 for it; the transform refuses it before any step runs."""
    with pytest.raises(ValueError, match=r"--input '/nowhere' matched no files"):
        ragbeam.IngestDocuments(input=["/nowhere"])
    (tmp_path / "only.py").write_text("x = 1\n")
    with pytest.raises(ValueError, match=r"matched no files \(after --include/--exclude\)"):
        ragbeam.IngestDocuments(input=[str(tmp_path)], exclude=["*.py"])
