"""The large-document benchmark corpus: rebuild it from its manifest, or check it.

    python benchmarks/large_docs.py build [--out DIR] [--mirror-root DIR | --download]
    python benchmarks/large_docs.py check [--out DIR]    (DIR: ../data/large-docs)

Public test documents of other projects, a few hundred pages each where the
format has pages (PDFs of 8–619 pages, an 872-page DOCX, e-books, long web
pages, large workbooks and slide decks, e-mails), chosen so that extraction
time, not per-file overhead, dominates a run. None of them is broken: every one
extracts with iscc-tika. They are **not** in this repository (the search tool's
rule, and their own licences): ``benchmarks/large_docs.csv`` names each file's
repository, path, commit and SHA-256, and this script fetches them again:

* ``--mirror-root DIR``: from local git mirrors laid out as
  ``DIR/<owner>+<name>/repo`` (``git show <commit>:<path>``);
* ``--download``: from ``raw.githubusercontent.com/<repo>/<commit>/<path>``.

Either way each file's SHA-256 must match the manifest, or the build fails.
The benchmarks take the corpus folder as ``--corpus`` (pipeline_throughput.py,
workers.py) and list its files from ``MANIFEST.csv``, which ``build`` copies
beside them.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import pathlib
import shutil
import subprocess
import sys
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[1]
MANIFEST = REPO / "benchmarks" / "large_docs.csv"
DEFAULT_OUT = REPO.parent / "data" / "large-docs"


def manifest_rows(manifest: pathlib.Path = MANIFEST) -> list[dict[str, str]]:
    with open(manifest, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _from_mirror(root: pathlib.Path, row: dict[str, str]) -> bytes:
    git_dir = root / row["repo"].replace("/", "+") / "repo"
    if (git_dir / ".git").is_dir():  # a mirror checked out with a work tree, not bare
        git_dir = git_dir / ".git"
    return subprocess.run(["git", "--git-dir", str(git_dir), "show",
                           f"{row['commit']}:{row['source_path']}"],
                          check=True, capture_output=True).stdout


def _downloaded(row: dict[str, str]) -> bytes:
    url = (f"https://raw.githubusercontent.com/{row['repo']}/{row['commit']}/"
           + urllib.request.quote(row["source_path"]))
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read()


def build(out: pathlib.Path, mirror_root: pathlib.Path | None,
          manifest: pathlib.Path = MANIFEST) -> int:
    rows = manifest_rows(manifest)
    out.mkdir(parents=True, exist_ok=True)
    bad = 0
    for row in rows:
        data = _from_mirror(mirror_root, row) if mirror_root else _downloaded(row)
        digest = hashlib.sha256(data).hexdigest()
        if digest != row["sha256"]:
            print(f"SHA-256 mismatch: {row['path']} ({digest} != {row['sha256']})",
                  file=sys.stderr)
            bad += 1
            continue
        target = out / row["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    shutil.copy(manifest, out / "MANIFEST.csv")
    total = sum(int(r["bytes"]) for r in rows)
    print(f"{len(rows) - bad} of {len(rows)} files, {total / 1e6:.1f} MB, in {out}")
    return 1 if bad else 0


def check(out: pathlib.Path, manifest: pathlib.Path = MANIFEST) -> int:
    rows = manifest_rows(manifest)
    missing = []
    for row in rows:
        path = out / row["path"]
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != row["sha256"]:
            missing.append(row["path"])
    for path in missing:
        print(f"missing or changed: {path}", file=sys.stderr)
    print(f"{len(rows) - len(missing)} of {len(rows)} files as listed")
    return 1 if missing else 0


def main(argv: list[str] | None = None, description: str = __doc__,
         manifest: pathlib.Path = MANIFEST, default_out: pathlib.Path = DEFAULT_OUT) -> int:
    """The command line of this script, and of others that rebuild a corpus from a
    manifest of the same columns (``unseen_mixed.py``)."""
    parser = argparse.ArgumentParser(description=description.split("\n\n")[0])
    parser.add_argument("command", choices=("build", "check"))
    parser.add_argument("--out", type=pathlib.Path, default=default_out)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--mirror-root", type=pathlib.Path,
                        help="local git mirrors: DIR/<owner>+<name>/repo")
    source.add_argument("--download", action="store_true",
                        help="fetch from raw.githubusercontent.com at the listed commits")
    args = parser.parse_args(argv)
    if args.command == "check":
        return check(args.out, manifest)
    if not args.mirror_root and not args.download:
        parser.error("build needs --mirror-root DIR or --download")
    return build(args.out, args.mirror_root, manifest)


if __name__ == "__main__":
    sys.exit(main())
