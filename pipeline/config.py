"""The run configuration as the stages see it, and the fingerprint of what
changes the output (``config_hash``).

Users never build these by hand: ``settings.py`` is the one config schema
(command line, YAML/TOML file, validation) and turns into a ``RunConfig``.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa

import ragbeam
from ragbeam.schemas import output_schemas
from ragbeam.transforms import storage
from ragbeam.transforms.chunk.base import ChunkOptions
from ragbeam.transforms.chunk.semantic import SemanticOptions
from ragbeam.transforms.chunk.strategies import needs_embeddings, run_options
from ragbeam.transforms.clean.document import CleanOptions
from ragbeam.transforms.embed.model import EmbeddingModelInfo, EmbeddingOptions, describe_model
from ragbeam.transforms.embed.sparse import SPARSE_SCHEME
from ragbeam.transforms.embed.text import TEXT_VECTOR
from ragbeam.transforms.extract.backends import (
    DEFAULT_MAX_STRING_CHARS,
    OcrSettings,
    server_retry_delays,
    tika_server_version,
)
from ragbeam.transforms.extract.guards import DEFAULT_MAX_TEXT_CHARS, extractor_string_limit
from ragbeam.transforms.extract.settings import ExtractionSettings
from ragbeam.transforms.extract.single_file import shared_extractor
from ragbeam.transforms.ids import DOC_IDS_RELATIVE, config_fingerprint
from ragbeam.transforms.match.patterns import expand_input, id_root
from ragbeam.transforms.plan.guard import DeleteGuard
from ragbeam.transforms.plan.layers import dense_key, layer_plan, recorded_layer_keys, sparse_key
from ragbeam.transforms.plan.reuse_extraction import reuse_key
from ragbeam.transforms.route.router import RouteOptions
from ragbeam.transforms.sink.uri import SinkSpec

if TYPE_CHECKING:
    from ragbeam.transforms.extract.single_file import SingleFileExtractor
    from ragbeam.transforms.plan.layers import LayerPlan

# Bump when a code change alters chunks for the same options, so that
# incremental runs re-process documents chunked by older code. (The ragbeam
# version is in the fingerprint too; this also covers unreleased changes.)
# 3: doc ids relative to the input root; embed_text never repeats a heading; margin
# stamps, section heads; OCR and the PDF fallback; one sentence segmenter
# (sentencex); the 128-token default.
# 4: embedded resources left out, residue lines and cover sheets removed, bare
# headings joined to their text, language from the text; web pages' and e-books'
# source line breaks read as spaces (HTML's rule).
# 5: OCR replaces a page's text only where it has no usable text layer (no more
# appended copies); hard-wrapped plain text joined into paragraphs; chunks with
# nothing to search for left out; headings from a PDF's outline.
# 6: the PDF layout pass (position, size and face of each line): furniture by
# position, headings from typography, paragraphs broken where the type changes;
# blank pages not OCR'd; each chunk's tokens counted once, exactly.
# 7: a code's "§ N Title." sections, long titles, a section over its subsection set
# alike as headings; a title repeated as the next pages' running head kept; a running
# head Tika cut into pieces on a turned page removed.
# 8: page furniture from one page-template model; PDF tables as rows with their title and
# header in every piece; link annotations in metadata, never text; a document's name,
# kind and period in every chunk's header; contents pages marked and kept out of the
# index; paragraphs across page breaks, hyphens and spaces from the document's own words.
# 9: a table's part past a note at its page's foot keeps the title and header; a heading
# of identifiers only (a generator's UUID) is text, not a section.
# 10: a PDF table's cell over several columns written once, in the first it covers (it
# was copied into each); a line that reads as a sentence is never a heading; furniture
# heads compared without their letter spacing, slides' carried-over titles kept; a
# headless table part that opens its page put into the previous part's columns (two
# columns run together on a page no longer break the chain: its header carries on);
# a table's header never reaches into the table above.
# 11: a footnote between a paragraph's halves (a column or page break) moved after the
# paragraph, the halves joined; a heading repeated "(continued)" at the page's edge and
# a statement's account lines past its head block are furniture; a table's column
# headers repeated atop its pages kept; a page whose only unreadable characters are a
# formula font's keeps its text layer (no OCR).
# 12: a folio whose digits Tika reads reversed and a statement's title repeated under
# the page head (its continuation pages) are furniture.
# 13: a side-margin head block (its lines and the folio under it) is one template element,
# odd and even pages keep their own text frame; a head or foot naming the current section
# beside fixed text, a spread's folio run into its label, a deck's "N / M" footline are
# furniture; headings a browser draws after their page's text go back over it, table
# rows and cited labels are no headings; a title under a banner starts its own block;
# a head line that recurs exactly as set is template even where its form (numbers
# abstracted) stands at two places.
# 14: documents named where nothing named them (a filing by its registrant, with its
# trading symbol; an office file or Markdown by its opening heading; plain text, logs, CSV
# and code by the file's name; a mail by its subject), Japanese periods also as 年度;
# filings' heading levels and paths (front matter, form answers, cross-references, table
# cells, unnumbered appendices and exhibits).
# 15: filings' statement titles over their tables, run-in PART/Item lines cut apart,
# appendices under their exhibit; Japanese numbered headings ('1．', CJK lines not joined
# to the line above), a catalogue's numbered option rows no sections; a browser-printed
# page named by the name it prints, an outline's missing References heading, a date
# ('9 August') no numbered section, a heading over a side caption heads the text after.
# 16: a browser's printed link targets removed from the text (the links stay in
# metadata), Markdown links read as their words, a printed wiki page's "Retrieved from"
# footer gone; a reference list's chunks and a chunk that only restates the next one's
# header out of the index; a whole year's FY name and a second quarter's half year in the
# label; slide titles (PDF decks, .pptx) as headings; tables beside a column of text, row
# labels at a table's left as its first column; a short FY ("FY23") also its full year in
# BM25's terms; the label's words once where the chunk already holds them.
# 17: a .txt written in Markdown read as Markdown, Markdown's raw HTML blocks as their
# words; two lines in capitals one heading only where the first is full (a registrant's
# name over its statement's title); note markers ([1]) out of what the dense model and
# BM25 index, a header without the headings the text opens with (embed_text changes); a
# bare cover's two sizes of lines one title, its lines parenting no later page, a
# heading that repeats its own section not nested again.
# 18: a bold heading over a line restating its words heads the text after that line (a
# benefit booklet's sections); a kind named in prose past the opening paragraph is not
# the document's; 96-token chunks by default (the size is in the config hash too).
# 19: a text file whose bytes are UTF-8 read as UTF-8, mojibake decoded back
# (repair_mojibake, in the config hash); Markdown by its extension whatever Tika detected,
# its headings as plain words; nested tables in a cell read once; an ODT note after its
# paragraph; an e-book's navigation skipped; default sheet names no titles; what BM25 and
# the sparse vectors index counts half the header's length (scheme /3).
# 20: a table cell's line breaks and paragraphs keep its words apart ("Revenue in
# million"); a DOCX's comments are annotations in the metadata, not text (an e-book's
# "comment" or "annotation" divs stay its text: those classes are its author's).
# 21: an MkDocs admonition's or content tab's opening line is no text (its quoted title
# heads its body, unless the body's first heading says the same); nested ones read too.
# 22: a division's label on its own page is no page furniture (a filing's "Exhibit 31.1"
# over its certification); an exhibit lettered after one numbered is its; a part's heading
# over its first item's leaves the item's first section a heading; a paragraph that
# mentions a link is text under a heading; a title's note mark is left out.
# 23: PDF tables read again past a footnote under them or the next table's heads, a
# negative amount with its currency sign a value, a line set larger than the heads a
# table's title, a table beside a column of text read on its own side of the column's edge.
# 24: a currency sign Tika gave with the amount before it ("1,370 $") is the next amount's
# where the row's signs lead their amounts.
# 25: a line alone in brackets over a table's value columns ("(In millions)") under its
# heads is part of its header, not the table's end.
# 26: a run-in heading is named in heading paths by its title alone, not the opening of
# its paragraph ("Section 2.3 No Duplication.", chunk/heading_names.py).
# 27: a heading over text whose size is unknown, or over a caption read before the text
# printed above it (a web page's print), is a heading (clean/headings.py).
# 28: a line that opens with a division's keyword after a line ending in "See" goes on
# with its sentence (no heading); a run-in heading's sentence of two words in lower case
# is its paragraph's too.
# 29: a line in a font named bold is bold where the PDF gives no weight (a browser's
# print): a category heading over a risk factor's bold-italic title is a heading.
# 30: labels alone between a PDF table's heads and its first values ("Assets" /
# "Current assets:") are its first rows, and the heads its header.
# 31: a chunk that starts inside a table's section of rows carries its label with the
# header row ("Current liabilities:"), until a total closes the section.
# 32: a heading left of a two-column page's usual paragraph start (a page of bullets) is
# in the left column, not in a row with the right column's text; a title-case line the
# layout pass could not place is no heading.
# 33: in small print a size step is a share of the size: 6.9 and 7.7 pt differ.
# 34: a chart's title centred over it, far above the text, in the type of headings at
# the text's left edge, is no heading.
# 35: lines up to four above a row of cells are read for their cells too: a table's
# header of dates set no wider than its letters need ("December 31, 2022   September 30,
# 2023") is two cells, not one.
# 36: a note's mark set apart in the margin left of its note ("(1)", "(a)") opens the
# note's line again instead of standing in a block of its own after the page's text.
# 37: a run-in label set bold at a paragraph's start ("Research and Development: …")
# heads its paragraph, where a document sets a series of them (a note's policies); a
# label's colon is no part of its name in heading paths.
# 38: text files Tika read wrong or not at all: UTF-16 without a byte-order mark, a short
# note in a single-byte code page, Windows-1252 read as ISO-8859-1 ("€" was U+FFFD); a
# PDF page the page template would take whole, running text and all (a memo printed
# twice), keeps its lines; a plain text file's keyword headings ("CHAPTER XII") head its
# text.
# 39: a page scanned upside down or sideways is read upright where OSD turns it (it was
# below OCR's confidence floor, not indexed).
OUTPUT_FORMAT_VERSION = 39

DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024
DEFAULT_EXTRACT_TIMEOUT_S = 60.0
# Resident memory cap per extraction process; 0 turns the cap off.
DEFAULT_EXTRACT_MEMORY_MB = 2048
# Past this share of failed documents (among those processed in the run) the
# run exits non-zero, after writing every table. Broken files in a real corpus
# stay well below it; a run where every document fails always exceeds it.
DEFAULT_MAX_ERROR_RATE = 0.5
# Whether a run that embeds chunks (--embed-chunks, a --sink) also fills
# chunks.text_embedding when neither --text-vector nor --no-text-vector is given.
# Changing it changes the dense layer's key of such runs (``dense_fields``): the next
# incremental run embeds every chunk again, once, and a store whose collection holds
# the other layout is rebuilt beside it from the chunks table (transforms/sink/sync.py).
DEFAULT_TEXT_VECTOR = True


@dataclass(frozen=True)
class MatchOptions:
    inputs: tuple[str, ...]
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    # ragbeam's own folders, never input: the run's output and --previous (with every
    # folder a listing shows to be ragbeam's: transforms/match/patterns.py).
    own: tuple[str, ...] = ()

    @property
    def id_root(self) -> str:
        """The folder document keys are relative to (``patterns.id_root``)."""
        return id_root([expand_input(raw) for raw in self.inputs])


@dataclass(frozen=True)
class IdOptions:
    """How documents are identified (``ids.py``)."""

    namespace: str = ""
    mode: str = DOC_IDS_RELATIVE  # relative to the input root, or the absolute URI


@dataclass(frozen=True)
class ExtractOptions:
    tika_server: str | None = None  # None: embedded iscc-tika
    timeout_s: float = DEFAULT_EXTRACT_TIMEOUT_S
    max_string_chars: int = DEFAULT_MAX_STRING_CHARS
    memory_mb: int = DEFAULT_EXTRACT_MEMORY_MB
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    # OCR (embedded Tika only; a Tika server OCRs as its own configuration says).
    ocr: str = OcrSettings.mode  # auto | off | only
    ocr_languages: str = OcrSettings.languages
    ocr_page_timeout_s: int = OcrSettings.page_timeout_s
    # Wall clock for all OCR pages of one document; None: no limit but each page's.
    # OCR runs after the extraction, outside --extract-timeout (transforms/extract/ocr.py).
    ocr_timeout_s: float | None = None

    def __post_init__(self) -> None:
        _ = self.ocr_settings  # validates mode, languages, limits

    @property
    def ocr_settings(self) -> OcrSettings:
        return OcrSettings(mode=self.ocr, languages=self.ocr_languages,
                           page_timeout_s=self.ocr_page_timeout_s,
                           document_timeout_s=self.ocr_timeout_s)
    # Extraction child processes per worker process (0: decided by the runner,
    # pipeline/runner.py). Speed only: not part of the fingerprint.
    processes: int = 0

    @property
    def backend_spec(self) -> tuple[str, dict[str, Any]]:
        if self.tika_server:
            return ("server", {"url": self.tika_server, "timeout_s": self.timeout_s,
                               "retry_delays_s": server_retry_delays(self.timeout_s)})
        # Tika stops writing just past the text limit: a huge document costs no
        # more memory than that, and is still recognised as too large.
        return ("embedded", {
            "max_string_chars": min(self.max_string_chars,
                                    extractor_string_limit(self.max_text_chars)),
            "ocr": dataclasses.asdict(self.ocr_settings),
        })

    def ocr_fingerprint(self) -> dict[str, Any] | None:
        """What of OCR changes the output: its mode and languages (nothing with a Tika
        server). Not its time limits, like --extract-timeout: a document that runs out
        of time is a failure or marked incomplete (and retried), and changing a limit
        must not re-process a whole corpus."""
        if self.tika_server:
            return None
        settings = self.ocr_settings
        return ({"mode": settings.mode, "languages": settings.languages} if settings.enabled
                else {"mode": "off"})

    @property
    def memory_limit_bytes(self) -> int | None:
        return self.memory_mb * 1024 * 1024 if self.memory_mb > 0 else None

    def file_extractor(self) -> SingleFileExtractor:
        """This process's guarded single-file path with these options (one Tika child,
        started on first use, closed at exit): ``ragbeam.chunk_file``, evaluation and
        benchmarks read files one at a time through it, as ``ragbeam run`` would."""
        return shared_extractor(self.backend_spec, self.timeout_s, self.memory_limit_bytes,
                                self.max_text_chars)

    def extractor_identity(self) -> dict[str, str | None]:
        """Which Tika produces the text: the iscc-tika release, or the server's own
        version (asked once, at launch; None when it does not answer)."""
        if self.tika_server:
            return {"extractor": "tika-server", "version": tika_server_version(self.tika_server)}
        return {"extractor": "iscc-tika", "version": package_version("iscc-tika")}


def package_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


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
    # Hash every file an incremental run could carry over, even when its size and
    # modification time are those recorded: how it decides, not what it writes.
    verify_hashes: bool = False
    # How many vanished documents an incremental run may delete (--max-delete-rate,
    # --max-deletes), and whether a previous run of other inputs, namespace or id
    # mode is accepted (--accept-foreign-previous): how it decides, not what rows
    # look like.
    delete_guard: DeleteGuard = field(default_factory=DeleteGuard)
    accept_foreign_previous: bool = False
    # Semantic chunking and chunk embeddings (transforms/embed).
    semantic: SemanticOptions = field(default_factory=SemanticOptions)
    embedding: EmbeddingOptions = field(default_factory=EmbeddingOptions)
    embed_chunks: bool = False
    # Also the chunk text's own vector in chunks.text_embedding (--text-vector): two
    # vectors a chunk, scored by the closer one (max-sim) where a store can hold both.
    text_vector: bool = False
    # The user asked for it (--text-vector, ``text_vector: true``), rather than it being
    # the default of a run that embeds: only then does a store that cannot hold two
    # vectors warn (otherwise its state says so quietly). How it reports, not rows.
    text_vector_asked: bool = field(default=False, compare=False)
    # Sparse lexical vectors in chunks.sparse (transforms/embed/sparse.py).
    sparse: bool = False
    ids: IdOptions = field(default_factory=IdOptions)
    # Not fingerprinted: how a run reacts to failures, not what it writes.
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE
    # Count ``unsupported`` documents (audio, programs…) as failing for max_error_rate.
    unsupported_as_errors: bool = False
    # The validated settings this config was made from (``settings.py``), for
    # run.json's ``effective_config``.
    settings: Mapping[str, Any] = field(default_factory=dict, compare=False)
    # Vector stores kept equal to the chunks table (--sink; transforms/sink). Not
    # fingerprinted: they change no row (the chunk embeddings they need are).
    sinks: tuple[SinkSpec, ...] = ()

    def __post_init__(self) -> None:
        if self.sinks and not self.embed_chunks:
            raise ValueError("a vector-store sink needs chunk embeddings (embed_chunks)")
        if self.text_vector and not self.embed_chunks:
            raise ValueError("text_vector is a second chunk vector: it needs embed_chunks")

    def extraction_settings(self, processes: int) -> ExtractionSettings:
        """The Extract stage's settings with a pool of ``processes`` children (the
        runner decides how many: ``runner.extract_processes_for``). The stage and the
        early start both take theirs from here."""
        ex = self.extract
        return ExtractionSettings.of(ex.backend_spec, timeout_s=ex.timeout_s,
                                     processes=processes,
                                     memory_limit_bytes=ex.memory_limit_bytes,
                                     max_text_chars=ex.max_text_chars, clean=self.clean)

    def routable_strategies(self) -> set[str]:
        """Every strategy a document of this run can be chunked with."""
        if self.route.forced_strategy:
            return {self.route.forced_strategy}
        return set(self.route.table.strategy_names())

    def strategy_run_options(self) -> frozenset[str]:
        """The run's option objects (``semantic``, ``embedding``) that a strategy this
        run can route to cuts by (the registry's ``run_options``): they change chunks."""
        return frozenset().union(*(run_options(name) for name in self.routable_strategies()))

    @property
    def uses_embedding_strategies(self) -> bool:
        """Can a document be routed to a strategy that cuts by embeddings (the registry's
        ``needs_embeddings``)? Then the Chunk stage has its embedding branch."""
        return any(needs_embeddings(name) for name in self.routable_strategies())

    @property
    def uses_embeddings(self) -> bool:
        return self.embed_chunks or self.uses_embedding_strategies

    # --- What the embedding column holds ---------------------------------------------
    @property
    def embedding_model_info(self) -> EmbeddingModelInfo:
        return describe_model(self.embedding.model)

    def embedding_record(self) -> dict[str, Any] | None:
        """What made the vectors of ``chunks.embedding`` (and, with ``--text-vector``, of
        ``chunks.text_embedding``: ``text_vector``); None when the run writes none."""
        if not self.embed_chunks:
            return None
        record = self.embedding_model_info.metadata(self.embedding)
        return {**record, "text_vector": TEXT_VECTOR} if self.text_vector else record

    def sparse_record(self) -> dict[str, Any] | None:
        """How ``chunks.sparse`` was made (``--sparse``); None when the run writes none."""
        if not self.sparse:
            return None

        # The stems, word cuts and stop words come from these: an upgrade may change terms.
        versions = {dist: package_version(dist) for dist in ("pystemmer", "jieba", "bm25s")}
        return {**SPARSE_SCHEME, "versions": versions}

    def table_schemas(self) -> dict[str, pa.Schema]:
        """Every output table's schema: with chunk embeddings, ``embedding`` has the
        model's dimension; with sparse vectors, their scheme is in the metadata."""
        if not self.embed_chunks:
            return output_schemas(sparse_metadata=self.sparse_record())
        return output_schemas(self.embedding_model_info.dimension, self.embedding_record(),
                              self.sparse_record())

    # --- What each layer of the output is made from (docs/incremental.md) ---------------
    # Extraction results by (bytes, extraction and cleaning settings, versions); chunks
    # by (cleaned text, routing and chunking settings); dense vectors by (embedding text,
    # model); sparse vectors by (chunk text, tokenizer). An option change redoes the
    # layers whose key it changes, and no other: ``layer_keys`` in run.json lets the
    # next run compare layer by layer (``transforms/plan/layers.py``).
    def extraction_fields(self) -> dict[str, Any]:
        """What changes a document's cleaned text and metadata for the same bytes."""
        return {
            "format_version": OUTPUT_FORMAT_VERSION,
            "ragbeam": ragbeam.__version__,
            "max_file_bytes": self.match.max_file_bytes,
            "extractor": self._extractor_identity,
            "max_string_chars": self.extract.max_string_chars,
            "max_text_chars": self.extract.max_text_chars,
            **({"ocr": ocr} if (ocr := self.extract.ocr_fingerprint()) else {}),
            "clean": dataclasses.asdict(self.clean),
        }

    def _run_option_fields(self) -> dict[str, Any]:
        """What of each run option object a routable strategy cuts by changes its cuts."""
        fields = {"semantic": lambda: dataclasses.asdict(self.semantic),
                  "embedding": self.embedding.fingerprint}
        return {name: fields[name]() for name in sorted(self.strategy_run_options())}

    def chunk_fields(self) -> dict[str, Any]:
        """What changes chunks or document rows for the same input bytes: the
        extraction's fields, ids, routing and chunking, and the run options the
        routable strategies cut by (``strategy_run_options``: for a strategy that cuts
        by embeddings, the model that places its breakpoints). Its hash is
        ``config_hash``, the one in every row and in the chunk ids. Not the chunk
        vectors: ``--sparse`` or another embedding model keep every chunk id.

        Input patterns and the output location are not here: the same file,
        found through another pattern, gives the same chunks.
        """
        return {
            **self.extraction_fields(),
            "ids": dataclasses.asdict(self.ids),
            "chunk": dataclasses.asdict(self.chunk),
            "route": dataclasses.asdict(self.route),
            # Only when they can change the output, so other runs keep their hash.
            **self._run_option_fields(),
        }

    def dense_fields(self) -> dict[str, Any] | None:
        """What changes ``chunks.embedding`` for the same chunk rows (the embedding text
        is a chunk column): the model's identity, dimension and normalisation, precision
        and backend (``EmbeddingOptions.fingerprint``). None: the run writes none."""
        if not self.embed_chunks:
            return None
        fields = self.embedding.fingerprint()
        return {**fields, "text_vector": True} if self.text_vector else fields

    def fingerprint_fields(self) -> dict[str, Any]:
        """Every option that changes the output, layer by layer (run.json's ``config``)."""
        dense = self.dense_fields()
        return {**self.chunk_fields(),
                **({"embedding": {**dense, "embed_chunks": True}} if dense else {}),
                **({"sparse": self.sparse_record()} if self.sparse else {})}

    @functools.cached_property
    def layer_keys(self) -> dict[str, str | None]:
        """One key per layer (None: the run writes no such layer): run.json's
        ``layers``, compared with the previous run's by ``layers.layer_plan``."""
        return {"extraction": config_fingerprint(self.extraction_fields()),
                "chunks": self.config_hash,
                "dense": dense_key(self.embedding_record()),
                "sparse": sparse_key(self.sparse_record())}

    @functools.cached_property
    def previous_layer_keys(self) -> Mapping[str, str | None]:
        """The ``--previous`` run's layer keys (``layers.recorded_layer_keys``); empty
        without one, or when its run.json cannot be read (everything is redone)."""
        return recorded_layer_keys(self._previous_run_json) if self._previous_run_json else {}

    @functools.cached_property
    def _previous_run_json(self) -> Mapping[str, Any] | None:
        if not self.previous:
            return None
        try:
            return json.loads(storage.read_bytes(
                storage.join(self.previous, "run.json")).decode("utf-8"))
        except Exception:  # checked before the run (previous_run_problem): redo, to be safe
            return None

    @functools.cached_property
    def layer_plan(self) -> LayerPlan:
        """What an incremental run does with the vectors of the chunks it carries over,
        from the previous run's recorded keys (``layers.layer_plan``); a previous run
        that cannot be read has its vectors made again."""
        previous = self._previous_run_json or {}
        embedding = previous.get("embedding")
        return layer_plan(self.previous_layer_keys, self.layer_keys,
                          embedding if isinstance(embedding, Mapping) else None,
                          self.embedding_record())

    @functools.cached_property
    def extraction_reuse_key(self) -> str | None:
        """The previous run's chunk key when this run may chunk its documents again
        without extracting them: same extraction key, another chunk key
        (``reuse_extraction.reuse_key``); None otherwise."""
        return reuse_key(self.previous_layer_keys, self.layer_keys,
                         self.clean.remove_boilerplate)

    @functools.cached_property
    def _extractor_identity(self) -> dict[str, str | None]:
        return self.extract.extractor_identity()

    @functools.cached_property
    def config_hash(self) -> str:
        """The chunk layer's key (``chunk_fields``): in every row and chunk id."""
        return config_fingerprint(self.chunk_fields())

    def resolve(self) -> RunConfig:
        """Read now what building the graph needs from files or servers, so that
        ``IngestDocuments.expand`` reads nothing: the fingerprint (the extractor's
        identity, a Tika server's version; the model's files), the model's
        dimension and, in an incremental run, the previous run's layer keys
        (``layer_plan``). Once per config (cached); returns the config."""
        _ = self.config_hash
        if self.uses_embeddings:
            _ = self.embedding_model_info
        if self.previous:
            _ = self.layer_plan
            _ = self.extraction_reuse_key
        return self
