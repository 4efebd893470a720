"""The same pipeline on every runner we can start here, with the same output.

Real runs: the local FnApiRunner in its three ``--direct_running_mode``s, the
portable runner with an embedded job service (LOOPBACK workers), and the
portable runner against Beam's job service and worker pool started as separate
processes (EXTERNAL workers, the shape of a Flink deployment with a worker-pool
sidecar). Translation only: Dataflow (``--dry_run=True``, offline, no
credentials) and Flink (the portable proto its job server would receive). A real
Flink run is opt-in: see ``test_flink_session_cluster_run``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PortableOptions
from apache_beam.portability import common_urns
from apache_beam.portability.api import beam_runner_api_pb2

from ragbeam.pipeline.graph import build_pipeline
from ragbeam.pipeline.run import request_from_argv
from ragbeam.pipeline.runner import make_pipeline, pipeline_options, stage_names

from conftest import SAMPLES, TEST_EXTRACT_TIMEOUT, RunOutput
from helpers import read_table, run_cli

# The design's stages (README, pipeline/graph.py). Others may be added; these
# must never go missing from what a runner receives.
CORE_STAGES = {*(f"Ingest documents/{stage}" for stage in (
    "Match", "Read", "Extract and clean", "Language and refusals", "Route", "Chunk")),
    "Write tables", "Write run.json"}
VENV_BIN = pathlib.Path(sys.executable).parent


def _samples_args(out: pathlib.Path) -> list[str]:
    return ["--input", str(SAMPLES), "--exclude", "*.py", "--output", str(out),
            "--extract-timeout", TEST_EXTRACT_TIMEOUT]


def _chunks(out: pathlib.Path) -> list[tuple[str, str, str]]:
    return sorted((r["chunk_id"], r["doc_id"], r["text"])
                  for r in read_table(out, "chunks").to_pylist())


def _documents(out: pathlib.Path) -> list[tuple[str, str, str | None]]:
    return sorted((d["doc_id"], d["status"], d["content_hash"])
                  for d in read_table(out, "documents").to_pylist())


def _assert_same_output(out: pathlib.Path, baseline: RunOutput) -> None:
    assert _chunks(out) == _chunks(baseline.path)
    assert _documents(out) == _documents(baseline.path)


def _built_pipeline(ragbeam_args: list[str], beam_args: list[str]) -> beam.Pipeline:
    """The ragbeam graph on the runner ``beam_args`` name, built but not run.

    No preflight: the inputs and output may be on filesystems this machine cannot
    reach (gs://), which is the point of a translation test.
    """
    pipeline = make_pipeline(pipeline_options(beam_args))
    config = request_from_argv(ragbeam_args).config
    build_pipeline(pipeline, config)
    return pipeline


@functools.cache
def _expected_stages() -> frozenset[str]:
    """The stages build_pipeline creates today (other issues add stages)."""
    proto = _built_pipeline(["--input", "gs://ragbeam-example/in", "--output",
                             "gs://ragbeam-example/out"], []).to_runner_api()
    names = stage_names(proto, depth=2)
    assert names >= CORE_STAGES, CORE_STAGES - names
    return frozenset(names)


# --- DirectRunner (FnApiRunner) modes -----------------------------------------

def _child_command_lines() -> set[str]:
    """Command lines of this process's direct children (Linux /proc)."""
    found = set()
    for task in pathlib.Path(f"/proc/{os.getpid()}/task").iterdir():
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                with contextlib.suppress(OSError):
                    found.add(pathlib.Path(f"/proc/{child}/cmdline").read_bytes()
                              .replace(b"\0", b" ").decode(errors="replace"))
    return found


@contextlib.contextmanager
def _watch_children() -> Iterator[set[str]]:
    seen: set[str] = set()
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            seen.update(_child_command_lines())
            time.sleep(0.05)

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join()


@pytest.mark.slow  # a whole run on another runner or running mode
@pytest.mark.parametrize("mode", ["in_memory", "multi_threading", "multi_processing"])
def test_direct_running_modes_give_the_same_output(mode, samples_run, tmp_path):
    out = tmp_path / mode
    with _watch_children() as children:
        summary = run_cli([*_samples_args(out), "--runner", "DirectRunner",
                           "--direct_running_mode", mode, "--direct_num_workers", "2"])
    assert summary["config_hash"] == samples_run.summary["config_hash"]
    _assert_same_output(out, samples_run)
    # The mode reached the runner: only multi_processing starts SDK worker processes
    # (through a shell, whose command line names the worker module).
    sdk_workers = {c for c in children if "sdk_worker_main" in c}
    assert bool(sdk_workers) == (mode == "multi_processing"), sdk_workers


# --- Portable runner, embedded job service, LOOPBACK workers -------------------

@pytest.mark.slow  # a whole run on another runner or running mode
def test_portable_runner_loopback_equals_direct_runner(samples_run, tmp_path):
    out = tmp_path / "portable"
    run_cli([*_samples_args(out), "--runner", "PortableRunner", "--job_endpoint=embed",
             "--environment_type=LOOPBACK"])
    _assert_same_output(out, samples_run)


# --- Portable runner, job service and worker pool as separate processes -------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen) -> None:
    """Until the helper listens (however long its start takes on a loaded machine); it
    exiting first fails, one that never listens is ended by the test's time limit."""
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args} exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("localhost", port), 1):
            return
        time.sleep(0.2)


