"""Retrieval benchmark (issue 38): ragbeam and its peers on public question sets over real
PDFs, every pipeline's chunks scored by evidence page with ragbeam's own retrievers.

    python benchmarks/retrieval.py --fetch --mirror-root /work/.mirror   # or --download
    python benchmarks/retrieval.py --setup-peers      # once: ../venvs/peers from PyPI
    python benchmarks/retrieval.py                    # ragbeam + peers on the dev domains
    python benchmarks/retrieval.py --only-ragbeam     # ragbeam again; peers from cache

Domains, question sets and how their evidence pages were mapped:
``retrieval_bench/sets.py`` and docs/evaluation.md. A closing domain is
scored once, at the end of a session, by the lead, and is worn after (``annual-reports``,
``earnings-calls``, ``health-plans``, ``ml-papers``, ``manuals-admin``, then
``financebench-heldout``, scored 2026-12-06); closing domains run only with
``--domains NAME --closing``.

For each domain and pipeline: hits (questions with a chunk from an evidence
page in the context) at 600 and 1,500 tokens, with BM25, dense (MiniLM) and
hybrid retrieval, over one index of all the domain's documents and over the
question's own document; per question kind (table / text / figure); wall and
CPU time of the pipeline on the domain's files. Prints Markdown tables and
writes every figure, per question, to ``--json`` (default
``WORK/results.json``).

To score another ragbeam checkout: run this from that worktree
(``PYTHONPATH=<its parent>``), or keep this one and pass
``--ragbeam-path <its parent>`` (and ``--ragbeam-python`` for another
environment), or score a finished run with ``--ragbeam-output DIR`` (a folder
with one run per domain, ``DIR/<domain>``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import shlex
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from retrieval_bench import pipelines, score, sets

DEFAULT_WORK = sets.REPO.parent / "data" / "retrieval-work"
RETRIEVERS = ("bm25", "dense", "hybrid")
PEER_LABELS = {
    "tika-langchain": "raw Tika + LangChain recursive 500/50 chars",
    "tika-langchain-tokens": "raw Tika + LangChain recursive 128/16 tokens",
    "tika-langchain-tokens-96": "raw Tika + LangChain recursive 96/12 tokens",
    "unstructured": "Unstructured fast + chunk_by_title",
    "pymupdf4llm": "pymupdf4llm + Markdown header splitter (500/50)",
}
LABELS = {"ragbeam": "ragbeam defaults (chunk text)",
          "ragbeam-contextual": "ragbeam defaults, what it indexes (BM25: header + text; "
                                "dense: label > nearest heading + text)",
          **PEER_LABELS,
          "pages": "PDF pages as chunks (PDFium text)",
          "oracle": "evidence pages as the context (scorer check)",
          "random": "random chunks (ragbeam's, floor)"}


def setup_peers(venv: pathlib.Path) -> int:
    folder = sets.REPO / "benchmarks" / "peers"
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = str(venv / "bin" / "pip")
    return (subprocess.run([pip, "install", "-r", str(folder / "requirements.txt")]).returncode
            or subprocess.run([pip, "install", "--no-deps", "-r",
                               str(folder / "requirements-nodeps.txt")]).returncode)


def run_domain(args, domain: str, cache) -> dict:
    data, work = args.data, args.work
    questions = sets.load_questions(domain)
    if args.limit:
        questions = questions[:args.limit]
    missing = sets.check(data, domain)
    if missing:
        raise SystemExit(f"{domain}: {len(missing)} PDFs missing or changed under {data} "
                         "(run with --fetch first)")
    page_texts, page_indexes = pipelines.page_material(data, domain)
    result: dict = {"questions": len(questions), "lang": sets.DOMAINS[domain].lang,
                    "role": sets.DOMAINS[domain].role,
                    "pages": sum(len(t) for t in page_texts.values()),
                    "documents": len(page_texts), "by_kind_questions": {},
                    "pipelines": {}}
    for q in questions:
        result["by_kind_questions"][q.kind] = result["by_kind_questions"].get(q.kind, 0) + 1
    prepared: list[tuple[score.Indexed, dict]] = []

    # ragbeam: a run now, or a finished one
    if "ragbeam" in args.pipelines:
        if args.ragbeam_output:
            output = args.ragbeam_output / domain
            if not (output / "run.json").is_file():
                output = args.ragbeam_output
            timing = {"output": str(output), "given": True}
        else:
            timing = pipelines.run_ragbeam(data, domain, work, args.ragbeam_python,
                                           args.ragbeam_path, shlex.split(args.ragbeam_args),
                                           args.cpus)
            output = pathlib.Path(timing["output"])
        chunks = pipelines.ragbeam_chunks_from_run(output, data)
        # A run made with --text-vector: what it embeds is two vectors a chunk, scored
        # by the closer one (its chunks schema says so; no flag of this benchmark).
        text_vectors = pipelines.ragbeam_text_vectors(output)
        timing = {**timing, **({"text_vectors": True} if text_vectors else {})}
        prepared.append((score.prepare("ragbeam", chunks, page_indexes), timing))
        prepared.append((score.prepare("ragbeam-contextual", chunks, page_indexes,
                                       contextual=True, text_vectors=text_vectors), timing))
    for peer in pipelines.PEERS:
        if peer not in args.pipelines:
            continue
        if args.only_ragbeam:
            found = sorted((args.peers_cache / peer).glob(f"{domain}-*.jsonl"),
                           key=lambda p: p.stat().st_mtime)
            if not found:
                continue
            path = found[-1]
            meta = path.with_suffix(".json")
            timing = {**(json.loads(meta.read_text()) if meta.is_file() else {}),
                      "cached": True}
        else:
            path, timing = pipelines.run_peer(peer, data, domain, args.peers_cache,
                                              args.peers_venv,
                                              args.cpus, args.refresh_peers)
        prepared.append((score.prepare(peer, pipelines.cached_chunks(path), page_indexes),
                         timing))
    if "pages" in args.pipelines:
        prepared.append((score.prepare("pages", pipelines.page_chunks(data, domain),
                                       page_indexes), {}))

    for indexed, timing in prepared:
        started = time.perf_counter()
        figures = {r: score.score(indexed, questions, r, cache) for r in args.retrievers}
        result["pipelines"][indexed.name] = {
            "chunks": len(indexed.chunks),
            "mean_tokens": round(sum(indexed.tokens) / max(1, len(indexed.tokens)), 1),
            "located_share": round(indexed.located_share, 4),
            "timing": timing, "retrieval": figures,
            "score_wall_s": round(time.perf_counter() - started, 1)}
        print(f"  {domain} {indexed.name}: {len(indexed.chunks)} chunks scored "
              f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if prepared:
        floor = next(i for i, _ in prepared)
        result["pipelines"]["random"] = {
            "chunks": len(floor.chunks), "of": floor.name,
            "retrieval": {"random": score.score(floor, questions, "random")}}
    result["pipelines"]["oracle"] = {"retrieval": {"oracle": score.oracle(
        questions, page_texts, page_indexes)}}
    return result


def explain(args, cache) -> int:
    """Print, per pipeline, the context of each question named by ``--explain``."""
    for spec in args.explain.split(","):
        domain, qid = spec.split(":", 1)
        question = next(q for q in sets.load_questions(domain) if q.id == qid)
        _, page_indexes = pipelines.page_material(args.data, domain)
        print(f"## {domain} {qid} ({question.kind}): {question.question}\n"
              f"evidence: {[(e.doc, e.pages) for e in question.evidence]}\n"
              f"answer: {question.answer[:300]!r}\n")
        candidates = []
        text_vectors = False
        if "ragbeam" in args.pipelines:
            output = (args.ragbeam_output / domain if args.ragbeam_output else max(
                (args.work / "ragbeam-runs").glob(f"{domain}-*"),
                key=lambda p: p.stat().st_mtime))
            if args.ragbeam_output and not (output / "run.json").is_file():
                output = args.ragbeam_output
            chunks = pipelines.ragbeam_chunks_from_run(output, args.data)
            text_vectors = pipelines.ragbeam_text_vectors(output)
            candidates += [("ragbeam", chunks, False),
                           ("ragbeam-contextual", chunks, True)]
        for peer in pipelines.PEERS:
            found = sorted((args.peers_cache / peer).glob(f"{domain}-*.jsonl"),
                           key=lambda p: p.stat().st_mtime)
            if peer in args.pipelines and found:
                candidates.append((peer, pipelines.cached_chunks(found[-1]), False))
        for name, chunks, contextual in candidates:
            indexed = score.prepare(name, chunks, page_indexes, contextual=contextual,
                                    text_vectors=contextual and text_vectors)
            for retriever in args.retrievers:
                e = score.explain(indexed, question, retriever, cache, args.explain_budget,
                                  args.explain_scope)
                print(f"### {name}, {retriever}, {args.explain_scope}, "
                      f"{args.explain_budget} tokens: {'ANSWERED' if e['answered'] else 'missed'}"
                      f" ({e['context_chunks']} chunks sent; first evidence chunk at rank "
                      f"{e['first_evidence_rank']}; {e['evidence_chunks']} chunks on evidence "
                      "pages)")
                for n, c in enumerate(e["context"], 1):
                    mark = "EVIDENCE" if c["evidence"] else "other"
                    print(f"  [{n}] {mark} {c['doc']} p{c['pages']} {c['tokens']} tok: "
                          f"{c['indexed_text'][:400]!r}")
                if e["first_evidence_chunk"] and not e["answered"]:
                    c = e["first_evidence_chunk"]
                    print(f"  first evidence chunk, rank {e['first_evidence_rank']}, "
                          f"p{c['pages']} {c['tokens']} tok: {c['indexed_text'][:600]!r}")
        print()
    return 0


def _cell(figures: dict, retriever: str, scope: str) -> str:
    r = figures.get(retriever)
    if not r:
        return "—"
    return " / ".join(str(r[scope][b]["hits"]) for b in ("600", "1500"))


def _time(timing: dict) -> str:
    # a peer's whole process (interpreter and imports included), as ragbeam's run is timed
    wall = timing.get("process_wall_s", timing.get("wall_s"))
    cpu = timing.get("process_cpu_s", timing.get("cpu_s"))
    if wall is None:
        return "—"
    return f"{wall:.0f} s / {cpu:.0f} s"


def format_domain(domain: str, result: dict, retrievers) -> str:
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(result["by_kind_questions"].items()))
    head = (f"### {domain} ({result['role']}, {result['lang']}): {result['questions']} "
            f"questions ({kinds}), "
            f"{result['documents']} PDFs, {result['pages']} pages\n\n"
            "Questions answered at 600 / 1,500 tokens; `all`: one index over every "
            "document; `doc`: that index's ranking filtered to the question's own "
            "document.\n")
    cols = [f"{r} {s}" for r in retrievers for s in score.SCOPES]
    lines = ["| pipeline | chunks | mean tokens | on a page | " + " | ".join(cols)
             + " | time (wall / CPU) |",
             "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in cols) + " | ---: |"]
    for name, p in result["pipelines"].items():
        figures = p["retrieval"]
        if name in ("random", "oracle"):
            key = name
            cells = [_cell({key: figures[key]}, key, s) for _ in retrievers for s in score.SCOPES]
        else:
            cells = [_cell(figures, r, s) for r in retrievers for s in score.SCOPES]
        label = LABELS.get(name, name)
        if name == "random" and p.get("of", "ragbeam") != "ragbeam":  # a run without ragbeam
            label = f"random chunks ({p['of']}'s, floor)"
        lines.append(f"| {label} | {p.get('chunks', '—')} | "
                     f"{p.get('mean_tokens', '—')} | "
                     + (f"{100 * p['located_share']:.0f} %" if "located_share" in p else "—")
                     + " | " + " | ".join(cells) + f" | {_time(p.get('timing', {}))} |")
    kinds = sorted(result["by_kind_questions"])
    if len(kinds) > 1:
        lines += ["", "By question kind, 600 tokens, all documents (" +
                  ", ".join(retrievers) + "):", "",
                  "| pipeline | " + " | ".join(kinds) + " |",
                  "| --- | " + " | ".join("---:" for _ in kinds) + " |"]
        for name, p in result["pipelines"].items():
            if name in ("random", "oracle"):
                continue
            cells = []
            for k in kinds:
                cells.append(" / ".join(
                    str(p["retrieval"][r]["all"]["600"]["by_kind"].get(k, [0, 0])[0])
                    for r in retrievers if r in p["retrieval"])
                    + f" of {result['by_kind_questions'][k]}")
            lines.append(f"| {LABELS.get(name, name)} | " + " | ".join(cells) + " |")
    return head + "\n" + "\n".join(lines) + "\n"


def format_totals(results: dict, retrievers) -> str:
    """Hits summed over the dev domains in ``results``, one row per pipeline."""
    domains = [d for d, r in results["domains"].items() if r["role"] == "dev"]
    if len(domains) < 2:
        return ""
    total = sum(results["domains"][d]["questions"] for d in domains)
    names = list(dict.fromkeys(n for d in domains for n in results["domains"][d]["pipelines"]))
    cols = [f"{r} {s}" for r in retrievers for s in score.SCOPES]
    lines = [f"### All dev domains ({', '.join(domains)}): {total} questions\n",
             "| pipeline | " + " | ".join(cols) + " |",
             "| --- | " + " | ".join("---:" for _ in cols) + " |"]
    for name in names:
        cells = []
        for r in retrievers:
            for scope in score.SCOPES:
                key = name if name in ("random", "oracle") else r
                counts = []
                for b in ("600", "1500"):
                    got = [results["domains"][d]["pipelines"].get(name, {}).get(
                        "retrieval", {}).get(key) for d in domains]
                    counts.append("—" if any(g is None for g in got) else
                                  str(sum(g[scope][b]["hits"] for g in got)))
                cells.append(" / ".join(counts))
        lines.append(f"| {LABELS.get(name, name)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def print_report(results: dict, out: pathlib.Path | None) -> None:
    retrievers = results["retrievers"]
    print(f"Retrieval benchmark, {results['started']} (commit {results['commit']}; load "
          f"{results['load_before'][0]} → {results.get('load_after', ['?'])[0]})\n")
    for domain, result in results["domains"].items():
        print(format_domain(domain, result, retrievers))
    print(format_totals(results, retrievers))
    if out:
        print(f"every figure, per question: {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=pathlib.Path, default=sets.DEFAULT_DATA,
                        help="where the PDFs are (default ../data/retrieval)")
    parser.add_argument("--work", type=pathlib.Path, default=DEFAULT_WORK,
                        help="runs, peers' cached chunks, vectors (default ../data/retrieval-work)")
    parser.add_argument("--fetch", action="store_true", help="fetch the PDFs and stop")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--mirror-root", type=pathlib.Path,
                        help="local git mirrors: DIR/<owner>+<name>/repo")
    source.add_argument("--download", action="store_true",
                        help="from raw.githubusercontent.com at the pinned commits")
    parser.add_argument("--setup-peers", action="store_true",
                        help="create the peers' venv from benchmarks/peers/requirements.txt")
    parser.add_argument("--build-sets", nargs="*", metavar="SOURCE",
                        help="maintainers: rebuild the committed question sets from mirrors")
    parser.add_argument("--domains", default=",".join(sets.DEV_DOMAINS),
                        help=f"comma-separated (default the dev domains: "
                             f"{','.join(sets.DEV_DOMAINS)})")
    parser.add_argument("--closing", action="store_true",
                        help="allow the closing domain (scored once, by the lead)")
    parser.add_argument("--pipelines", default=",".join(
        ["ragbeam", *pipelines.PEERS, "pages"]), help="comma-separated")
    parser.add_argument("--only-ragbeam", action="store_true",
                        help="run ragbeam only; peers' chunks from the cache when present")
    parser.add_argument("--retrievers", default=",".join(RETRIEVERS))
    parser.add_argument("--dense-model", choices=("minilm", "e5"), default="minilm")
    parser.add_argument("--ragbeam-python", default=sys.executable)
    parser.add_argument("--ragbeam-path", help="put first on ragbeam's PYTHONPATH "
                                               "(the parent folder of a ragbeam checkout)")
    parser.add_argument("--ragbeam-args", default="", help="extra `ragbeam run` options")
    parser.add_argument("--ragbeam-output", type=pathlib.Path,
                        help="score this finished run (DIR/<domain> or DIR) instead of running")
    parser.add_argument("--peers-venv", type=pathlib.Path, default=pipelines.DEFAULT_PEERS_VENV)
    parser.add_argument("--peers-cache", type=pathlib.Path, default=DEFAULT_WORK / "peers",
                        help="peers' chunks, shared by every --work "
                             "(default ../data/retrieval-work/peers)")
    parser.add_argument("--refresh-peers", action="store_true", help="ignore cached peer chunks")
    parser.add_argument("--cpus", help="taskset CPU list for every pipeline (e.g. 0)")
    parser.add_argument("--limit", type=int, help="first N questions per domain (smoke test)")
    parser.add_argument("--json", type=pathlib.Path, help="default WORK/results.json")
    parser.add_argument("--report", type=pathlib.Path,
                        help="print the tables of a results JSON again and stop")
    parser.add_argument("--explain", metavar="DOMAIN:ID[,…]",
                        help="print each pipeline's context for these questions (ragbeam's "
                             "newest run in WORK or --ragbeam-output; peers from the cache)")
    parser.add_argument("--explain-budget", type=int, default=600)
    parser.add_argument("--explain-scope", choices=score.SCOPES, default="all")
    args = parser.parse_args(argv)

    if args.report:
        print_report(json.loads(args.report.read_text(encoding="utf-8")), None)
        return 0
    if args.build_sets is not None:
        from retrieval_bench.build_sets import build_all

        build_all(args.mirror_root or pathlib.Path("/work/.mirror"), args.data,
                  args.build_sets or None)
        return 0
    if args.fetch:
        if not args.mirror_root and not args.download:
            parser.error("--fetch needs --mirror-root DIR or --download")
        return sets.fetch(args.data, list(sets.DOMAINS), args.mirror_root)
    if args.setup_peers:
        return setup_peers(args.peers_venv)

    domains = [d for d in args.domains.split(",") if d]
    for d in domains:
        if d not in sets.DOMAINS:
            parser.error(f"unknown domain {d!r} (known: {', '.join(sets.DOMAINS)})")
        if sets.DOMAINS[d].role == "closing" and not args.closing:
            parser.error(f"{d} is the closing held-out domain: scored once, at the end, "
                         "with --closing")
    args.pipelines = [p for p in args.pipelines.split(",") if p]
    if args.only_ragbeam:
        args.pipelines = [p for p in args.pipelines if p != "pages"]
    args.retrievers = [r for r in args.retrievers.split(",") if r]
    args.work.mkdir(parents=True, exist_ok=True)
    if not args.only_ragbeam and not args.explain \
            and any(p in pipelines.PEERS for p in args.pipelines) \
            and not (args.peers_venv / "bin" / "python").exists():
        parser.error(f"no peers' venv at {args.peers_venv}: run with --setup-peers first, "
                     "or --only-ragbeam")

    from ragbeam.evaluate.retrieval import EmbeddingCache

    cache = EmbeddingCache(model=args.dense_model)
    vectors = args.work / f"vectors-{args.dense_model}.npz"
    cache.load(vectors)
    if args.explain:
        return explain(args, cache)
    load = os.getloadavg()
    started = datetime.datetime.now(datetime.UTC)
    results = {"started": started.isoformat(timespec="seconds"),
               "load_before": [round(x, 2) for x in load],
               "commit": subprocess.run(["git", "-C", str(sets.REPO), "rev-parse", "--short",
                                         "HEAD"], capture_output=True, text=True).stdout.strip(),
               "retrievers": args.retrievers, "dense_model": args.dense_model,
               "budgets": list(score.BUDGETS), "domains": {}}
    out = args.json or args.work / "results.json"
    for domain in domains:  # the figures so far are written after each domain
        print(f"{domain} …", file=sys.stderr)
        results["domains"][domain] = run_domain(args, domain, cache)
        if any(r in ("dense", "hybrid") for r in args.retrievers):
            cache.save(vectors)
        results["load_after"] = [round(x, 2) for x in os.getloadavg()]
        out.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    print_report(results, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
