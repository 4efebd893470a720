"""What each nightly case of issue 30 costs, before and now: ``ragbeam sync`` nights
from the shell, one code base after the other, each in a fresh state folder.

    python benchmarks/nightly_cases.py --before PKG --now PKG [--cases store,hopeless,...]
                                       [--corpus ../shared/corpus] [--work DIR] [--json FILE]

``PKG`` is a folder holding a ``ragbeam`` package (put on ``PYTHONPATH`` for that
side's processes), e.g. a ``git worktree`` of the commit before the work plus a
symlink. Every night is ``python -m ragbeam.pipeline.cli sync --state S --run-name
DATE --input SHARE …`` in a fresh process (``HF_HUB_OFFLINE=1``); per night it prints
the exit code, wall, CPU (user + sys of the process tree: Tika's children, Beam's
workers), the peak resident set of any one process of it, whether a pipeline ran,
the documents processed (``documents_processed``: read and extracted, or, now,
chunked again from the previous row) and extracted by Tika (``run.json``
``extracted``; before that section existed, the processed ones), the texts the
model embedded (``embedding.texts_encoded``), each store's writes (upserts and
deletes, full or incremental, an alias switch) and the summary's headline.

Cases (each a few nights over files staged from ``--corpus``):

* ``store``: ``md/ txt/ eml/ csv/`` (9 files) into Qdrant local mode and Milvus Lite
  together: a first night (fp32), an unchanged night, ``--sparse`` on, ``--sparse``
  off, ``--embedding-precision bf16`` (the one model offline: another dense key
  stands in for a model change), ``--chunk-size 256``, a night after the edits of
  ``report`` (then ``ragbeam runs`` and ``ragbeam runs --run``), a night with 4 of
  10 files gone (held by the delete guard), and the night they are back. The code
  before the layers refuses ``--sparse`` over the collection: it then also runs the
  night its message asks for (``--sparse`` into another collection).
* ``report``: ``md/ txt/ eml/ csv/`` without a store: a first night, then one after
  an edit, an addition, a deletion, a rename and an encrypted PDF (which fails), then
  ``ragbeam runs`` and ``ragbeam runs --run``.
* ``held``: ``eml/ csv/ txt/`` (6 files) into both stores: a first night, a night
  with a text file edited and the two e-mails gone (held by the delete guard), and
  the night they are back.
* ``hopeless``: two text files and ``bad/fuzzed-hang.one`` (hits the extraction
  memory cap), five unchanged nights.
* ``empty``: ``md/ txt/`` and ``bad/empty.pdf``, a first and an unchanged night.
* ``unsupported``: a WAV, a program, an image without text (``--ocr off``) and two
  text files, a first and an unchanged night.
* ``shared``: the whole corpus, a first night and three unchanged ones (the file that
  hits the memory cap is retried while its failure counts as transient);
  ``shared-nohang``: the corpus without that file, a first and an unchanged night.

Load averages are printed with each night; the machine may be shared, so compare CPU
more than wall.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
from reliability.hostile import blank_png

DEFAULT_CORPUS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpus"
STORE_FOLDERS = ("md", "txt", "eml", "csv")


def _sinks(work: pathlib.Path, collection: str = "docs") -> list[str]:
    return ["--sink", f"qdrant:{work}/qdrant?collection={collection}",
            "--sink", f"milvus:{work}/milvus.db?collection={collection}"]


def night(pkg: pathlib.Path, state: pathlib.Path, name: str, share: pathlib.Path,
          options: list[str]) -> dict:
    """One ``ragbeam sync`` night in a fresh process, and what it did."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ragbeam.pipeline.cli", "sync", "--state", str(state),
             "--run-name", name, "--input", str(share), *options],
            stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(pkg), "HF_HUB_OFFLINE": "1"})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
    figures = {"night": name, "rc": os.waitstatus_to_exitcode(status),
               "wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
               "peak_rss_mib": round(usage.ru_maxrss / 1024), "load": os.getloadavg()[0],
               "headline": next((line for line in text.splitlines()
                                 if line.startswith("ragbeam: ") and " → " in line), ""),
               "errors": [line[:200] for line in text.splitlines()
                          if line.startswith("error") or " error: " in line][:3]}
    summary_path = state / name / "run.json"
    if summary_path.exists():
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        extracted = summary.get("extracted")
        figures.update(
            pipeline=summary.get("pipeline", True),
            processed=summary.get("documents_processed"),
            extracted=(extracted.get("ok", 0) + extracted.get("failed", 0)
                       if extracted else summary.get("documents_processed")),
            reused=(extracted or {}).get("reused"),
            embedded=(summary.get("embedding") or {}).get("texts_encoded", 0),
            memory_kills=(summary.get("extraction") or {}).get("memory_kills"),
            outcome=summary.get("outcome"), chunks=summary.get("chunks"),
            changes=f"+{summary.get('changes_upsert', 0)} -{summary.get('changes_delete', 0)}",
            stores=[{k: s.get(k) for k in ("kind", "status", "mode", "upserts", "deletes")}
                    | ({"cutover": True} if s.get("cutover") else {})
                    for s in summary.get("sinks") or ()])
    return figures