def _stop(proc: subprocess.Popen) -> None:
    """Stop a helper and everything it spawned (its own process group)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            proc.wait(timeout=10)


def _beam_service(args: list[str], log: pathlib.Path) -> subprocess.Popen:
    # The venv first on PATH: the worker pool starts SDK workers as plain `python`.
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "HF_HUB_OFFLINE": "1"}
    with open(log, "wb") as f:
        return subprocess.Popen([sys.executable, "-m", *args], stdout=f,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)


@pytest.fixture
def external_services(tmp_path) -> Iterator[tuple[str, str]]:
    """Beam's job service and worker pool, each its own process; killed afterwards."""
    job_port, pool_port = _free_port(), _free_port()
    procs = []
    try:
        procs.append(_beam_service(
            ["apache_beam.runners.portability.local_job_service_main",
             "--port", str(job_port), "--staging_dir", str(tmp_path / "staging")],
            tmp_path / "job_service.log"))
        procs.append(_beam_service(
            ["apache_beam.runners.worker.worker_pool_main", "--service_port", str(pool_port)],
            tmp_path / "worker_pool.log"))
        _wait_for_port(job_port, procs[0])
        _wait_for_port(pool_port, procs[1])
        yield f"localhost:{job_port}", f"localhost:{pool_port}"
    finally:
        for proc in procs:
            _stop(proc)


@pytest.mark.slow  # a whole run on another runner or running mode
def test_portable_runner_with_external_worker_pool_equals_direct_runner(
        external_services, samples_run, tmp_path):
    job_endpoint, worker_pool = external_services
    out = tmp_path / "external"
    # --environment_config, not --environment_options=external_service_address=…:
    # Beam 2.77 crashes on the latter when building the environment.
    run_cli([*_samples_args(out), "--runner", "PortableRunner",
             f"--job_endpoint={job_endpoint}", "--environment_type=EXTERNAL",
             f"--environment_config={worker_pool}"])
    _assert_same_output(out, samples_run)
    # The work ran in SDK workers the pool started, not in this process.
    assert "Starting worker with command" in (tmp_path / "worker_pool.log").read_text()


# --- Dataflow: the job description, offline ------------------------------------

DATAFLOW_ARGS = ["--runner", "DataflowRunner", "--project", "ragbeam-example",
                 "--region", "europe-west1", "--temp_location", "gs://ragbeam-example/tmp",
                 "--sdk_container_image", "europe-docker.pkg.dev/ragbeam-example/ragbeam/"
                 "worker:0.1.0", "--sdk_location", "container", "--dry_run=True"]


@pytest.mark.slow  # a whole run on another runner or running mode
@pytest.mark.timeout(600)  # a credentials lookup that retries for ever: fail instead
def test_dataflow_dry_run_translates_every_stage_offline():
    pytest.importorskip("google.cloud.dataflow", reason="needs apache-beam[gcp] (ragbeam[gcp])")
    expected = _expected_stages()
    started = time.perf_counter()
    pipeline = _built_pipeline(["--input", "gs://ragbeam-example/in", "--output",
                                "gs://ragbeam-example/out", "--chunk-size", "800"],
                               DATAFLOW_ARGS)
    built = time.perf_counter() - started
    started = time.perf_counter()
    result = pipeline.run()
    elapsed = time.perf_counter() - started
    # Offline, the translation takes a few seconds, of the order of building the graph
    # (both scale alike with the machine's load); a GCP credentials lookup retries for
    # minutes (the test's own limit ends that).
    assert elapsed < max(90.0, 30 * built), (
        f"dry run took {elapsed:.1f} s (building {built:.1f} s): did it try to reach GCP?")
    job = result.job  # the Dataflow job description, not submitted
    # run.json comes from the pipeline's last step, as the Flex Template needs it.
    assert stage_names(job.proto_pipeline, depth=2) >= expected
    images = {beam_runner_api_pb2.DockerPayload.FromString(env.payload).container_image
              for env in job.proto_pipeline.components.environments.values()
              if env.urn == common_urns.environments.DOCKER.urn}
    assert images == {DATAFLOW_ARGS[DATAFLOW_ARGS.index("--sdk_container_image") + 1]}
    assert job.proto.type.name == "JOB_TYPE_BATCH"


