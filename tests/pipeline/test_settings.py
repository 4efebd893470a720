"""One config schema (``pipeline/settings.py``): every ``RunSettings`` field reaches
exactly one place, and every field of a stage's option object is filled from it."""

from __future__ import annotations

import dataclasses

from ragbeam.pipeline.settings import (
    RUN_LEVEL,
    STAGE_FIELDS,
    RunSettings,
    load_settings,
    run_config,
)
from ragbeam.transforms.embed.model import EmbeddingOptions, model_threads
from ragbeam.transforms.extract.backends import DEFAULT_MAX_STRING_CHARS

# Option fields that come from more than one setting, or from none (not options).
DERIVED = {("ChunkOptions", "tokenizer_model"), ("ExtractOptions", "max_string_chars"),
           ("SemanticOptions", "max_chunk"), ("SemanticOptions", "sections"),
           # what --embedding-precision auto became (run_config resolves it)
           ("EmbeddingOptions", "auto_choice"),
           # ragbeam's own folders (--output, --previous), never input
           ("MatchOptions", "own")}


def test_every_setting_goes_to_exactly_one_place():
    places: dict[str, list[str]] = {}
    for cls, fields in STAGE_FIELDS.items():
        for name in fields:
            places.setdefault(name, []).append(cls.__name__)
    for name in RUN_LEVEL:
        places.setdefault(name, []).append("RunConfig")
    assert {n: p for n, p in places.items() if len(p) != 1} == {}
    assert set(places) == set(RunSettings.model_fields)


def test_every_option_field_is_filled_from_a_setting_or_derived():
    for cls, fields in STAGE_FIELDS.items():
        option_fields = {f.name for f in dataclasses.fields(cls)}
        assert set(fields.values()) <= option_fields, cls.__name__
        unfilled = {(cls.__name__, f) for f in option_fields - set(fields.values())}
        assert unfilled <= DERIVED, unfilled


def test_settings_reach_the_stages_options():
    config = run_config(load_settings({
        "input": ["x"], "output": "o/", "chunk_size": 300, "chunk_overlap": 20,
        "extract_timeout": 90.0, "ocr_page_timeout": 7, "semantic_block": 2,
        "embedding_threads": 3, "doc_ids": "absolute", "include": ["*.pdf"]}))
    assert (config.chunk.size, config.chunk.overlap) == (300, 20)
    assert (config.extract.timeout_s, config.extract.ocr_page_timeout_s) == (90.0, 7)
    assert config.semantic.block == 2 and config.embedding.torch_threads == 3
    assert config.ids.mode == "absolute" and config.match.include == ("*.pdf",)
    assert config.match.inputs == ("x",) and config.output == "o"


def test_the_extractors_string_limit_has_one_default():
    config = run_config(load_settings({"input": ["x"], "output": "o"}))
    assert config.extract.max_string_chars == DEFAULT_MAX_STRING_CHARS


def test_zero_embedding_threads_means_the_processs_share_everywhere():
    """--embedding-threads 0 is "the worker process's share": the runner resolves it;
    a model loaded with it unresolved gets this process's cores, not torch's own
    default or one thread."""
    from ragbeam.pipeline.runner import pipeline_options, with_embedding_threads
    from ragbeam.transforms.cores import available_cores

    auto = EmbeddingOptions(torch_threads=0)
    resolved = with_embedding_threads(auto, pipeline_options([]))
    assert resolved.torch_threads == available_cores() == model_threads(auto)
    assert model_threads(EmbeddingOptions(torch_threads=2)) == 2


def test_the_text_vector_has_three_states_and_a_default_only_where_chunks_are_embedded(
        tmp_path):
    import argparse

    import pytest

    from ragbeam.pipeline.config import DEFAULT_TEXT_VECTOR
    from ragbeam.pipeline.settings import add_run_arguments

    def config(**given):
        return run_config(load_settings({"input": ["x"], "output": "o", **given}))

    plain = config()  # embeds nothing: no second vector, whatever the default
    assert (plain.embed_chunks, plain.text_vector) == (False, False)
    default = config(embed_chunks=True)
    assert default.text_vector is DEFAULT_TEXT_VECTOR and not default.text_vector_asked
    asked = config(text_vector=True)  # given, it implies --embed-chunks
    assert asked.embed_chunks and asked.text_vector and asked.text_vector_asked
    off = config(embed_chunks=True, text_vector=False)
    assert off.embed_chunks and not off.text_vector and not off.text_vector_asked
    assert not config(text_vector=False).embed_chunks  # off embeds nothing by itself
    # The flags, as ragbeam run parses them; and the config file's key.
    parser = argparse.ArgumentParser()
    add_run_arguments(parser)
    assert vars(parser.parse_args(["--text-vector"]))["text_vector"] is True
    assert vars(parser.parse_args(["--no-text-vector"]))["text_vector"] is False
    assert "text_vector" not in vars(parser.parse_args([]))
    (tmp_path / "c.yaml").write_text("text_vector: false\nembed_chunks: true\n")
    from_file = run_config(load_settings({"input": ["x"], "output": "o"},
                                         str(tmp_path / "c.yaml")))
    assert from_file.embed_chunks and not from_file.text_vector
    with pytest.raises(Exception, match="text_vector"):
        load_settings({"input": ["x"], "output": "o", "text_vector": "yes"})
