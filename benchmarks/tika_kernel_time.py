"""Where the raw iscc-tika loop's kernel time goes: Tesseract presence checks.

    python benchmarks/tika_kernel_time.py [--corpus DIR] [--repeats 2] [--json FILE]

The loop ``pipeline_throughput.py`` takes as its baseline (one ``Extractor``, XHTML
output, the pipeline's string limit) spends about 40 % of its CPU in the kernel. The
cause is not Tika's collector: every call of iscc-tika (Tika 3.3 in a GraalVM native
image) checks whether Tesseract is installed by starting ``tesseract`` — four times
per document, whatever the Tika configuration (``TIKA_CONFIG`` with an
``EmptyParser`` only still does) and with OCR off (iscc-tika's default
``skip_ocr``). Each check forks the whole extracting process (copying its page
tables, then taking a copy-on-write fault for every page it writes next) and, where
Tesseract is on ``PATH``, runs Tesseract to its usage message (loading its shared
libraries). Where it is not, the fork fails its ``exec`` at once.

Two variants, each in a fresh process, alternating, ``--repeats`` rounds:

* ``PATH as is``: the loop as a user runs it on this machine.
* ``no tesseract on PATH``: the same loop with every ``PATH`` directory that holds a
  ``tesseract`` left out (the interpreter is started by its absolute path): the
  checks still fork, but no Tesseract starts — what ragbeam's extraction children
  do around each Tika call (``EmbeddedTika``'s ``hide_tesseract``).

Each prints CPU (user, system; the loop's process and, apart, the processes it
started and waited for: the checks), minor page faults, peak resident memory, and
whether every file's output (XHTML and metadata, less timing keys) is the same in
both (files whose output differs between two runs of the same variant are counted
apart: Tika output that is not deterministic).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from pipeline_throughput import DEFAULT_CORPUS, corpus_files

from ragbeam.transforms.extract.backends import path_without

# pipeline_throughput.RAW_LOOP, plus a digest of each file's output and the
# loop's own rusage (the process and, apart, its waited-for children).
LOOP = textwrap.dedent("""
    import hashlib, json, resource, sys
    import iscc_tika
    paths, digests = sys.argv[2:], {}
    extractor = (iscc_tika.Extractor().set_xml_output(True)
                 .set_extract_string_max_length(100_000_000))
    for path in paths:
        try:
            with open(path, "rb") as f:
                text, meta = extractor.extract_bytes_to_string(bytearray(f.read()))
        except Exception as exc:
            digests[path] = "failed: " + str(exc)[:80]
            continue
        meta = {k: v for k, v in meta.items() if "time" not in k.lower()}
        blob = text + json.dumps(meta, sort_keys=True)
        digests[path] = hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(sys.argv[1], "w") as out:
        json.dump({"digests": digests, "user_s": own.ru_utime, "sys_s": own.ru_stime,
                   "children_s": kids.ru_utime + kids.ru_stime,
                   "minor_faults": own.ru_minflt + kids.ru_minflt,
                   "peak_mb": own.ru_maxrss / 1024}, out)
""")

VARIANTS = ("PATH as is", "no tesseract on PATH")


def run_loop(paths: list[str], variant: str) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    if variant == "no tesseract on PATH":
        env["PATH"] = path_without("tesseract", env.get("PATH", ""))
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script, \
            tempfile.NamedTemporaryFile(suffix=".json", delete=False) as result:
        script.write(LOOP)
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, script.name, result.name, *paths], env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(result.name) as f:
            measured = json.load(f)
    finally:
        os.unlink(script.name)
        os.unlink(result.name)
    measured["cpu_s"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    measured["load"] = os.getloadavg()[0]
    return measured


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=pathlib.Path, help="also write every run here")
    args = parser.parse_args(argv)
    paths = [str(args.corpus / rel) for rel in corpus_files(args.corpus)]
    print(f"{len(paths)} files from {args.corpus}; load {os.getloadavg()[0]:.1f}")
    runs: dict[str, list[dict]] = {v: [] for v in VARIANTS}
    for round_no in range(args.repeats):
        order = VARIANTS if round_no % 2 == 0 else VARIANTS[::-1]
        for variant in order:
            m = run_loop(paths, variant)
            runs[variant].append(m)
            print(f"  {variant:22} CPU {m['cpu_s']:6.1f} s (loop user {m['user_s']:5.1f}"
                  f" + sys {m['sys_s']:5.1f}, checks {m['children_s']:5.1f}),"
                  f" {m['minor_faults'] / 1e6:.2f} M minor faults, peak"
                  f" {m['peak_mb']:.0f} MB, load {m['load']:.1f}", flush=True)
    unstable = {p for v in VARIANTS for m in runs[v][1:]
                for p, d in m["digests"].items() if d != runs[v][0]["digests"][p]}
    first = [runs[v][0]["digests"] for v in VARIANTS]
    differ = {p for p in first[0] if first[0][p] != first[1][p]} - unstable
    base, other = (statistics.median(m["cpu_s"] for m in runs[v]) for v in VARIANTS)
    print(f"median CPU: {VARIANTS[0]} {base:.1f} s, {VARIANTS[1]} {other:.1f} s"
          f" ({other / base:.2f}x); outputs differing between the variants: {len(differ)}"
          f" of {len(paths)} ({len(unstable)} not deterministic, left out)")
    for path in sorted(differ):
        print(f"  differs: {path}")
    if args.json:
        args.json.write_text(json.dumps({v: [{k: x for k, x in m.items() if k != "digests"}
                                             for m in runs[v]] for v in VARIANTS}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
