"""Run each pipeline over a domain's PDFs and bring back its chunks file.

* ``ragbeam``: ``ragbeam run`` with its defaults (no embedding: chunks only, as
  the peers), by any Python and checkout (``--ragbeam-python``,
  ``--ragbeam-path`` put first on its ``PYTHONPATH``), or an existing run's
  output folder (``--ragbeam-output``). Its chunks are read back with
  ``ragbeam.evaluate.run_data.load_run``; text and contextual header both kept.
* peers (``peers/run_peer.py``) in their own venv, one subprocess each; their
  chunks are cached under the work folder, keyed by the peer's name, settings,
  package versions, its own chunking code (``run_peer.py --describe``: the source
  of the functions that peer calls, not the whole runner, so adding a peer leaves
  the others' chunks cached) and the input files' SHA-256, so a rerun of ragbeam
  alone scores against them without running them again.
* ``pages``: each PDF page's PDFium text as one chunk (no splitting), a
  reference row.

Every pipeline is timed the same way: wall time and the CPU time of the
process tree (``os.times`` of waited-for children), on the same files one
pipeline after another, optionally pinned with ``taskset`` (``--cpus``).
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import subprocess
import sys
import time

from retrieval_bench.chunks import BenchChunk, read_chunks, write_chunks
from retrieval_bench.pages import PageIndex, cached_page_texts
from retrieval_bench.sets import REPO, document_rows

PEER_RUNNER = pathlib.Path(__file__).resolve().parent / "peers" / "run_peer.py"
PEERS = ("tika-langchain", "tika-langchain-tokens", "tika-langchain-tokens-96", "unstructured",
         "pymupdf4llm")
# The peers' venv: $RAGBEAM_PEERS_VENV, else ../venvs/peers beside the checkout.
DEFAULT_PEERS_VENV = pathlib.Path(os.environ.get("RAGBEAM_PEERS_VENV")
                                  or REPO.parent / "venvs" / "peers")


def domain_files(data: pathlib.Path, domain: str) -> list[dict[str, str]]:
    return [{"doc": r["path"], "path": str(data / r["path"]), "sha256": r["sha256"]}
            for r in document_rows(domain)]


def _timed(cmd: list[str], env: dict[str, str] | None = None, cpus: str | None = None
           ) -> tuple[subprocess.CompletedProcess, float, float]:
    if cpus:
        cmd = ["taskset", "-c", cpus, *cmd]
    before, started = os.times(), time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user + after.children_system
           - before.children_user - before.children_system)
    return done, round(wall, 2), round(cpu, 2)


def relative_doc(source_uri: str, data: pathlib.Path) -> str:
    """The PDF's path relative to the data folder, as the question sets name it (the
    folder or the files may be symbolic links: compare as written, then resolved)."""
    path = source_uri[len("file://"):] if source_uri.startswith("file://") else source_uri
    try:
        return pathlib.Path(os.path.abspath(path)).relative_to(os.path.abspath(data)).as_posix()
    except ValueError:
        return pathlib.Path(path).resolve().relative_to(data.resolve()).as_posix()


def ragbeam_chunks_from_run(output: pathlib.Path, data: pathlib.Path) -> list[BenchChunk]:
    from ragbeam.evaluate.run_data import load_run

    run = load_run(str(output), with_text=False)
    return [BenchChunk(relative_doc(c.source_uri, data), c.text, c.context, c.page_start,
                       c.heading_path) for c in run.indexed_chunks]


def run_ragbeam(data: pathlib.Path, domain: str, work: pathlib.Path, python: str,
                ragbeam_path: str | None, extra: list[str], cpus: str | None) -> dict:
    # One folder per invocation: several engineers may share a work folder.
    output = work / "ragbeam-runs" / f"{domain}-{os.getpid()}"
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    if ragbeam_path:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [ragbeam_path,
                                                          env.get("PYTHONPATH")]))
    cmd = [python, "-m", "ragbeam.pipeline.cli", "run", "--input", str(data / domain),
           "--output", str(output), "--overwrite", *extra]
    done, wall, cpu = _timed(cmd, env, cpus)
    if done.returncode not in (0,):
        tail = (done.stderr or done.stdout)[-2000:]
        print(f"ragbeam run on {domain} exited {done.returncode}:\n{tail}", file=sys.stderr)
        if not (output / "run.json").is_file():
            raise SystemExit(f"ragbeam run on {domain} wrote no run")
    which = subprocess.run([python, "-c", "import ragbeam, sys; print(ragbeam.__file__)"],
                           env=env, capture_output=True, text=True).stdout.strip()
    return {"output": str(output), "wall_s": wall, "cpu_s": cpu, "exit": done.returncode,
            "ragbeam": which, "args": extra}


def peer_key(peer: str, python: str, files: list[dict[str, str]]) -> tuple[str, dict]:
    described = subprocess.run([python, str(PEER_RUNNER), "--peer", peer, "--files", "-",
                                "--out", "-", "--describe"], capture_output=True, text=True)
    if described.returncode:
        raise SystemExit(f"peer {peer} cannot start in {python}:\n{described.stderr[-2000:]}")
    info = json.loads(described.stdout.strip().splitlines()[-1])
    h = hashlib.sha256()
    h.update(json.dumps(info, sort_keys=True).encode())  # versions, settings, its code
    h.update((pathlib.Path(__file__).parent / "chunks.py").read_bytes())
    for f in sorted(files, key=lambda f: f["doc"]):
        h.update(f"{f['doc']}\0{f['sha256']}\n".encode())
    return h.hexdigest()[:20], info


def run_peer(peer: str, data: pathlib.Path, domain: str, peers_cache: pathlib.Path,
             venv: pathlib.Path, cpus: str | None, refresh: bool = False
             ) -> tuple[pathlib.Path, dict]:
    python = str(venv / "bin" / "python")
    files = domain_files(data, domain)
    key, _info = peer_key(peer, python, files)
    folder = peers_cache / peer
    chunks, meta = folder / f"{domain}-{key}.jsonl", folder / f"{domain}-{key}.json"
    if chunks.is_file() and meta.is_file() and not refresh:
        return chunks, {**json.loads(meta.read_text()), "cached": True}
    folder.mkdir(parents=True, exist_ok=True)
    listing = folder / f"{domain}-{key}.files.json"
    listing.write_text(json.dumps(files), encoding="utf-8")
    done, wall, cpu = _timed([python, str(PEER_RUNNER), "--peer", peer, "--files",
                              str(listing), "--out", str(chunks)],
                             dict(os.environ, HF_HUB_OFFLINE="1", NLTK_DATA="/nonexistent"),
                             cpus)
    if done.returncode:
        raise SystemExit(f"peer {peer} failed on {domain}:\n{done.stderr[-3000:]}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report.update(process_wall_s=wall, process_cpu_s=cpu, key=key)
    meta.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return chunks, {**report, "cached": False}


def page_chunks(data: pathlib.Path, domain: str) -> list[BenchChunk]:
    out = []
    for f in domain_files(data, domain):
        texts = cached_page_texts(pathlib.Path(f["path"]), data / ".page-texts")
        out.extend(BenchChunk(f["doc"], t, page=n) for n, t in enumerate(texts, 1)
                   if t.strip())
    return out


def cached_chunks(path: pathlib.Path) -> list[BenchChunk]:
    return read_chunks(path)


def save_chunks(path: pathlib.Path, chunks: list[BenchChunk]) -> None:
    write_chunks(path, chunks)


def page_material(data: pathlib.Path, domain: str
                  ) -> tuple[dict[str, list[str]], dict[str, PageIndex]]:
    """A domain's PDFs' page texts (PDFium, cached beside the data) and their page
    indexes, by the PDF's path under ``data``."""
    texts = {row["path"]: cached_page_texts(data / row["path"], data / ".page-texts")
             for row in document_rows(domain)}
    return texts, {doc: PageIndex(t) for doc, t in texts.items()}


def ragbeam_text_vectors(output: pathlib.Path) -> bool:
    """Was the run made with ``--text-vector`` (two vectors a chunk, scored by the closer
    one)? Its chunks schema's ``ragbeam.embedding`` record says so."""
    import pyarrow.parquet as pq

    from ragbeam.schemas import has_text_vectors

    files = sorted((output / "chunks").glob("*.parquet"))
    return bool(files) and has_text_vectors(pq.read_schema(files[0]))


def ragbeam_run_dir(root: pathlib.Path, domain: str) -> pathlib.Path:
    """A domain's finished ragbeam run under ``root``: ``root/<domain>``, else the newest
    ``root/<domain>-*`` (as retrieval.py names its runs)."""
    output = root / domain
    if output.is_dir():
        return output
    return max(root.glob(f"{domain}-*"), key=lambda p: p.stat().st_mtime)
