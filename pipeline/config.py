"""The run configuration: every ragbeam option, and the fingerprint of those
that change the output (``config_hash``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.semantic import SemanticOptions
from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.embed.model import EmbeddingOptions
from ragbeam.transforms.extract.guards import DEFAULT_MAX_TEXT_CHARS, extractor_string_limit
from ragbeam.transforms.ids import config_fingerprint
from ragbeam.transforms.route.router import RouteOptions

# Bump when a code change alters chunks for the same options, so that
# incremental runs re-process documents chunked by older code.
OUTPUT_FORMAT_VERSION = 2

DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024
DEFAULT_EXTRACT_TIMEOUT_S = 60.0
# Resident memory cap per extraction process; 0 turns the cap off.
DEFAULT_EXTRACT_MEMORY_MB = 2048


@dataclass(frozen=True)
class MatchOptions:
    inputs: tuple[str, ...]
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES


@dataclass(frozen=True)
class ExtractOptions:
    tika_server: str | None = None  # None: embedded iscc-tika
    timeout_s: float = DEFAULT_EXTRACT_TIMEOUT_S
    max_string_chars: int = 100_000_000
    memory_mb: int = DEFAULT_EXTRACT_MEMORY_MB
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    # Extraction child processes per worker process (0: decided by the runner,
    # pipeline/runner.py). Speed only: not part of the fingerprint.
    processes: int = 0

    @property
    def backend_spec(self) -> tuple[str, dict[str, Any]]:
        if self.tika_server:
            return ("server", {"url": self.tika_server})
        # Tika stops writing just past the text limit: a huge document costs no
        # more memory than that, and is still recognised as too large.
        return ("embedded", {"max_string_chars": min(
            self.max_string_chars, extractor_string_limit(self.max_text_chars))})

    @property
    def memory_limit_bytes(self) -> int | None:
        return self.memory_mb * 1024 * 1024 if self.memory_mb > 0 else None


@dataclass(frozen=True)
class RunConfig:
    match: MatchOptions
    output: str
    extract: ExtractOptions = field(default_factory=ExtractOptions)
    clean: CleanOptions = field(default_factory=CleanOptions)
    chunk: ChunkOptions = field(default_factory=ChunkOptions)
    route: RouteOptions = field(default_factory=RouteOptions)
    # Incremental runs (--previous, --retry-errors): they change what is re-done,
    # never what a document's rows look like, so they are not fingerprinted.
    previous: str | None = None
    retry_errors: bool = False
    # Semantic chunking and chunk embeddings (transforms/embed).
    semantic: SemanticOptions = field(default_factory=SemanticOptions)
    embedding: EmbeddingOptions = field(default_factory=EmbeddingOptions)
    embed_chunks: bool = False

    def routable_strategies(self) -> set[str]:
        """Every strategy a document of this run can be chunked with."""
        if self.route.forced_strategy:
            return {self.route.forced_strategy}
        return set(self.route.table.strategy_names())

    @property
    def uses_semantic(self) -> bool:
        return "semantic" in self.routable_strategies()

    @property
    def uses_embeddings(self) -> bool:
        return self.embed_chunks or self.uses_semantic

    def fingerprint_fields(self) -> dict[str, Any]:
        """Everything that changes chunks or document rows for the same input bytes.

        Input patterns and the output location are not here: the same file,
        found through another pattern, gives the same chunks.
        """
        return {
            "format_version": OUTPUT_FORMAT_VERSION,
            "max_file_bytes": self.match.max_file_bytes,
            "extractor": "tika-server" if self.extract.tika_server else "iscc-tika",
            "max_string_chars": self.extract.max_string_chars,
            "max_text_chars": self.extract.max_text_chars,
            "clean": dataclasses.asdict(self.clean),
            "chunk": dataclasses.asdict(self.chunk),
            "route": dataclasses.asdict(self.route),
            # Only when they can change the output, so other runs keep their hash.
            **({"semantic": dataclasses.asdict(self.semantic)} if self.uses_semantic else {}),
            **({"embedding": {**self.embedding.fingerprint(), "embed_chunks": self.embed_chunks}}
               if self.uses_embeddings else {}),
        }

    @property
    def config_hash(self) -> str:
        return config_fingerprint(self.fingerprint_fields())