def _line(side: str, f: dict) -> str:
    stores = "; ".join(f"{s['kind']} {s['status']} {s['mode']} +{s['upserts']} -{s['deletes']}"
                       + (" switched" if s.get("cutover") else "") for s in f.get("stores", ()))
    return (f"{side:<6} {f['night']:<10} rc={f['rc']:<3} wall={f['wall_s']:6.1f}s "
            f"cpu={f['cpu_s']:6.1f}s rss={f['peak_rss_mib']:5d}MiB load={f['load']:.1f} "
            f"pipeline={f.get('pipeline', '-')} processed={f.get('processed', '-')} "
            f"extracted={f.get('extracted', '-')} "
            f"reused={f.get('reused', '-')} embedded={f.get('embedded', '-')} "
            f"kills={f.get('memory_kills', '-')} chunks={f.get('chunks', '-')} "
            f"changes={f.get('changes', '-')} stores: {stores or '-'}\n"
            f"{'':<7}{f['headline']}" + "".join(f"\n{'':<7}{e}" for e in f["errors"]))


def _cli(pkg: pathlib.Path, *args: str) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-m", "ragbeam.pipeline.cli", *args],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(pkg), "HF_HUB_OFFLINE": "1"})
    return proc.returncode, proc.stdout + proc.stderr


def _stage(corpus: pathlib.Path, share: pathlib.Path, parts: tuple[str, ...]) -> None:
    share.mkdir(parents=True)
    for part in parts:
        source = corpus / part
        if source.is_dir():
            shutil.copytree(source, share / part)
        else:
            (share / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, share / part)
    _settle(share)


def _settle(share: pathlib.Path) -> None:
    """Modification times an hour back: settled files, recorded by the listing."""
    then = time.time() - 3600
    for path in share.rglob("*"):
        os.utime(path, (then, then))




# --- cases: each yields (night name, options, action before the night) ---------------

Night = tuple[str, list[str], Callable[[pathlib.Path], None] | None]


def _morning_edits(corpus: pathlib.Path, share: pathlib.Path) -> None:
    """An edit, an addition, a deletion, a rename and a file that fails (encrypted)."""
    md = sorted((share / "md").glob("*.md"))[0]
    md.write_text(md.read_text(encoding="utf-8") + "\nAn edited closing line.\n",
                  encoding="utf-8")
    (share / "txt" / "new-note.txt").write_text(
        "A new note about the harbour crane schedule, added tonight.\n")
    (share / "csv" / "csv-comma.csv").unlink()
    (share / "eml" / "moved").mkdir()
    (share / "eml" / "family-day.eml").rename(share / "eml" / "moved" / "family-day.eml")
    shutil.copy(corpus / "bad" / "password-protected.pdf", share / "txt" / "locked.pdf")
    _settle(share)


def report_nights(work: pathlib.Path, corpus: pathlib.Path, before: bool) -> list[Night]:
    return [("2026-06-01", [], None),
            ("2026-06-02", [], lambda share: _morning_edits(corpus, share))]


def store_nights(work: pathlib.Path, corpus: pathlib.Path, before: bool) -> list[Night]:
    fp32 = ["--embedding-precision", "fp32", *_sinks(work)]
    bf16 = ["--embedding-precision", "bf16", *_sinks(work)]
    small = [*bf16, "--chunk-size", "256"]
    gone: list[tuple[pathlib.Path, bytes]] = []

    def edits(share: pathlib.Path) -> None:
        _morning_edits(corpus, share)

    def hold(share: pathlib.Path) -> None:
        for path in sorted(p for p in share.rglob("*") if p.is_file())[:4]:
            gone.append((path, path.read_bytes()))
            path.unlink()

    def back(share: pathlib.Path) -> None:
        for path, data in gone:
            path.write_bytes(data)
        _settle(share)

    nights: list[Night] = [("2026-01-01", fp32, None), ("2026-01-02", fp32, None),
                           ("2026-01-03", [*fp32, "--sparse"], None)]
    if before:  # refused: what its message asks for, another collection
        nights.append(("2026-01-04", ["--embedding-precision", "fp32", "--sparse",
                                      *_sinks(work, "docs_sparse")], None))
    nights += [("2026-01-05", fp32, None), ("2026-01-06", bf16, None),
               ("2026-01-07", small, None), ("2026-01-08", small, edits),
               ("2026-01-09", small, hold), ("2026-01-10", small, back)]
    return nights


