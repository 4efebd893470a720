"""Object stores on localhost for ``gs://`` and ``s3://`` runs in tests: real
servers of the stores' APIs, in separate processes, reached through Beam's own
filesystems.

GCS: ``gcp-storage-emulator`` (PyPI) serves the JSON API that the
``google-cloud-storage`` client, and through it Beam's GCS filesystem, speak.
It runs as a separate process, in memory. Pointing Beam at it takes two
environment variables, both read by Google's own libraries (nothing of Beam's
is patched):

* ``STORAGE_EMULATOR_HOST=http://localhost:PORT``: the storage client sends
  every request there (and needs no real credentials for it);
* ``GOOGLE_APPLICATION_CREDENTIALS``: Beam first looks for Application Default
  Credentials, retrying for 15–30 s when there are none before it connects
  anonymously. An ``authorized_user`` file holding an access token that has not
  expired satisfies it at once without any network (the emulator ignores the
  token). ``GOOGLE_CLOUD_PROJECT`` silences the warning about a missing project.

S3: ``moto`` in server mode. Beam's S3 filesystem makes a boto3 client, which
reads ``AWS_ENDPOINT_URL`` and the usual ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``
(any value: moto accepts them); Beam's own ``--s3_endpoint_url`` option does
the same per run. Beam's S3 filesystem also needs pipeline options before its
first use (``FileSystems.set_options``), which ``ragbeam run`` gives it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

GCS_ENVIRONMENT = ("STORAGE_EMULATOR_HOST", "GOOGLE_APPLICATION_CREDENTIALS",
                   "GOOGLE_CLOUD_PROJECT")
S3_ENVIRONMENT = ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                  "AWS_DEFAULT_REGION")

# An access token that never expires: google-auth uses it as it is, without refreshing.
OFFLINE_CREDENTIALS = {"type": "authorized_user", "client_id": "emulator",
                       "client_secret": "emulator", "refresh_token": "emulator",
                       "token": "emulator", "expiry": "2999-01-01T00:00:00Z"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@contextmanager
def _server(command: list[str], endpoint: str, environment: dict[str, str]) -> Iterator[None]:
    """Run ``command`` until ``endpoint`` answers, with ``environment`` set in this
    process meanwhile; everything is undone after."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    saved = {name: os.environ.get(name) for name in environment}
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(endpoint + "/", timeout=1).read()
                break
            except urllib.error.HTTPError:
                break  # it answers
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{command[2]} did not start") from None
                time.sleep(0.1)
        os.environ.update(environment)
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def gcs_emulator(workdir: Path, bucket: str) -> Iterator[str]:
    """The GCS emulator with ``bucket`` created, this process pointed at it; yields
    its endpoint."""
    port = _free_port()
    endpoint = f"http://localhost:{port}"
    credentials = workdir / "offline-credentials.json"
    credentials.write_text(json.dumps(OFFLINE_CREDENTIALS), encoding="utf-8")
    command = [sys.executable, "-m", "gcp_storage_emulator", "start", "--port", str(port),
               "--in-memory", "--default-bucket", bucket, "--quiet"]
    from ragbeam.transforms import storage

    # ragbeam keeps one GCS client a process (``storage._gcs_client``), made for the
    # emulator that was up when it was first used: an earlier test's, stopped since.
    storage._gcs_client.cache_clear()
    try:
        with _server(command, endpoint, {"STORAGE_EMULATOR_HOST": endpoint,
                                         "GOOGLE_APPLICATION_CREDENTIALS": str(credentials),
                                         "GOOGLE_CLOUD_PROJECT": "ragbeam-test"}):
            yield endpoint
    finally:
        storage._gcs_client.cache_clear()


@contextmanager
def s3_server(bucket: str) -> Iterator[str]:
    """moto's S3 server with ``bucket`` created, this process pointed at it; yields
    its endpoint."""
    port = _free_port()
    endpoint = f"http://localhost:{port}"
    command = [sys.executable, "-m", "moto.server", "-H", "localhost", "-p", str(port)]
    with _server(command, endpoint, {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": "test",
                                     "AWS_SECRET_ACCESS_KEY": "test",
                                     "AWS_DEFAULT_REGION": "us-east-1"}):
        import boto3

        boto3.client("s3").create_bucket(Bucket=bucket)
        yield endpoint