# --- Flink: what its job server would receive -----------------------------------

def _flink_pipeline(environment: list[str]) -> beam.Pipeline:
    return _built_pipeline(["--input", "/data/in", "--output", "/data/out"],
                           ["--runner", "FlinkRunner", "--flink_master", "flink-jobmanager:8081",
                            "--flink_version", "1.19", "--parallelism", "4", *environment])


@pytest.mark.parametrize("environment, urn", [
    (["--environment_type=EXTERNAL", "--environment_config=localhost:50000"],
     common_urns.environments.EXTERNAL.urn),
    (["--environment_type=DOCKER", "--environment_config=ragbeam-worker:0.1.0"],
     common_urns.environments.DOCKER.urn),
])
def test_flink_options_translate_to_a_portable_pipeline(environment, urn):
    from apache_beam.options.pipeline_options import FlinkRunnerOptions
    from apache_beam.runners.portability.flink_runner import FlinkRunner

    pipeline = _flink_pipeline(environment)
    options = pipeline.options
    assert options.view_as(FlinkRunnerOptions).flink_version == "1.19"
    assert options.view_as(FlinkRunnerOptions).flink_master == "flink-jobmanager:8081"
    runner = FlinkRunner()
    environment_proto = runner.default_environment(options)
    proto = pipeline.to_runner_api(default_environment=environment_proto)
    assert stage_names(proto, depth=2) >= _expected_stages()
    used = {t.environment_id for t in proto.components.transforms.values() if t.environment_id}
    assert {proto.components.environments[e].urn for e in used} == {urn}
    config = options.view_as(PortableOptions).environment_config
    payload = proto.components.environments[next(iter(used))].payload
    assert config.encode() in payload
    # Round trip: the proto is self-contained (what the job server deserialises).
    assert beam_runner_api_pb2.Pipeline.FromString(proto.SerializeToString()) == proto


def test_flink_versions_beyond_beam_support_are_rejected():
    from apache_beam.options.pipeline_options import FlinkRunnerOptions

    options = pipeline_options(["--runner", "FlinkRunner", "--flink_version", "1.18"])
    with pytest.raises(SystemExit):
        options.view_as(FlinkRunnerOptions)  # Beam parses its options lazily, per view


def _flink_opt_in() -> tuple[pathlib.Path, pathlib.Path]:
    home, jar = os.environ.get("FLINK_HOME"), os.environ.get("RAGBEAM_FLINK_JOB_SERVER_JAR")
    if not (home and jar):
        pytest.skip("opt-in: set FLINK_HOME and RAGBEAM_FLINK_JOB_SERVER_JAR "
                    "(beam-runners-flink-<flink>-job-server-2.77.0.jar) to run on Flink")
    if not shutil.which("java"):
        pytest.skip("opt-in Flink test needs java on PATH")
    return pathlib.Path(home), pathlib.Path(jar)


@pytest.mark.slow  # a whole run on another runner or running mode
@pytest.mark.timeout(900)
def test_flink_session_cluster_run(samples_run, tmp_path):
    """A real Flink session cluster (``$FLINK_HOME/bin/start-cluster.sh``) fed by
    the Beam Flink job server jar, LOOPBACK workers; output equal to the DirectRunner's."""
    flink_home, jar = _flink_opt_in()
    subprocess.run([flink_home / "bin" / "start-cluster.sh"], check=True, timeout=120)
    try:
        version = os.environ.get("RAGBEAM_FLINK_VERSION", "1.19")
        out = tmp_path / "flink"
        run_cli([*_samples_args(out), "--runner", "FlinkRunner",
                 "--flink_master", os.environ.get("RAGBEAM_FLINK_MASTER", "localhost:8081"),
                 "--flink_version", version, "--flink_job_server_jar", str(jar),
                 "--environment_type=LOOPBACK"])
        _assert_same_output(out, samples_run)
    finally:
        subprocess.run([flink_home / "bin" / "stop-cluster.sh"], check=False, timeout=120)