def held_nights(work: pathlib.Path, corpus: pathlib.Path, before: bool) -> list[Night]:
    gone: list[tuple[pathlib.Path, bytes]] = []

    def edit_and_hold(share: pathlib.Path) -> None:
        text = share / "txt" / "norwich-city.txt"
        text.write_text(text.read_text(encoding="utf-8") + "\nAn edited closing line.\n",
                        encoding="utf-8")
        for path in sorted(share.glob("eml/*")):
            gone.append((path, path.read_bytes()))
            path.unlink()
        _settle(share)

    def back(share: pathlib.Path) -> None:
        for path, data in gone:
            path.write_bytes(data)
        _settle(share)

    sinks = ["--embedding-precision", "fp32", *_sinks(work)]
    return [("2026-07-01", sinks, None), ("2026-07-02", sinks, edit_and_hold),
            ("2026-07-03", sinks, back)]


def hopeless_nights(work: pathlib.Path, corpus: pathlib.Path, before: bool) -> list[Night]:
    return [(f"2026-02-0{i}", ["--max-error-rate", "1"], None) for i in range(1, 6)]


def plain_nights(work: pathlib.Path, corpus: pathlib.Path, before: bool) -> list[Night]:
    return [("2026-03-01", [], None), ("2026-03-02", [], None)]


def unsupported_nights(work: pathlib.Path, corpus: pathlib.Path, before: bool) -> list[Night]:
    return [("2026-04-01", ["--ocr", "off"], None), ("2026-04-02", ["--ocr", "off"], None)]


def _unsupported_share(corpus: pathlib.Path, share: pathlib.Path) -> None:
    share.mkdir(parents=True)
    with wave.open(str(share / "tone.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"".join(struct.pack("<h", (i * 37) % 2000) for i in range(8000)))
    shutil.copy(shutil.which("true") or "/bin/true", share / "prog.bin")
    (share / "blank.png").write_bytes(blank_png())
    for name in ("norwich-city.txt", "zh-prompt-engineering-guide.txt"):
        shutil.copy(corpus / "txt" / name, share / name)
    _settle(share)


def _whole_corpus(corpus: pathlib.Path, share: pathlib.Path, without: tuple[str, ...] = ()
                  ) -> None:
    shutil.copytree(corpus, share)
    for part in without:
        (share / part).unlink()
    _settle(share)


def unchanged_nights(work: pathlib.Path, corpus: pathlib.Path, before: bool) -> list[Night]:
    return [(f"2026-05-0{i}", [], None) for i in range(1, 5)]


CASES: dict[str, tuple[Callable[[pathlib.Path, pathlib.Path], None], Callable]] = {
    "store": (lambda c, s: _stage(c, s, STORE_FOLDERS), store_nights),
    "held": (lambda c, s: _stage(c, s, ("eml", "csv", "txt")), held_nights),
    "hopeless": (lambda c, s: _stage(c, s, ("txt", "bad/fuzzed-hang.one")), hopeless_nights),
    "empty": (lambda c, s: _stage(c, s, ("md", "txt", "bad/empty.pdf")), plain_nights),
    "unsupported": (_unsupported_share, unsupported_nights),
    "report": (lambda c, s: _stage(c, s, STORE_FOLDERS), report_nights),
    "shared": (_whole_corpus, unchanged_nights),
    "shared-nohang": (lambda c, s: _whole_corpus(c, s, ("bad/fuzzed-hang.one",)),
                      plain_nights),
}


def run_case(case: str, side: str, pkg: pathlib.Path, corpus: pathlib.Path,
             work: pathlib.Path) -> list[dict]:
    stage, nights = CASES[case]
    folder = work / case / side
    shutil.rmtree(folder, ignore_errors=True)
    share, state = folder / "share", folder / "state"
    stage(corpus, share)
    results = []
    for name, options, action in nights(folder, corpus, side == "before"):
        if action is not None:
            action(share)
        figures = night(pkg, state, name, share, options)
        print(_line(side, figures), flush=True)
        results.append(figures)
    report_night = {"store": "2026-01-08", "report": "2026-06-02"}.get(case)
    if report_night:  # the morning after the edits: what the report says
        for args in (["runs", str(state)], ["runs", str(state), "--run", report_night]):
            rc, text = _cli(pkg, *args)
            print(f"{side}: ragbeam {' '.join(args[:1] + args[2:])} → exit {rc}\n{text}",
                  flush=True)
            results.append({"command": args, "rc": rc, "output": text})
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=pathlib.Path, required=True)
    parser.add_argument("--now", type=pathlib.Path, required=True)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--work", type=pathlib.Path, help="where to stage and write (kept)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run every case this many times (before, now, before, now…)")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    work = args.work or pathlib.Path(tempfile.mkdtemp(prefix="ragbeam-nightly-"))
    figures: dict = {}
    try:
        for case in args.cases.split(","):
            for round_ in range(args.rounds):
                for side, pkg in (("before", args.before), ("now", args.now)):
                    print(f"== {case}, {side} ({pkg}), round {round_ + 1}; load "
                          f"{os.getloadavg()[0]:.1f}", flush=True)
                    figures.setdefault(case, {}).setdefault(side, []).append(
                        run_case(case, side, pkg, args.corpus, work))
        if args.json:
            args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
