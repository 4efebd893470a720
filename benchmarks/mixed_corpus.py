"""A mixed corpus of 200+ distinct public documents, for what a second core buys.

    python benchmarks/mixed_corpus.py build [--out DIR] [--mirror-root DIR]
    python benchmarks/mixed_corpus.py check [--out DIR]     (DIR: ../data/mixed-corpus)

Issue 42 asks that two cores run a 200-document mixed corpus at least 1.8× as
fast as one; the shared corpus (34 files without ``bad/``) and the unseen mixed
set (40) are too small for that: a run's serial start is half of it. This set
is the union of every document set the project already names by manifest — the
unseen mixed set (12 formats), the issue-41 unseen set, the large-document
corpus, the shared corpus without its broken files and each held-out PDF set
under ``benchmarks/data/`` — one copy per SHA-256, so no file is a duplicate
the pipeline would skip. Nothing new is fetched: each file is copied from the
set's own folder under ``../data`` where that set was built (its SHA-256 must
match its manifest), else from a local git mirror (``--mirror-root``, as
``large_docs.py``). ``MANIFEST.csv`` (``path``, ``set``, ``sha256``) lands
beside the files, so ``pipeline_throughput.py --corpus DIR`` takes it as it is.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import large_docs  # the mirror reader and the manifest layout

REPO = pathlib.Path(__file__).resolve().parents[1]
DATA = REPO.parent / "data"
SHARED_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_OUT = DATA / "mixed-corpus"
BROKEN_PREFIX = "bad/"  # the shared corpus's deliberately broken (and hanging) files
MIN_DOCUMENTS = 200
# Closing sets not yet scored stay unopened: no run of any kind goes over them first.
UNSCORED = frozenset({"issue39-c-pdfs", "issue39-d-pdfs", "issue39-e-pdfs", "issue39-f-pdfs",
                      "issue39-g-pdfs", "issue39-h-pdfs", "issue39-i-pdfs",
                      "issue39-j-pdfs"})


def _sets() -> list[tuple[str, pathlib.Path, pathlib.Path]]:
    """(name, manifest, folder it is built in) of every set named by a manifest."""
    data = REPO / "benchmarks" / "data"
    sets = [("unseen-mixed", data / "unseen-mixed.csv", DATA / "unseen-mixed"),
            ("issue41-unseen", data / "issue41-unseen.csv", DATA / "issue41-unseen"),
            ("large-docs", REPO / "benchmarks" / "large_docs.csv", DATA / "large-docs")]
    sets += [(m.stem, m, DATA / m.stem) for m in sorted(data.glob("*-pdfs.csv"))
             if m.stem not in UNSCORED]
    return sets


def _entries(manifest: pathlib.Path) -> list[dict[str, str]]:
    """Rows as ``local`` (path in the built folder), repo, ``source`` path, commit, sha256;
    the manifests name the built file ``path`` (source ``source_path``) or ``file``
    (source ``path``)."""
    rows = large_docs.manifest_rows(manifest)
    out = []
    for row in rows:
        if "file" in row:
            out.append({"local": row["file"], "repo": row["repo"], "source": row["path"],
                        "commit": row["commit"], "sha256": row["sha256"]})
        else:
            out.append({"local": row["path"], "repo": row["repo"],
                        "source": row["source_path"], "commit": row["commit"],
                        "sha256": row["sha256"]})
    return out


def _bytes_of(entry: dict[str, str], folder: pathlib.Path,
              mirror_root: pathlib.Path | None) -> bytes | None:
    local = folder / entry["local"]
    if local.is_file():
        data = local.read_bytes()
        if hashlib.sha256(data).hexdigest() == entry["sha256"]:
            return data
    if mirror_root is None:
        return None
    try:
        data = large_docs._from_mirror(mirror_root, {"repo": entry["repo"],
                                                     "source_path": entry["source"],
                                                     "commit": entry["commit"]})
    except (OSError, subprocess.CalledProcessError):  # no mirror or no such path: counted
        return None
    return data if hashlib.sha256(data).hexdigest() == entry["sha256"] else None


def build(out: pathlib.Path, mirror_root: pathlib.Path | None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    rows: list[dict[str, str]] = []
    missing = 0
    sources = [(name, _entries(manifest), folder) for name, manifest, folder in _sets()]
    with open(SHARED_CORPUS / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        shared = [r for r in csv.DictReader(f) if not r["path"].startswith(BROKEN_PREFIX)]
    for row in shared:
        data = (SHARED_CORPUS / row["path"]).read_bytes()
        rows.append(_copy(out, "shared-corpus", row["path"], data, seen))
    for name, entries, folder in sources:
        for entry in entries:
            data = _bytes_of(entry, folder, mirror_root)
            if data is None:
                missing += 1
                continue
            rows.append(_copy(out, name, entry["local"], data, seen))
    rows = [r for r in rows if r]
    with open(out / "MANIFEST.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["path", "set", "sha256", "bytes"])
        writer.writeheader()
        writer.writerows(rows)
    suffixes = sorted({pathlib.Path(r["path"]).suffix.lower() for r in rows})
    total = sum(int(r["bytes"]) for r in rows)
    print(f"{len(rows)} documents ({total / 1e6:.1f} MB; {len(suffixes)} suffixes: "
          f"{' '.join(suffixes)}) in {out}; {missing} not found locally")
    return 0 if len(rows) >= MIN_DOCUMENTS else 1


def _copy(out: pathlib.Path, set_name: str, local: str, data: bytes,
          seen: set[str]) -> dict[str, str]:
    """Copy one file as ``<set>/<local>`` unless its bytes are already in: {} then."""
    digest = hashlib.sha256(data).hexdigest()
    if digest in seen or not data:
        return {}
    seen.add(digest)
    path = f"{set_name}/{local}"
    target = out / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return {"path": path, "set": set_name, "sha256": digest, "bytes": str(len(data))}


def check(out: pathlib.Path) -> int:
    with open(out / "MANIFEST.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    bad = [r["path"] for r in rows
           if hashlib.sha256((out / r["path"]).read_bytes()).hexdigest() != r["sha256"]]
    print(f"{len(rows) - len(bad)} of {len(rows)} files match; {len(bad)} differ")
    return 0 if not bad and len(rows) >= MIN_DOCUMENTS else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("build", "check"))
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT)
    parser.add_argument("--mirror-root", type=pathlib.Path,
                        help="local git mirrors laid out as DIR/<owner>+<name>/repo")
    args = parser.parse_args(argv)
    return build(args.out, args.mirror_root) if args.command == "build" else check(args.out)


if __name__ == "__main__":
    sys.exit(main())
