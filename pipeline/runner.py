"""Pipeline options and the local default runner.

Beam 2.77's DirectRunner first tries to download the Prism runner binary and
only falls back to its in-process FnApiRunner when that fails. Offline that
fails fast, but the download has no timeout, so a network that silently drops
packets could hang a run before it starts. When no runner is named (or the
DirectRunner is), ragbeam goes straight to the FnApiRunner: the same engine
the DirectRunner ends up using, honouring ``--direct_num_workers`` and
``--direct_running_mode``. ``--runner PrismRunner`` still selects Prism.
"""

from __future__ import annotations

from typing import Any

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions
from apache_beam.portability.api import beam_runner_api_pb2


def pipeline_options(beam_args: list[str]) -> PipelineOptions:
    options = PipelineOptions(beam_args)
    # Our DoFns import what they use; pickling __main__ is neither needed nor safe.
    options.view_as(beam.options.pipeline_options.SetupOptions).save_main_session = False
    return options


def is_local_direct(options: PipelineOptions) -> bool:
    runner = options.view_as(StandardOptions).runner
    return runner in (None, "DirectRunner", "direct", "SwitchingDirectRunner")


def is_local(options: PipelineOptions) -> bool:
    """A runner whose workers run on this machine (the progress line can see them)."""
    from apache_beam.options.pipeline_options import PortableOptions

    if is_local_direct(options):
        return True
    runner = options.view_as(StandardOptions).runner or ""
    portable = options.view_as(PortableOptions)
    return runner in ("PortableRunner", "PrismRunner") and (
        portable.job_endpoint in (None, "embed")
        and (portable.environment_type or "").upper() == "LOOPBACK")


def make_pipeline(options: PipelineOptions) -> beam.Pipeline:
    if not is_local_direct(options):
        return beam.Pipeline(options=options)
    from apache_beam.portability.api import beam_provision_api_pb2
    from apache_beam.runners.portability.fn_api_runner import fn_runner
    from apache_beam.runners.portability.portable_runner import JobServiceHandle

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


def metrics_summary(result: Any) -> dict[str, Any]:
    """What only the runner's metrics know, for run.json (empty on a runner without
    metrics): extraction counters, chunk-embedding counters and bytes read."""
    from apache_beam.metrics.metric import MetricsFilter

    from ragbeam.pipeline.summary import coverage_summary
    from ragbeam.transforms.extract.dofn import extraction_summary

    summary: dict[str, Any] = {"extraction": extraction_summary(result),
                               "extraction_coverage": coverage_summary(result)}
    try:
        counters = result.metrics().query(MetricsFilter())["counters"]
    except Exception:  # a runner without metrics support
        return summary
    # run.json section → {(counter namespace, name): key in that section}
    wanted = {
        "embeddings": {("ragbeam.incremental", "embeddings_reused"): "reused",
                       ("ragbeam.embed", "chunks_retried"): "retried",
                       ("ragbeam.embed", "chunks_failed"): "failed"},
        # What the run read: input bytes (Read) and, in an incremental run, what it
        # hashed to find out what changed and how many files the listing settled.
        "reads": {("ragbeam", "bytes_read"): "bytes_read",
                  ("ragbeam.incremental", "bytes_hashed"): "bytes_hashed",
                  ("ragbeam.incremental", "files_hashed"): "files_hashed",
                  ("ragbeam.incremental", "files_unchanged_by_listing"):
                      "files_unchanged_by_listing"},
    }
    for section, names in wanted.items():
        summary[section] = dict.fromkeys(names.values(), 0)
    for counter in counters:
        key = (counter.key.metric.namespace, counter.key.metric.name)
        for section, names in wanted.items():
            if key in names:
                value = counter.committed if counter.committed is not None \
                    else counter.attempted
                summary[section][names[key]] += int(value or 0)
    return summary
