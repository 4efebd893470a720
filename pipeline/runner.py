"""Pipeline options and the local default runner.

Beam 2.77's DirectRunner first tries to download the Prism runner binary and
only falls back to its in-process FnApiRunner when that fails. Offline that
fails fast, but the download has no timeout, so a network that silently drops
packets could hang a run before it starts. When no runner is named (or the
DirectRunner is), ragbeam goes straight to the FnApiRunner: the same engine
the DirectRunner ends up using, honouring ``--direct_num_workers`` and
``--direct_running_mode``. ``--runner PrismRunner`` still selects Prism.

Cores: the local default runner runs every stage in one thread of this
process, so what spreads the work over the machine is the extraction pool
(``transforms/extract``): by default one Tika child per core, shared by the
threads of each worker process (``default_extract_processes``).
"""

from __future__ import annotations

import dataclasses

import apache_beam as beam
from apache_beam.options.pipeline_options import (
    DirectOptions,
    PipelineOptions,
    PortableOptions,
    StandardOptions,
)
from apache_beam.portability.api import beam_provision_api_pb2, beam_runner_api_pb2
from apache_beam.runners.portability.fn_api_runner import fn_runner
from apache_beam.runners.portability.portable_runner import JobServiceHandle

from ragbeam.pipeline.config import RunConfig
from ragbeam.transforms.cores import available_cores
from ragbeam.transforms.embed.model import EmbeddingOptions


def pipeline_options(beam_args: list[str]) -> PipelineOptions:
    options = PipelineOptions(beam_args)
    # Our DoFns import what they use; pickling __main__ is neither needed nor safe.
    options.view_as(beam.options.pipeline_options.SetupOptions).save_main_session = False
    return options


def runner_name(options: PipelineOptions) -> str | None:
    """The class name of the runner ``--runner`` names, resolved as Beam resolves it
    (``apache_beam.runners.runner.create_runner``): case-insensitive, the ``Runner``
    suffix optional, or the full module path of one of Beam's runners; ``direct``,
    ``Direct`` and ``DirectRunner`` are all ``DirectRunner``. Anything else is
    returned as given (someone's own runner); None when no runner is named."""
    given = options.view_as(StandardOptions).runner
    if given is None:
        return None
    known = {path.rsplit(".", 1)[-1].lower(): path.rsplit(".", 1)[-1]
             for path in StandardOptions.ALL_KNOWN_RUNNERS}
    if given in StandardOptions.ALL_KNOWN_RUNNERS:
        return given.rsplit(".", 1)[-1]
    lowered = given.lower()
    return known.get(lowered, known.get(lowered + "runner", given))


def is_local_direct(options: PipelineOptions) -> bool:
    return runner_name(options) in (None, "DirectRunner", "SwitchingDirectRunner")


def is_local(options: PipelineOptions) -> bool:
    """A runner whose workers run on this machine (the progress line can see them)."""
    if is_local_direct(options):
        return True
    portable = options.view_as(PortableOptions)
    return runner_name(options) in ("PortableRunner", "PrismRunner") and (
        portable.job_endpoint in (None, "embed")
        and (portable.environment_type or "").upper() == "LOOPBACK")


def default_extract_processes(options: PipelineOptions) -> int:
    """Extraction children per worker process when ``--extract-processes`` is not
    given, and embedding threads when ``--embedding-threads`` is not: the worker
    process's share of the cores.

    Local runs (the default runner in any running mode, a LOOPBACK portable
    job) use every core of this machine: ``multi_processing`` splits them among
    its worker processes, threads share their process's pool. Elsewhere the
    submitting machine says nothing about the workers, and Dataflow runs one
    SDK process per vCPU: one child per SDK process, so a worker machine gets
    one per core there too (set the option where a worker process owns
    several cores, e.g. Flink, or Dataflow with one SDK container per VM).
    """
    cores = available_cores()
    if is_local_direct(options):
        direct = options.view_as(DirectOptions)
        if direct.direct_running_mode == "multi_processing":
            workers = direct.direct_num_workers or cores  # 0: one per core
            return max(1, cores // workers)
        return cores
    if options.view_as(PortableOptions).environment_type == "LOOPBACK":
        return cores
    return 1


def extract_processes_for(config: RunConfig, options: PipelineOptions) -> int:
    """Extraction children per worker process: ``--extract-processes``, else this
    runner's default (``default_extract_processes``)."""
    return config.extract.processes or default_extract_processes(options)


# Memory of one worker process (docs/running-at-scale.md, "Worker sizing"), MiB.
# Measured on the local runners: the process with Python, Beam, pyarrow and the
# stages, before any model (peak of a multi_threading run over the corpus, 4 threads);
WORKER_BASE_MIB = 600
# what loading the embedding model adds (torch + all-MiniLM-L6-v2, one torch thread;
# benchmarks/workers.py measured 862 and 1162 MiB in two runs);
MODEL_MIB = 1200
# how far a child can pass its cap between two of the memory guard's 10 ms checks,
# and its own Python.
CHILD_OVERSHOOT_MIB = 128
# Documents in flight (read, queued for a child or waiting for the thread) at
# typical sizes: the budget for files of a few MB. Each may be --max-file-bytes.
DOCUMENTS_IN_FLIGHT_MIB = 100


def with_embedding_threads(embedding: EmbeddingOptions, options: PipelineOptions
                            ) -> EmbeddingOptions:
    """``embedding`` with its automatic thread count (0) resolved for this runner."""
    if embedding.torch_threads > 0:
        return embedding
    return dataclasses.replace(embedding, torch_threads=default_extract_processes(options))


def worker_memory_budget_mib(extract_processes: int, extract_memory_mb: int,
                             with_model: bool) -> int:
    """What one worker process needs: itself, the model if it embeds, its
    extraction pool at the cap, and the documents in flight."""
    return (WORKER_BASE_MIB + (MODEL_MIB if with_model else 0)
            + extract_processes * (extract_memory_mb + CHILD_OVERSHOOT_MIB)
            + DOCUMENTS_IN_FLIGHT_MIB)


def make_pipeline(options: PipelineOptions) -> beam.Pipeline:
    if not is_local_direct(options):
        return beam.Pipeline(options=options)

    # Same provisioning the DirectRunner does before it hands over to the FnApiRunner.
    encoded = JobServiceHandle.encode_pipeline_options(options.get_all_options())
    provision = fn_runner.ExtendedProvisionInfo(
        beam_provision_api_pb2.ProvisionInfo(pipeline_options=encoded)
    )
    return beam.Pipeline(runner=fn_runner.FnApiRunner(provision_info=provision),
                         options=options)


def stage_names(proto: beam_runner_api_pb2.Pipeline, depth: int = 1) -> set[str]:
    """The step names in a pipeline proto down to ``depth`` levels (1: ``Ingest
    documents``, ``Write tables``, ``Write run.json``; 2 adds ``Ingest
    documents/Match``, ``Ingest documents/Read``…).

    The proto is what a runner receives (a portable job, a Dataflow job), so these
    are the names its job graph and monitoring show. The synthetic root transform
    is excluded.
    """
    roots = set(proto.root_transform_ids)
    return {t.unique_name for tid, t in proto.components.transforms.items()
            if tid not in roots and t.unique_name.count("/") < depth}
