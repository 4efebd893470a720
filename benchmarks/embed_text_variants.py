"""What goes into the text BM25 and the dense model see (issue 38): header variants
scored on the retrieval benchmark from one finished ragbeam run per domain.

    python benchmarks/embed_text_variants.py --ragbeam-output DIR \\
        --domains reference,fujitsu-ja --variants full,none,label --retrievers bm25,dense,hybrid

Every variant is built from the run's own columns (``context``, ``heading_path``,
``text`` and the documents' title, kind and period), so no extraction runs again:
a variant costs one embedding pass (vectors cached in ``WORK/vectors-minilm.npz``).
Variants (the header is the chunk's contextual header; its table lines, a table's
title and header row, are kept by every variant that keeps a header):

* ``full``: the contextual header, then the text (``embed_text_for``);
* ``none``: the chunk text alone;
* ``label``: the document label (title · kind · period), then the text;
* ``label-last``: the label and the last heading of the path, then the text;
* ``path``: the heading path without the label, then the text;
* ``table``: a table chunk's table lines only (its title and header row), then the
  text: other chunks as ``none``;
* ``after``: the text, then the full header;
* ``once-words``: the full header's words (letters or digit runs, case folded) that
  the text does not hold, each once, then the text (BM25 counts a word the header
  repeats from the text twice);
* ``once``: the full header less its parts (label, headings, table lines) whose
  words the text already holds;
* ``VARIANT-notable``: any of them without the table lines;
* ``tableonce-VARIANT``: the table lines on a table's first piece only;
* ``VARIANT-next``: the variant's text, then the text of the chunk after it where that
  one is in the same section (same document, same headings): a chunk embedded with
  what follows it, charged and returned as itself.

Retrievers: ``bm25`` and ``dense`` over the variant; ``hybrid`` fuses BM25 over
``--sparse`` (default ``full``: the header BM25 has been measured to gain from)
with dense over the variant, and ``hybrid-same`` both over the variant.
Questions answered at 600 / 1,500 tokens; scopes ``all`` and ``doc`` as in
``retrieval.py``; each chunk is charged its text's tokens whatever it is indexed by.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from retrieval_bench import pipelines, score, sets
from retrieval_bench.pipelines import relative_doc

VARIANTS = ("full", "none", "label", "label-last", "path", "table", "after", "once",
            "once-words")
NO_TABLE = "-notable"
# "tableonce-VARIANT": a table's title and header row only on its first piece (the
# pieces of one table follow each other in the run's chunk order).
TABLE_ONCE = "tableonce-"
NEXT = "-next"


def _join(header: str, text: str) -> str:
    return f"{header}\n\n{text}" if header else text


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def variant_text(variant: str, label: str, headings: list[str], table_lines: list[str],
                 text: str) -> str:
    """The text a variant indexes for one chunk (``VARIANT-notable``: without the
    header's table lines)."""
    from ragbeam.transforms.embed.text import CONTEXT_SEPARATOR, embed_text_for

    if variant.endswith(NO_TABLE):
        variant, table_lines = variant[:-len(NO_TABLE)], []

    full_context = "\n".join(part for part in (
        CONTEXT_SEPARATOR.join(([label] if label else []) + headings), *table_lines) if part)
    if variant == "full":
        return embed_text_for(full_context, text)
    if variant == "none":
        return text
    if variant == "once-words":
        import re

        from ragbeam.transforms.charsets import CJK_CHAR

        word_pattern = re.compile(r"[^\W\d_]+|\d+")
        said = _folded(text)
        said_words = set(word_pattern.findall(said))
        seen: set[str] = set()
        fresh = []
        for word in word_pattern.findall(full_context.casefold()):
            # a CJK run has no spaces: held when the text holds it anywhere
            held = word in said if CJK_CHAR.search(word) else word in said_words
            if word not in seen and not held:
                seen.add(word)
                fresh.append(word)
        return f"{' '.join(fresh)}\n\n{text}" if fresh else text
    if variant == "once":
        said = _folded(text)
        kept_label = label if label and _folded(label) not in said else ""
        kept = [h for h in headings if _folded(h) not in said]
        lines = [line for line in table_lines if _folded(line) not in said]
        context = "\n".join(part for part in (
            CONTEXT_SEPARATOR.join(([kept_label] if kept_label else []) + kept), *lines)
            if part)
        return f"{context}\n\n{text}" if context else text
    if variant == "after":
        from ragbeam.transforms.embed.text import header_for_text

        header = header_for_text(full_context, text)
        return f"{text}\n\n{header}" if header else text
    path = {"label": [label], "label-last": [label, *headings[-1:]],
            "path": headings, "table": []}[variant]
    context = "\n".join(part for part in (
        CONTEXT_SEPARATOR.join(p for p in path if p), *table_lines) if part)
    return embed_text_for(context, text)


def followed_by_next(texts: list[str], sections: list[tuple], raw: list[str]) -> list[str]:
    """Each text, then the next chunk's own text (``raw``) where both chunks are in the
    same section (``sections``: document and headings, in the run's chunk order)."""
    return [f"{text}\n\n{raw[i + 1]}" if i + 1 < len(texts) and sections[i + 1] == sections[i]
            else text for i, text in enumerate(texts)]


def run_chunks(output: pathlib.Path, data: pathlib.Path):
    """The run's indexed chunks with what every variant needs: (doc, text, label,
    headings after the label, table lines), and how many contexts the rebuild missed."""
    from ragbeam.evaluate.run_data import load_run
    from ragbeam.transforms.embed.text import (
        CONTEXT_SEPARATOR,
        KIND_KEY,
        PERIOD_KEY,
        document_label,
        headings_after_label,
    )

    run = load_run(str(output), with_text=False)
    labels = {d.doc_id: document_label(d.title, d.metadata.get(KIND_KEY),
                                       d.metadata.get(PERIOD_KEY)) for d in run.documents}
    out, mismatched = [], 0
    for c in run.indexed_chunks:
        label = labels.get(c.doc_id, "")
        headings = headings_after_label(label, c.heading_path)
        first, _, rest = c.context.partition("\n")
        rebuilt = CONTEXT_SEPARATOR.join(([label] if label else []) + headings)
        if first != rebuilt:
            mismatched += 1
        table_lines = [line for line in rest.split("\n") if line] if rest else []
        if not rebuilt and first:  # no label, no path: the context is table lines only
            table_lines = [first, *table_lines]
        out.append((relative_doc(c.source_uri, data), c.text, label, headings, table_lines,
                    c.context))
    return out, mismatched


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ragbeam-output", type=pathlib.Path, required=True,
                        help="a finished run per domain: DIR/<domain>")
    parser.add_argument("--data", type=pathlib.Path, default=sets.DEFAULT_DATA)
    parser.add_argument("--work", type=pathlib.Path, required=True,
                        help="vector cache and results")
    parser.add_argument("--domains", default="reference")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--retrievers", default="bm25,dense,hybrid")
    parser.add_argument("--sparse", default="full",
                        help="what BM25 indexes inside `hybrid`")
    parser.add_argument("--extra-vectors", type=pathlib.Path, action="append", default=[],
                        help="other vector caches (.npz) to read vectors from")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)

    from ragbeam.evaluate.retrieval import EmbeddingCache

    args.work.mkdir(parents=True, exist_ok=True)
    cache = EmbeddingCache(model="minilm")
    vectors = args.work / "vectors-minilm.npz"
    for path in [vectors, *args.extra_vectors]:
        cache.load(path)
    out = args.json or args.work / "embed-text-variants.json"
    results = json.loads(out.read_text()) if out.is_file() else {"domains": {}}
    results.setdefault("runs", []).append({
        "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "load": [round(x, 2) for x in os.getloadavg()],
        "commit": subprocess.run(["git", "-C", str(sets.REPO), "rev-parse", "--short", "HEAD"],
                                 capture_output=True, text=True).stdout.strip(),
        "argv": sys.argv[1:]})
    variants = [v for v in args.variants.split(",") if v]
    retrievers = [r for r in args.retrievers.split(",") if r]
    for domain in [d for d in args.domains.split(",") if d]:
        if sets.DOMAINS[domain].role != "dev":
            raise SystemExit(f"{domain} is not a dev domain")
        questions = sets.load_questions(domain)
        _, page_indexes = pipelines.page_material(args.data, domain)
        chunks, mismatched = run_chunks(args.ragbeam_output / domain, args.data)
        print(f"{domain}: {len(chunks)} chunks, {mismatched} contexts not rebuilt exactly",
              file=sys.stderr)
        from retrieval_bench.chunks import BenchChunk

        bench = [BenchChunk(doc, text, context) for doc, text, _, _, _, context in chunks]
        base = score.prepare("ragbeam", bench, page_indexes)
        keep = {id(c) for c in base.chunks}
        rows = [c for c, b in zip(chunks, bench, strict=True) if id(b) in keep]

        def texts_of(variant: str, rows=rows) -> list[str]:
            if variant.endswith(NEXT):  # with the next chunk of the same section
                return followed_by_next(texts_of(variant[:-len(NEXT)]),
                                        [(doc, tuple(h)) for doc, _, _, h, _, _ in rows],
                                        [text for _, text, _, _, _, _ in rows])
            if variant.startswith(TABLE_ONCE):  # a table's lines on its first piece only
                variant, previous, out = variant[len(TABLE_ONCE):], None, []
                for doc, text, label, headings, table, _ in rows:
                    repeated = bool(table) and previous == (doc, table)
                    previous = (doc, table)
                    out.append(variant_text(variant, label, headings,
                                            [] if repeated else table, text))
                return out
            return [variant_text(variant, label, headings, table, text)
                    for _, text, label, headings, table, _ in rows]

        sparse = texts_of(args.sparse)
        domain_result = results["domains"].setdefault(domain, {"questions": len(questions)})
        for variant in variants:
            texts = texts_of(variant)
            if any(r in ("dense", "hybrid", "hybrid-same") for r in retrievers):
                before, started = os.times(), time.perf_counter()
                cache.encode(texts)
                after = os.times()
                cache.save(vectors)
                print(f"  {variant}: embedded in {time.perf_counter() - started:.0f} s wall, "
                      f"{after.user + after.system - before.user - before.system:.0f} s CPU "
                      f"(load {os.getloadavg()[0]:.2f})", file=sys.stderr)
            figures = domain_result.setdefault(variant, {})
            indexed = {  # BM25's texts, and the dense model's where they differ
                "bm25": (texts, None), "dense": (texts, None),
                "hybrid": (sparse, texts), "hybrid-same": (texts, None)}
            for retriever in retrievers:
                name = "hybrid" if retriever == "hybrid-same" else retriever
                index_texts, dense_texts = indexed[retriever]
                figures[retriever] = score.score(
                    score.Indexed(variant, base.chunks, index_texts, base.tokens, base.pages,
                                  dense_texts), questions, name, cache)
                cells = " ".join(f"{s} {figures[retriever][s]['600']['hits']}/"
                                 f"{figures[retriever][s]['1500']['hits']}"
                                 for s in score.SCOPES)
                print(f"  {domain} {variant} {retriever}: {cells}", file=sys.stderr)
            out.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    print(format_table(results))
    return 0


def format_table(results: dict) -> str:
    lines = ["| domain | variant | retriever | all 600 / 1,500 | doc 600 / 1,500 |",
             "| --- | --- | --- | ---: | ---: |"]
    for domain, by_variant in results["domains"].items():
        for variant, figures in by_variant.items():
            if variant == "questions":
                continue
            for retriever, f in figures.items():
                cells = [f"{f[s]['600']['hits']} / {f[s]['1500']['hits']}" for s in score.SCOPES]
                lines.append(f"| {domain} ({by_variant['questions']} q) | {variant} | "
                             f"{retriever} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
