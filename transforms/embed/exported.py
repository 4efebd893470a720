"""The sentence-transformers model exported once to ONNX, run by ONNX Runtime or OpenVINO.

    model = load_exported_model(sentence_transformer, "onnx", threads=1)
    vectors = model.encode(["A sentence.", "Another one."], batch_size=64)

Why not sentence-transformers' own ``backend="onnx"|"openvino"``: it needs
Optimum, and the Optimum packages do not fit this project's stack
(``optimum-onnx`` 0.1 pins ``transformers<4.58``, which takes
sentence-transformers back to 5.x; ``optimum-intel[openvino]`` 2.2 pins
``transformers<5.6`` and pulls the PyPI ``torchvision``, a CUDA build that
breaks ``import transformers`` next to CPU torch). It also re-exports the
model on every load unless the export is saved into the model folder, which
here lies inside site-packages. So ragbeam exports the model itself:

* **What is exported**: the whole sentence-transformers module chain (the
  transformer, its pooling, a ``Normalize`` if the model has one), from
  token ids to ``sentence_embedding``, with ``torch.onnx.export``. Tokenizing
  stays with the sentence-transformers model (``preprocess``), so texts are
  cut and padded exactly as with the torch backend.
* **Where**: ``$RAGBEAM_CACHE_DIR`` (else ``$XDG_CACHE_HOME/ragbeam``, else
  ``~/.cache/ragbeam``) ``/embed/<key>/model.onnx``; the key hashes the
  weights, the module chain and the torch version, so another model, another
  revision or another exporter gets its own file. OpenVINO reads the same
  ONNX file.
* **When**: on the first load in a worker process that finds no file for the
  key; offline, from the weights already loaded. Workers that race export
  each into a private temporary folder and rename it into place (atomic);
  the losers discard theirs and use the winner's.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import shutil
import tempfile
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

EXPORT_FORMAT = "1"  # bump when the exported graph changes; old cache entries are then ignored
ONNX_OPSET = 17
_NAMES_EXPORTED = ("input_ids", "attention_mask", "token_type_ids")


def cache_root() -> pathlib.Path:
    explicit = os.environ.get("RAGBEAM_CACHE_DIR")
    if explicit:
        return pathlib.Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(xdg) / "ragbeam"


def export_key(sentence_model: Any) -> str:
    """A hash of everything the exported graph depends on."""
    import torch

    digest = hashlib.sha256()
    digest.update(f"ragbeam-export {EXPORT_FORMAT} torch {torch.__version__}\n".encode())
    digest.update(repr(sentence_model).encode())  # module chain, pooling mode, max length
    for name, tensor in sorted(sentence_model.state_dict().items()):
        digest.update(name.encode())
        digest.update(str(tensor.dtype).encode())
        digest.update(tensor.detach().cpu().reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()[:32]


def sentence_embedding_graph(sentence_model: Any, input_names: Sequence[str]) -> Any:
    """What ``torch.onnx.export`` traces: token tensors in, sentence embeddings out."""
    import torch

    class SentenceEmbeddingGraph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = sentence_model

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            features = dict(zip(input_names, tensors, strict=True))
            return self.model(features)["sentence_embedding"]

    return SentenceEmbeddingGraph().eval()


def model_inputs(sentence_model: Any, texts: list[str]) -> dict[str, Any]:
    """Token tensors for ``texts``, exactly as the torch backend makes them."""
    preprocess = getattr(sentence_model, "preprocess", None) or sentence_model.tokenize
    features = preprocess(texts)
    return {name: features[name] for name in _NAMES_EXPORTED if name in features}


def export_onnx(sentence_model: Any, path: pathlib.Path) -> None:
    """Write the sentence-embedding graph of ``sentence_model`` to ``path`` (one file)."""
    import torch

    # Two lengths, so the example is padded: traced without padding, transformers may
    # leave the attention mask out of the graph (it skips an all-ones mask).
    example = model_inputs(sentence_model, ["Short.", "A longer example sentence, so that the "
                                                      "first one is padded to its length."])
    names = list(example)
    dynamic = {name: {0: "batch", 1: "tokens"} for name in names}
    dynamic["sentence_embedding"] = {0: "batch"}
    with torch.no_grad(), warnings.catch_warnings():
        # Tracer warnings about shape checks that are constant for an encoder; the
        # tests compare the exported model with torch over many batch shapes.
        warnings.simplefilter("ignore")
        # The TorchScript exporter: the dynamo one needs onnxscript, another dependency.
        torch.onnx.export(sentence_embedding_graph(sentence_model, names),
                          tuple(example.values()), str(path), dynamo=False,
                          input_names=names, output_names=["sentence_embedding"],
                          dynamic_axes=dynamic, opset_version=ONNX_OPSET)


def exported_onnx_path(sentence_model: Any) -> pathlib.Path:
    """The cached ONNX file for this model, exported now if it is not there yet."""
    final = cache_root() / "embed" / export_key(sentence_model)
    target = final / "model.onnx"
    if target.is_file():
        return target
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = pathlib.Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=final.parent))
    try:
        export_onnx(sentence_model, scratch / "model.onnx")
        scratch.chmod(0o755)  # mkdtemp makes it private; the file itself is not secret
        try:
            os.rename(scratch, final)  # atomic; fails when another worker was first
        except OSError:
            if not target.is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def onnxruntime_runner(path: pathlib.Path, threads: int) -> Callable[[dict], np.ndarray]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    # Threads that wait sleep instead of spinning (ONNX Runtime spins by default), as
    # torch's do (OMP_WAIT_POLICY=PASSIVE): spinning between passes took 5-15 % more CPU
    # than torch fp32 on a shared 2-core machine, and cores from other work.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    if threads > 0:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return lambda feed: session.run(["sentence_embedding"], feed)[0]


def openvino_runner(path: pathlib.Path, threads: int, precision: str
                    ) -> Callable[[dict], np.ndarray]:
    import openvino as ov

    core = ov.Core()
    # OpenVINO's CPU default is bf16 arithmetic where the processor has it (AVX512-BF16,
    # AMX): fp32 asks for f32, so vectors do not depend on the CPU; bf16 asks for bf16
    # only where the CPU does it natively (elsewhere it would be emulated, and slow).
    native_bf16 = "BF16" in core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    config: dict[str, Any] = {
        "INFERENCE_PRECISION_HINT": "bf16" if precision == "bf16" and native_bf16 else "f32",
        "PERFORMANCE_HINT": "LATENCY",
    }
    if threads > 0:
        config["INFERENCE_NUM_THREADS"] = threads
    compiled = core.compile_model(str(path), "CPU", config)
    request = compiled.create_infer_request()
    return lambda feed: request.infer(feed)[0].copy()


class ExportedSentenceModel:
    """``encode`` like sentence-transformers', with the forward pass in another runtime."""

    # One pass at a time (model.py ``encode_streams``): the runtime has its own threads
    # (an OpenVINO infer request is not for two threads at once).
    ragbeam_encode_streams = 1

    def __init__(self, sentence_model: Any, run: Callable[[dict], np.ndarray],
                 backend: str) -> None:
        self._model = sentence_model
        self._run = run
        self.backend = backend

    def __getattr__(self, name: str) -> Any:
        # The rest of the SentenceTransformer (tokenizer, max_seq_length…) is the torch
        # model's: ``auto`` may hand callers this in place of it.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._model, name)

    def get_embedding_dimension(self) -> int:
        dimension = (getattr(self._model, "get_embedding_dimension", None)
                     or self._model.get_sentence_embedding_dimension)
        return int(dimension())

    def eval(self) -> ExportedSentenceModel:
        return self

    def encode(self, texts: list[str], batch_size: int = 32, normalize_embeddings: bool = False,
               **_: Any) -> np.ndarray:
        """Float32 vectors, one row per text; sorted by length into passes like
        sentence-transformers does, so a pass pads little."""
        vectors = np.zeros((len(texts), self.get_embedding_dimension()), dtype=np.float32)
        order = np.argsort([-len(text) for text in texts], kind="stable")
        for start in range(0, len(texts), batch_size):
            rows = order[start:start + batch_size]
            feed = {name: tensor.numpy() for name, tensor
                    in model_inputs(self._model, [texts[i] for i in rows]).items()}
            vectors[rows] = self._run(feed)
        if normalize_embeddings:
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors


def load_exported_model(sentence_model: Any, backend: str, threads: int,
                        precision: str = "fp32") -> ExportedSentenceModel:
    """``sentence_model`` (a torch SentenceTransformer) run by ``backend``:
    ``onnx`` (ONNX Runtime) or ``openvino``."""
    path = exported_onnx_path(sentence_model)
    if backend == "onnx":
        run = onnxruntime_runner(path, threads)
    elif backend == "openvino":
        run = openvino_runner(path, threads, precision)
    else:
        raise ValueError(f"no exported runtime for backend {backend!r}")
    return ExportedSentenceModel(sentence_model, run, backend)
