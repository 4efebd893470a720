#!/usr/bin/env bash
# Submit ragbeam to the Flink cluster of deploy/flink/docker-compose.yml.
# Needs: ragbeam installed on this host with the same Python minor version and
# apache-beam version as the worker image (3.11, 2.77.0); input and output under RAGBEAM_DATA.
#
#   RAGBEAM_DATA=/srv/ragbeam deploy/flink/submit.sh [jobserver|flink] [extra ragbeam/Beam options]
#
# jobserver (default): through the job-server container; no Java on this host.
# flink: --runner FlinkRunner, which starts the Beam Flink job server itself from
#        FLINK_JOB_SERVER_JAR (beam-runners-flink-1.19-job-server-2.77.0.jar, Java 11+
#        on this host) and uploads the pipeline as one jar to the Flink REST API.
set -euo pipefail
DATA="${RAGBEAM_DATA:-/srv/ragbeam}"
MODE="${1:-jobserver}"
shift || true
OUT="$DATA/runs/$(date -u +%Y-%m-%d)"

case "$MODE" in
  jobserver)
    RUNNER=(--runner PortableRunner --job_endpoint localhost:8099
            --artifact_endpoint localhost:8098) ;;
  flink)
    RUNNER=(--runner FlinkRunner --flink_master localhost:8081 --flink_version 1.19
            --flink_submit_uber_jar
            --flink_job_server_jar "${FLINK_JOB_SERVER_JAR:?path to the job server jar}") ;;
  *) echo "usage: $0 [jobserver|flink] [options]" >&2; exit 2 ;;
esac

exec ragbeam run --input "$DATA/docs" --output "$OUT" \
  "${RUNNER[@]}" --environment_type EXTERNAL --environment_config localhost:50000 \
  --parallelism 2 "$@"
