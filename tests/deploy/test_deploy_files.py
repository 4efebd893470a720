"""The deployment files are consistent with the code they deploy.

Nothing here needs Docker, Flink, GCP or Airflow: the files are parsed and
checked against pyproject.toml, the CLI and reindex.py. Airflow itself is an
opt-in check (``test_airflow_imports_the_dag``).
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tomllib

import pytest
import yaml

from conftest import REPO

DEPLOY = REPO / "deploy"
DOCKERFILE = DEPLOY / "image" / "Dockerfile"
REINDEX = DEPLOY / "schedule" / "reindex.py"


def _pinned_beam_version() -> str:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    pin = next(d for d in deps if re.match(r"apache-beam(\[.*\])?==", d))
    return pin.split("==")[1]


def _dockerfile_instructions(path: pathlib.Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    logical, current = [], ""
    for line in path.read_text().splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            logical.append(current.strip())
            current = ""
    assert not current, "Dockerfile ends inside a continued line"
    return [(ln.split(None, 1)[0].upper(), ln.split(None, 1)[1]) for ln in logical]


# --- the worker image ---------------------------------------------------------

def test_worker_image_is_built_on_the_pinned_beam_sdk_for_our_python():
    froms = [args.split()[0] for ins, args in _dockerfile_instructions(DOCKERFILE)
             if ins == "FROM"]
    final = froms[-1]  # the image that is shipped
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert final == f"apache/beam_python{python}_sdk:{_pinned_beam_version()}"
    # The Flex Template launcher stage must match the same Python minor version.
    assert froms[0].startswith(f"gcr.io/dataflow-templates-base/python{python.replace('.', '')}-")


def test_worker_image_installs_cpu_torch_before_ragbeam_and_works_offline():
    instructions = _dockerfile_instructions(DOCKERFILE)
    runs = [args for ins, args in instructions if ins == "RUN"]
    torch_at = next(i for i, r in enumerate(runs) if "torch==2.13.0" in r)
    assert "download.pytorch.org/whl/cpu" in runs[torch_at]
    ragbeam_at = next(i for i, r in enumerate(runs) if re.search(r"pip install .*'\.\[gcp\]'", r))
    assert torch_at < ragbeam_at
    env = " ".join(args for ins, args in instructions if ins == "ENV")
    assert "HF_HUB_OFFLINE=1" in env
    assert "FLEX_TEMPLATE_PYTHON_PY_FILE=/opt/ragbeam/flex_main.py" in env
    # The build-time smoke test runs the real pipeline and loads the model.
    assert any("ragbeam run" in r and "SentenceTransformer" in r for r in runs)
    assert ("ENTRYPOINT", '["/opt/apache/beam/boot"]') in instructions
    # Files the image copies into /opt/ragbeam exist in the repository.
    copied = next(r for r in runs if "/opt/ragbeam/" in r and r.startswith("cp "))
    for source in shlex.split(copied)[1:-1]:
        assert (REPO / source).is_file(), source


def test_worker_image_installs_the_ocr_packages_of_the_makefile():
    makefile = (REPO / "Makefile").read_text()
    packages = re.search(r"^OCR_PACKAGES\s*:=\s*(.+)$", makefile, re.M).group(1).split()
    assert "tesseract-ocr" in packages and "tesseract-ocr-chi-sim" in packages
    assert "tesseract-ocr-osd" in packages  # --ocr-languages auto names the script with it
    runs = [args for ins, args in _dockerfile_instructions(DOCKERFILE) if ins == "RUN"]
    apt = next(r for r in runs if "apt-get install" in r)
    assert set(packages) <= set(apt.split())
    assert any("ocr_unavailable" in r for r in runs)  # the build checks Tesseract works


def test_dockerignore_keeps_what_the_image_build_needs():
    ignored = {line.strip() for line in (DEPLOY / "image" / "Dockerfile.dockerignore")
               .read_text().splitlines() if line.strip() and not line.startswith("#")}
    layers = {p.split(".")[1] for p in tomllib.loads((REPO / "pyproject.toml").read_text())
              ["tool"]["setuptools"]["packages"] if "." in p}
    needed = {"pyproject.toml", "README.md", "__init__.py", "samples", "deploy", *layers}
    assert not needed & ignored
    assert {".venv", ".git"} <= ignored


# --- Dataflow Flex Template --------------------------------------------------------

def _reindex_own_options() -> set[str]:
    return {"output_root", "run_date", "submit_only"}


def test_flex_template_parameters_are_options_the_entry_point_accepts():
    sys.path.insert(0, str(REINDEX.parent))
    try:
        import reindex
    finally:
        sys.path.remove(str(REINDEX.parent))
    known = reindex.ragbeam_option_names()
    params = json.loads((DEPLOY / "dataflow" / "metadata.json").read_text())["parameters"]
    names = [p["name"] for p in params]
    assert len(names) == len(set(names))
    for p in params:
        name = p["name"]
        assert re.fullmatch(r"[a-z][a-z0-9_]*", name), name
        if name in _reindex_own_options() or name == "sdk_container_image":
            continue
        assert "--" + name.replace("_", "-") in known, f"{name} is not a ragbeam run option"
    required = {p["name"] for p in params if not p.get("isOptional")}
    assert required == {"input", "output_root"}
    # Dataflow validates launch parameters with these: they must compile.
    for p in params:
        for rx in p.get("regexes", []):
            re.compile(rx)


def test_flex_entry_point_runs_reindex_in_submit_only_mode():
    tree = ast.parse((DEPLOY / "dataflow" / "flex_main.py").read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and getattr(n.func, "id", None) == "main"]
    assert calls and "--submit-only" in ast.unparse(calls[0])


def test_cloud_scheduler_body_launches_the_template_with_declared_parameters():
    body = json.loads((DEPLOY / "schedule" / "cloud_scheduler_body.json").read_text())
    launch = body["launchParameter"]
    declared = {p["name"] for p in json.loads(
        (DEPLOY / "dataflow" / "metadata.json").read_text())["parameters"]}
    assert set(launch["parameters"]) <= declared
    assert {"input", "output_root"} <= set(launch["parameters"])
    # The same template path the build script registers.
    build = (DEPLOY / "dataflow" / "build_and_run.sh").read_text()
    assert "ragbeam/templates/ragbeam-${TAG}.json" in build
    assert launch["containerSpecGcsPath"].endswith("ragbeam/templates/ragbeam-${TAG}.json")


@pytest.mark.parametrize("script", ["dataflow/build_and_run.sh", "flink/submit.sh",
                                    "schedule/cloud_scheduler.sh"])
def test_shell_scripts_parse(script):
    subprocess.run(["bash", "-n", str(DEPLOY / script)], check=True, timeout=30)
    assert os.access(DEPLOY / script, os.X_OK)


# --- Kubernetes CronJob ----------------------------------------------------------

def test_cronjob_runs_ragbeam_sync_sequentially_with_the_worker_image():
    cron = yaml.safe_load((DEPLOY / "schedule" / "cronjob.yaml").read_text())
    assert (cron["apiVersion"], cron["kind"]) == ("batch/v1", "CronJob")
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    (container,) = pod["containers"]
    assert container["image"].rsplit("/", 1)[-1].startswith("ragbeam-worker:")
    assert container["command"] == ["ragbeam", "sync"]
    args = container["args"]
    assert any(a.startswith("--state=") for a in args)
    assert any(a.startswith("--input=") for a in args)
    assert not any(a.split("=")[0] in ("--output", "--previous") for a in args)


def test_cronjob_lets_an_interrupted_run_end_before_kubernetes_kills_it():
    """Stopping the job (``kubectl delete``, ``activeDeadlineSeconds``, a node drain)
    sends SIGTERM, then SIGKILL once the pod's grace period is over (30 s unless set):
    the command's own deadline comes first, so the job's log says how the run ended
    (the one line, or the stacks of a clean-up that hung) and its exit code is 143."""
    from ragbeam.pipeline.interrupts import EXIT_DEADLINE_S

    cron = yaml.safe_load((DEPLOY / "schedule" / "cronjob.yaml").read_text())
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert pod.get("terminationGracePeriodSeconds", 30) > EXIT_DEADLINE_S


# --- Flink -------------------------------------------------------------------------

def test_flink_compose_pairs_the_worker_pool_with_the_taskmanager():
    compose = yaml.safe_load((DEPLOY / "flink" / "docker-compose.yml").read_text())
    services = compose["services"]
    pool = services["worker-pool"]
    assert pool["command"] == ["--worker_pool"]
    assert pool["network_mode"] == "service:taskmanager"
    job_server = services["job-server"]["image"]
    flink_minor = re.match(r"apache/beam_flink(\d+\.\d+)_job_server:(.+)", job_server)
    assert flink_minor and flink_minor[2] == _pinned_beam_version()
    from apache_beam.options.pipeline_options import FlinkRunnerOptions

    assert flink_minor[1] in FlinkRunnerOptions.PUBLISHED_FLINK_VERSIONS
    flink_image = services["taskmanager"]["image"]
    assert f"flink:{flink_minor[1]}." in flink_image
    submit = (DEPLOY / "flink" / "submit.sh").read_text()
    assert "--environment_config localhost:50000" in submit
    assert f"--flink_version {flink_minor[1]}" in submit


# --- Airflow -------------------------------------------------------------------------

def _dag_tree() -> ast.Module:
    return ast.parse((DEPLOY / "schedule" / "airflow_dag.py").read_text())


def test_airflow_dag_runs_reindex_with_the_beam_operator():
    tree = _dag_tree()
    imports = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
               and node.module == "airflow.providers.apache.beam.operators.beam"
               for alias in node.names}
    assert "BeamRunPythonPipelineOperator" in imports
    (op,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and getattr(n.func, "id", None) == "BeamRunPythonPipelineOperator"]
    kwargs = {k.arg: k.value for k in op.keywords}
    assert {"task_id", "runner", "py_file", "pipeline_options"} <= set(kwargs)
    options = ast.unparse(kwargs["pipeline_options"])
    assert "'run_date': '{{ ds }}'" in options and "'output_root'" in options
    assert "'output'" not in options and "'previous'" not in options
    assert "reindex.py" in ast.unparse(tree.body[next(
        i for i, n in enumerate(tree.body) if isinstance(n, ast.Assign)
        and ast.unparse(n.targets[0]) == "REINDEX_PY")])
    (dag,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
              and getattr(n.func, "id", None) == "DAG"]
    dag_kwargs = {k.arg: ast.unparse(k.value) for k in dag.keywords}
    assert dag_kwargs["max_active_runs"] == "1"  # each run builds on the previous one


@pytest.mark.parametrize("runner", ["DirectRunner", "DataflowRunner"])
def test_airflow_imports_the_dag(runner):
    """Opt-in: RAGBEAM_AIRFLOW_PYTHON=/path/to/airflow-venv/bin/python (Airflow with the
    apache-beam and google providers; kept out of ragbeam's environment, ~2.2 GB)."""
    python = os.environ.get("RAGBEAM_AIRFLOW_PYTHON")
    if not python:
        pytest.skip("opt-in: set RAGBEAM_AIRFLOW_PYTHON to a Python with apache-airflow "
                    "and apache-airflow-providers-apache-beam/-google")
    # Import the file as Airflow's parser does, then inspect the DAG object (DagBag's
    # signature differs between Airflow 2 and 3; the DAG object's does not).
    check = (
        "import importlib.util, sys; "
        "spec = importlib.util.spec_from_file_location('ragbeam_dag', sys.argv[1]); "
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module); "
        "dag = module.dag; task = dag.get_task('reindex'); "
        "assert dag.dag_id == 'ragbeam_reindex' and dag.max_active_runs == 1; "
        "assert type(task).__name__ == 'BeamRunPythonPipelineOperator', type(task); "
        "assert 'pipeline_options' in task.template_fields; "
        "print('ok', task.runner, sorted(task.pipeline_options))"
    )
    env = {**os.environ, "RAGBEAM_RUNNER": runner, "RAGBEAM_PROJECT": "ragbeam-example",
           "RAGBEAM_REGION": "europe-west1", "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
           "AIRFLOW__CORE__UNIT_TEST_MODE": "True"}
    done = subprocess.run([python, "-c", check, str(DEPLOY / "schedule" / "airflow_dag.py")],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    result = done.stdout.strip().splitlines()[-1]  # Airflow may log to stdout first
    assert result.startswith(f"ok {runner} ")
    assert "'output_root'" in result and "'run_date'" in result
