"""The driver's part of a sync: before the pipeline, decide full or incremental and
mark the store as being written; after it, check and mark it synced.

The store equals the ``chunks`` table after every successful run. To know when
applying a run's ``changes`` is enough, the store carries a marker in its
collection metadata (``MARKER_KEY``), and the run's output a state file per sink
(``OUTPUT/sinks/KEY.json``):

1. **prepare** (before Beam starts; exit 2 if the store cannot be reached): create
   the collection if missing, read the marker, and choose the mode: incremental
   only if ``--previous`` synced this store (its state file says ``synced``) and
   the marker still names that run; else full. Then set the marker to
   ``writing:TOKEN``, so a run that dies while writing leaves a store no later
   run trusts.
2. **write** (in the pipeline, after every table is committed: ``transforms.py``).
3. **finish** (after the pipeline): the marker must still be ``writing:TOKEN``
   and the store must hold as many chunks as the table; then the marker becomes
   ``TOKEN`` and the state file says ``synced``.

**Collections follow the vector layers.** A store with aliases (Qdrant, Milvus)
keeps the run's vectors in a physical collection named for them,
``NAME__KEY`` (``physical_collection``: the dense layer's key, and the sparse
layer's where the store keeps sparse vectors), and ``NAME`` is an alias of it. A
run whose vectors are another key's (``--sparse`` on or off, another model) builds
``NAME__KEY`` beside the old one, fills it in full from its chunks table (the
vectors are the table's: nothing is embedded again), and ``finish`` switches the
alias once it holds every chunk, then drops the old collection: clients reading
``NAME`` see the old vectors until the switch and the new ones after it, never a
half-built collection. A ``NAME`` that is a collection of its own (made before
ragbeam made aliases) is written in place while it takes the run's vectors; when it
cannot, it is replaced the same way, except that it must be dropped before an alias
can take its name: clients then find no ``NAME`` for that moment (``window_s``
in the state). LanceDB has no aliases but fills ``NAME__KEY`` beside its table the
same way and, once complete, renames it into ``NAME``'s place (``lancedb.py``): a
table made by an older run with one vector a chunk takes ``--text-vector``'s two
so. Chroma refuses such a run (exit 2); it keeps one vector a chunk whatever
``--text-vector`` says, so only another dimension is such a run there.

Any failure leaves the state ``failed`` (or absent) and the marker unequal to the
token, so the next run, from this output or any other, does a full sync: listing
the store's ids, deleting those without a row, upserting every row. A re-run
converges whatever failed and wherever it stopped.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ragbeam.transforms import storage
from ragbeam.transforms.endpoints import unreachable
from ragbeam.transforms.ids import config_fingerprint
from ragbeam.transforms.sink.base import (
    SinkError,
    SinkMismatch,
    VectorStore,
    check_compatible,
    retrying,
)
from ragbeam.transforms.sink.spec import SinkSpec, redact_text
from ragbeam.transforms.sink.stores import open_store, store_type

T = TypeVar("T")
R = TypeVar("R")
SINK_STATE_DIR = "sinks"
WRITING = "writing:"
SYNCED = "synced"
FAILED = "failed"
# The delete guard held the run (exit 4): nothing written to the store.
HELD = "held"
_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class SyncPlan:
    """What one sink does in this run (decided by ``prepare_sync``)."""

    spec: SinkSpec
    dimension: int
    run_token: str
    full: bool
    reason: str
    sparse: bool = False  # the store keeps the chunks' sparse vectors (--sparse)
    # The store keeps both vectors of --text-vector as one max-sim multivector.
    multivector: bool = False
    # What of the run's vectors the store cannot keep (said once, and in the state).
    warnings: tuple[str, ...] = ()
    # The same, for a run that did not ask for what the store cannot keep (the
    # default --text-vector into Milvus or Chroma): in the state, not warned.
    notes: tuple[str, ...] = ()
    # A cutover: the physical collection this run fills (beside ``replaces``, the one
    # ``spec.collection`` names now), switched to by ``finish_sync``. None: the run
    # writes ``spec.collection`` itself (through its alias, if it is one).
    target: str | None = None
    replaces: str | None = None

    @property
    def mode(self) -> str:
        return "full" if self.full else "incremental"

    @property
    def write_spec(self) -> SinkSpec:
        """The sink as the pipeline writes it: the new physical collection in a cutover."""
        return dataclasses.replace(self.spec, collection=self.target) if self.target else self.spec


def new_run_token() -> str:
    return uuid.uuid4().hex


def state_path(output: str, spec: SinkSpec) -> str:
    return storage.join(output, SINK_STATE_DIR, f"{spec.key}.json")


def read_sink_state(output: str, spec: SinkSpec) -> dict[str, Any] | None:
    path = state_path(output, spec)
    try:
        if not storage.exists(path):
            return None
        return json.loads(storage.read_bytes(path).decode("utf-8"))
    except Exception:  # unreadable: as if absent, so the next sync is a full one
        return None


def write_sink_state(output: str, state: Mapping[str, Any], spec: SinkSpec) -> None:
    storage.mkdirs(storage.join(output, SINK_STATE_DIR))
    storage.write_bytes(state_path(output, spec),
                        json.dumps(dict(state), indent=2, sort_keys=True).encode("utf-8"))


def choose_mode(has_previous: bool, previous_state: Mapping[str, Any] | None,
                marker: str | None, created: bool) -> tuple[bool, str]:
    """(full?, why) for one sink (pure)."""
    if created:
        return True, "collection created by this run"
    if not has_previous:
        return True, "no --previous run: full sync"
    if previous_state is None:
        return True, "the --previous run did not sync this store"
    if previous_state.get("status") != SYNCED:
        return True, "the --previous run's sync of this store did not complete"
    if marker != previous_state.get("run_token"):
        return True, "the store no longer holds the --previous run's chunks"
    return False, "the store holds the --previous run's chunks: applying changes"


def physical_collection(collection: str, dimension: int, sparse: bool,
                        layers: Mapping[str, str | None] | None = None,
                        multivector: bool = False) -> str:
    """The physical collection holding these vectors (pure): ``NAME__KEY``, KEY from
    the dense layer's key (or the dimension, when no layer keys are given), the
    sparse layer's where ``sparse``, and ``multivector`` where the store keeps both
    of ``--text-vector``'s vectors. Letters, digits and ``_``: a valid name in
    Milvus and Qdrant."""
    layers = layers or {}
    key = config_fingerprint({"dense": layers.get("dense") or dimension,
                              "sparse": (layers.get("sparse") or True) if sparse else None,
                              **({"multivector": True} if multivector else {})})
    return f"{collection}__{key[:12]}"


def _prepare_aliased(store: VectorStore, dimension: int, sparse: bool, physical: str,
                     multivector: bool = False) -> tuple[VectorStore, bool, str | None]:
    """Make sure ``physical`` exists beside (or behind) the store's collection name:
    (the store the run writes, created?, the collection it replaces when it is a
    cutover). A new name becomes an alias of ``physical`` at once."""
    current, shape = store.aliased(), store.describe()
    if shape is None:  # nothing of that name: a new alias over a new collection
        target = store.on(physical)
        target.ensure_collection(dimension, sparse, multivector)
        store.switch_alias(physical, None)
        return store, True, None
    if current == physical or (current is None and _takes(store, shape, dimension, sparse,
                                                          multivector)):
        check_compatible(store.spec, shape, dimension, sparse, multivector=multivector)
        return store, False, None
    if not shape.made_by_ragbeam:  # refused: not ragbeam's
        check_compatible(store.spec, shape, dimension, sparse, multivector=multivector)
    target = store.on(physical)
    target.ensure_collection(dimension, sparse, multivector)  # or left by a failed cutover
    return target, True, current or store.spec.collection


def _prepare_unaliased(store: VectorStore, dimension: int, sparse: bool, physical: str,
                       multivector: bool = False) -> tuple[VectorStore, bool, str | None]:
    """The same for a store without aliases: its collection, created if missing; or,
    where the store ``replaces_tables`` and ragbeam's collection cannot take these
    vectors, ``physical`` beside it (a cutover: ``finish_sync`` renames it into the
    collection's place)."""
    shape = store.describe()
    if (shape is None or not store.replaces_tables or not shape.made_by_ragbeam
            or _takes(store, shape, dimension, sparse, multivector)):
        return store, store.ensure_collection(dimension, sparse, multivector), None
    target = store.on(physical)
    target.ensure_collection(dimension, sparse, multivector)  # or left by a failed rebuild
    return target, True, store.spec.collection


def _takes(store: VectorStore, shape: Any, dimension: int, sparse: bool,
           multivector: bool = False) -> bool:
    try:
        check_compatible(store.spec, shape, dimension, sparse, multivector=multivector)
    except SinkMismatch:
        return False
    return True


def prepare_sync(spec: SinkSpec, dimension: int, previous: str | None,
                 run_token: str, sparse: bool = False,
                 layers: Mapping[str, str | None] | None = None,
                 text_vector: bool = False, text_vector_asked: bool = True) -> SyncPlan:
    """``layers``: the run's layer keys (``RunConfig.layer_keys``), which name the
    physical collection of a store with aliases (``physical_collection``).
    ``text_vector``: the chunks have two vectors (``--text-vector``); a store that
    keeps multivectors holds both, another ``embedding`` only: said once as a warning
    when ``text_vector_asked``, else only in the state's ``notes`` (the default)."""
    store = store_type(spec.kind)
    address = store.server_address(spec)
    if address and (problem := unreachable(*address, urlsplit(spec.target).scheme)):
        raise SinkError(f"sink {spec.display}: {problem}")  # in seconds, not retried
    if sparse and not store.keeps_sparse:
        _LOG.warning("sink %s: %s keeps no sparse vectors: it gets the dense ones only "
                     "(--sparse still fills chunks.sparse)", spec.display, store.title)
        sparse = False
    multivector = text_vector and store.keeps_multivector
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    if text_vector and not multivector and text_vector_asked:
        warnings = (f"{store.title} cannot hold two vectors a chunk: it keeps chunks.embedding "
                    "only, scored alone (--text-vector still fills chunks.text_embedding; "
                    "Qdrant and LanceDB keep both and score the closer one)",)
        _LOG.warning("sink %s: %s", spec.display, warnings[0])
    elif text_vector and not multivector:
        notes = (f"{store.title} keeps one vector a chunk: chunks.embedding (label > "
                 "heading + text), not chunks.text_embedding",)
        _LOG.info("sink %s: %s", spec.display, notes[0])
    previous_state = read_sink_state(previous, spec) if previous else None
    physical = physical_collection(spec.collection, dimension, sparse, layers, multivector)

    def prepare() -> SyncPlan:
        with open_store(spec) as store:
            if not store.keeps_aliases:
                written, created, replaces = _prepare_unaliased(store, dimension, sparse,
                                                                physical, multivector)
            else:
                written, created, replaces = _prepare_aliased(store, dimension, sparse, physical,
                                                              multivector)
            if replaces is not None:
                full, reason = True, (f"vectors of another layer key: filling {physical} "
                                      f"beside {replaces}, then switching {spec.collection!r}")
            else:
                full, reason = choose_mode(previous is not None, previous_state,
                                           written.read_marker(), created)
            written.write_marker(WRITING + run_token)
        return SyncPlan(spec, dimension, run_token, full, reason, sparse,
                        multivector=multivector, warnings=warnings, notes=notes,
                        target=physical if replaces is not None else None, replaces=replaces)

    return retrying(spec, "prepare", prepare)


def each_store(step: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """``step`` of every store at once, one thread each, results in order (the first
    failure, in order, is raised). A store's first use imports its client library
    and starts or opens its engine (Milvus Lite's server process, Qdrant's and
    LanceDB's files), and its last step counts its rows and may switch an alias:
    one after another, four stores' waits added up."""
    if len(items) <= 1:
        return [step(item) for item in items]
    with ThreadPoolExecutor(len(items), thread_name_prefix="ragbeam-store") as pool:
        futures = [pool.submit(step, item) for item in items]
        return [future.result() for future in futures]


def prepare_sinks(specs: Sequence[SinkSpec], dimension: int, previous: str | None,
                  run_token: str, sparse: bool = False,
                  layers: Mapping[str, str | None] | None = None,
                  text_vector: bool = False, text_vector_asked: bool = True
                  ) -> list[SyncPlan]:
    return each_store(lambda spec: prepare_sync(spec, dimension, previous, run_token, sparse,
                                                layers, text_vector, text_vector_asked),
                      list(specs))


def _state(plan: SyncPlan, status: str, **fields: Any) -> dict[str, Any]:
    spec = plan.spec
    cutover = ({"cutover": {"from": plan.replaces, "to": plan.target}}
               if plan.target else {})
    return {"sink": spec.display, "kind": spec.kind, "collection": spec.collection,
            "key": spec.key, "status": status, "mode": plan.mode, "reason": plan.reason,
            "run_token": plan.run_token, "sparse": plan.sparse,
            **({"multivector": True} if plan.multivector else {}),
            **({"warnings": list(plan.warnings)} if plan.warnings else {}),
            **({"notes": list(plan.notes)} if plan.notes else {}),
            **cutover, **fields}


def finish_sync(plan: SyncPlan, output: str, chunk_rows: int,
                counters: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Check the store against the chunks table and mark it synced; the state is
    written to ``OUTPUT/sinks/`` and returned (``status`` synced or failed)."""
    spec = plan.spec
    switched: dict[str, Any] = {}

    def finish() -> int:
        with open_store(spec) as store:
            written = store.on(plan.target) if plan.target else store
            name = written.spec.collection
            marker = written.read_marker()
            if marker != WRITING + plan.run_token:
                raise SinkMismatch(f"sink {spec.display}: another run wrote to collection "
                                   f"{name!r} meanwhile (its marker is {marker!r})")
            stored = written.count()
            if stored != chunk_rows:
                raise SinkMismatch(f"sink {spec.display}: collection {name!r} holds "
                                   f"{stored} chunks, the chunks table {chunk_rows}")
            if plan.target:  # complete and checked: clients may see it now
                window = store.switch_alias(plan.target, plan.replaces)
                switched["cutover"] = {"from": plan.replaces, "to": plan.target,
                                       "window_s": round(window, 4)}
                _LOG.info("sink %s: %r now names %s (was %s, dropped)", spec.display,
                          spec.collection, plan.target, plan.replaces)
                if not store.keeps_aliases:  # renamed into the name's place (LanceDB)
                    switched["cutover"]["renamed"] = True
                    written = store
            written.write_marker(plan.run_token)
        return stored

    try:
        state = _state(plan, SYNCED, points=retrying(spec, "finish", finish), error=None,
                       **(counters or {}), **switched)
    except SinkError as exc:
        state = _state(plan, FAILED, error=str(exc), **(counters or {}))
    write_sink_state(output, state, spec)
    return state


def hold_sync(plan: SyncPlan, output: str, previous: str | None) -> dict[str, Any]:
    """The delete guard held this run: its pipeline wrote nothing to the store. An
    incremental plan's store still holds the ``--previous`` run's chunks, so its marker
    goes back to that run's token and the next run, built on that run again, syncs
    incrementally (a full plan's store matched no run before: it stays untrusted)."""
    spec = plan.spec
    token = (read_sink_state(previous, spec) or {}).get("run_token") if previous else None

    def restore() -> bool:
        with open_store(spec) as store:
            if store.read_marker() != WRITING + plan.run_token:
                return False  # another run wrote meanwhile: leave it untrusted
            store.write_marker(token)
        return True

    restored = False
    if not plan.full and token:
        try:
            restored = retrying(spec, "restore marker", restore)
        except SinkError:
            restored = False
    state = _state(plan, HELD, error=None, upserts=0, deletes=0, marker_restored=restored,
                   reason="the delete guard held this run: nothing written to the store"
                   + (f"; it still holds {previous}'s chunks" if restored else ""))
    write_sink_state(output, state, spec)
    return state


def record_failure(plan: SyncPlan, output: str, error: BaseException | str,
                   counters: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The state of a sink whose writes failed in the pipeline (message redacted)."""
    message = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    first_line = redact_text(message, plan.spec.secrets()).strip().splitlines()
    state = _state(plan, FAILED, error=f"sink {plan.spec.display}: "
                   + (first_line[-1] if first_line else "failed"), **(counters or {}))
    write_sink_state(output, state, plan.spec)
    return state


def failed_sinks(states: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [s for s in states if s.get("status") not in (SYNCED, HELD)]
