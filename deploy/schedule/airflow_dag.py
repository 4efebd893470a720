"""Airflow DAG: daily ragbeam re-indexing with BeamRunPythonPipelineOperator.

Each run writes OUTPUT_ROOT/<logical date>/ and reads the newest earlier completed
run under OUTPUT_ROOT as --previous (deploy/schedule/reindex.py decides both), so
only changed documents are extracted again and changes/ lists what to upsert and
delete downstream. Runs are strictly sequential (max_active_runs=1): each one
builds on the last.

Needs apache-airflow with apache-airflow-providers-apache-beam (and
apache-airflow-providers-google for Dataflow), and ragbeam installed for the
interpreter the operator uses (below: the Airflow worker's python3). Set the
Airflow Variables ragbeam_input and ragbeam_output_root; ragbeam_runner is
DirectRunner (on the Airflow worker) or DataflowRunner (with ragbeam_project,
ragbeam_region, ragbeam_temp_location and ragbeam_worker_image).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from airflow import DAG
from airflow.models import Variable
from airflow.providers.apache.beam.operators.beam import BeamRunPythonPipelineOperator
from airflow.providers.google.cloud.operators.dataflow import DataflowConfiguration

REINDEX_PY = "/opt/ragbeam/reindex.py"  # deploy/schedule/reindex.py, as in the worker image
RUNNER = Variable.get("ragbeam_runner", default_var="DirectRunner")

if RUNNER == "DataflowRunner":
    runner_options = {
        "temp_location": Variable.get("ragbeam_temp_location", default_var=""),
        "sdk_container_image": Variable.get("ragbeam_worker_image", default_var=""),
        "sdk_location": "container",
    }
    dataflow_config = DataflowConfiguration(
        job_name="ragbeam-reindex",
        project_id=Variable.get("ragbeam_project", default_var=None),
        location=Variable.get("ragbeam_region", default_var=None),
        # reindex.py waits for the job so that it can write run.json.
        wait_until_finished=True,
    )
else:
    runner_options = {"direct_running_mode": "multi_processing", "direct_num_workers": "4"}
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
