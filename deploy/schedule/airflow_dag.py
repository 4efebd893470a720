"""Airflow DAG: daily ragbeam re-indexing with BeamRunPythonPipelineOperator.

Each run writes OUTPUT_ROOT/<logical date>/ and reads the newest earlier completed
run under OUTPUT_ROOT as --previous (deploy/schedule/reindex.py, which is
``ragbeam sync --state OUTPUT_ROOT --run-name <logical date>``, decides both and
prunes completed runs beyond --keep), so only changed documents are extracted
again and changes/ lists what to upsert and delete downstream. Runs are strictly
sequential (max_active_runs=1): each one builds on the last.

Needs apache-airflow with apache-airflow-providers-apache-beam and
apache-airflow-providers-google, and ragbeam installed for the interpreter the
operator uses (below: the Airflow worker's python3).

Configuration. At run time, the Airflow Variables ``ragbeam_input`` (e.g.
gs://my-bucket/docs) and ``ragbeam_output_root`` (e.g. gs://my-bucket/ragbeam/runs).
When the DAG file is parsed, the environment variable ``RAGBEAM_RUNNER``:
DirectRunner (default; the pipeline runs on the Airflow worker) or DataflowRunner,
which also reads RAGBEAM_PROJECT, RAGBEAM_REGION, RAGBEAM_TEMP_LOCATION and
RAGBEAM_WORKER_IMAGE. (Environment variables, not Variables: a DAG file must not
query the metadata database each time it is parsed.)
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from airflow import DAG
from airflow.providers.apache.beam.operators.beam import BeamRunPythonPipelineOperator
from airflow.providers.google.cloud.operators.dataflow import DataflowConfiguration

REINDEX_PY = "/opt/ragbeam/reindex.py"  # deploy/schedule/reindex.py, as in the worker image
RUNNER = os.environ.get("RAGBEAM_RUNNER", "DirectRunner")

if RUNNER == "DataflowRunner":
    runner_options = {
        "temp_location": os.environ.get("RAGBEAM_TEMP_LOCATION", ""),
        "sdk_container_image": os.environ.get("RAGBEAM_WORKER_IMAGE", ""),
        "sdk_location": "container",
    }
    dataflow_config = DataflowConfiguration(
        job_name="ragbeam-reindex",
        project_id=os.environ.get("RAGBEAM_PROJECT"),
        location=os.environ.get("RAGBEAM_REGION"),
        # reindex.py waits for the job so that it can write run.json.
        wait_until_finished=True,
    )
else:
    # About 3 GiB of memory per worker process (docs/running-at-scale.md).
    runner_options = {"direct_running_mode": "multi_processing", "direct_num_workers": "2"}
    dataflow_config = None

with DAG(
    dag_id="ragbeam_reindex",
    schedule="@daily",
    start_date=datetime(2026, 1, 1),
    catchup=False,
    max_active_runs=1,
    default_args={"retries": 2, "retry_delay": timedelta(minutes=10)},
    tags=["ragbeam"],
) as dag:
    reindex = BeamRunPythonPipelineOperator(
        task_id="reindex",
        runner=RUNNER,
        py_file=REINDEX_PY,
        py_interpreter="python3",
        pipeline_options={
            "output_root": "{{ var.value.ragbeam_output_root }}",
            "run_date": "{{ ds }}",
            "input": "{{ var.value.ragbeam_input }}",
            **runner_options,
        },
        dataflow_config=dataflow_config,
        execution_timeout=timedelta(hours=12),
    )
