#!/usr/bin/env bash
# Cloud Scheduler → Dataflow Flex Template launch, nightly at 02:00 UTC.
# Needs the template of deploy/dataflow/build_and_run.sh and a service account
# allowed to launch Dataflow jobs (roles/dataflow.developer, and
# roles/iam.serviceAccountUser on the workers' service account).
#   PROJECT=my-project REGION=europe-west1 BUCKET=my-bucket \
#   SCHEDULER_SA=ragbeam-scheduler@my-project.iam.gserviceaccount.com \
#   deploy/schedule/cloud_scheduler.sh
# The request body is cloud_scheduler_body.json with the ${…} filled in. No run
# date is passed: the launcher uses today (UTC), and reindex.py picks the newest
# completed run as --previous. The fixed job name makes Dataflow refuse a launch
# while the previous night's job still runs.
set -euo pipefail
: "${PROJECT:?}" "${REGION:?}" "${BUCKET:?}" "${SCHEDULER_SA:?}"
export PROJECT REGION BUCKET
export TAG="${TAG:-0.1.0}"
export IMAGE="${IMAGE:-${REGION}-docker.pkg.dev/${PROJECT}/ragbeam/ragbeam-worker:${TAG}}"
HERE="$(cd "$(dirname "$0")" && pwd)"
BODY="$(envsubst < "$HERE/cloud_scheduler_body.json")"

gcloud scheduler jobs create http ragbeam-reindex \
  --project "$PROJECT" --location "$REGION" \
  --schedule "0 2 * * *" --time-zone "Etc/UTC" \
  --uri "https://dataflow.googleapis.com/v1b3/projects/${PROJECT}/locations/${REGION}/flexTemplates:launch" \
  --http-method POST \
  --headers "Content-Type=application/json" \
  --oauth-service-account-email "$SCHEDULER_SA" \
  --oauth-token-scope "https://www.googleapis.com/auth/cloud-platform" \
  --message-body "$BODY"
