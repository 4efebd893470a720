#!/usr/bin/env bash
# Build the ragbeam worker image, register it as a Dataflow Flex Template, launch it.
# Run from the repository root with gcloud authenticated and these set:
#   PROJECT=my-project REGION=europe-west1 BUCKET=my-bucket deploy/dataflow/build_and_run.sh
# Optional: REPO (Artifact Registry repository, default ragbeam), TAG (default: ragbeam version),
#           INPUT (default gs://$BUCKET/docs), STEP=build|run (default both).
set -euo pipefail
: "${PROJECT:?}" "${REGION:?}" "${BUCKET:?}"
REPO="${REPO:-ragbeam}"
TAG="${TAG:-$(python3 -c 'import re;print(re.search(r"__version__ = \"(.+?)\"", open("__init__.py").read())[1])')}"
IMAGE="${REGION}-docker.pkg.dev/${PROJECT}/${REPO}/ragbeam-worker:${TAG}"
TEMPLATE="gs://${BUCKET}/ragbeam/templates/ragbeam-${TAG}.json"
INPUT="${INPUT:-gs://${BUCKET}/docs}"
STEP="${STEP:-all}"

if [[ "$STEP" == all || "$STEP" == build ]]; then
  gcloud artifacts repositories describe "$REPO" --project "$PROJECT" --location "$REGION" \
    >/dev/null 2>&1 ||
    gcloud artifacts repositories create "$REPO" --project "$PROJECT" --location "$REGION" \
      --repository-format docker
  # Cloud Build reads deploy/image/Dockerfile; the context is the repository root.
  gcloud builds submit --project "$PROJECT" --region "$REGION" \
    --config deploy/dataflow/cloudbuild.yaml --substitutions "_IMAGE=${IMAGE}" .
  gcloud dataflow flex-template build "$TEMPLATE" --project "$PROJECT" \
    --image "$IMAGE" --sdk-language PYTHON --metadata-file deploy/dataflow/metadata.json
fi

if [[ "$STEP" == all || "$STEP" == run ]]; then
  gcloud dataflow flex-template run "ragbeam-$(date -u +%Y%m%d-%H%M%S)" \
    --project "$PROJECT" --region "$REGION" \
    --template-file-gcs-location "$TEMPLATE" \
    --temp-location "gs://${BUCKET}/ragbeam/tmp" \
    --staging-location "gs://${BUCKET}/ragbeam/staging" \
    --parameters "input=${INPUT}" \
    --parameters "output_root=gs://${BUCKET}/ragbeam/runs" \
    --parameters "sdk_container_image=${IMAGE}"
fi
