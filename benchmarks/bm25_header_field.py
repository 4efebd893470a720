"""The contextual header as its own BM25 field (issue 38, diagnostics): BM25F over a
chunk's text and its header (``header_for_text``: document label, heading path, table
lines), on one finished ragbeam run per dev domain.

    python benchmarks/bm25_header_field.py --ragbeam-output DIR \\
        --variants 1:1,1:0.25,0.75:0.25,1:0.25:0.5

A variant ``w:wl[:wlab]``: a term's frequency is ``tf(text) + w · tf(header)`` (the
label's terms ``wlab`` instead of ``w`` where given) and a chunk's length ``|text| + wl ·
|header|``, with bm25s's Lucene BM25 otherwise (k1 1.5, b 0.75, its idf). ``1:1`` is
today's BM25 over ``sparse_text_for`` (the same hits as ``retrieval.py``, checked);
``0:0`` the chunk text alone.

Why: the header is the same words in every chunk of a document or a section, so today
it lengthens each of them (BM25's length normalisation: a short evidence chunk under a
long path loses to a longer chunk) and counts its words like the text's. Weighted as its
own field it can name the document without either.

Scored as ``retrieval.py`` scores "what ragbeam indexes" (budget fill, evidence pages),
BM25 only, scopes ``all`` and ``doc``, 600 / 1,500 tokens; seconds a variant.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys
from collections import Counter
from collections.abc import Sequence

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np
from retrieval_bench import pipelines, score, sets
from retrieval_bench.pages import PageIndex, cached_page_texts

K1, B = 1.5, 0.75  # bm25s.BM25()'s defaults (method "lucene")


class HeaderFieldBM25:
    """BM25F over two fields: ``fields[i] = (text, header, label)`` of ``texts[i]``."""

    name = "bm25"

    def __init__(self, texts: Sequence[str], fields: dict[str, tuple[str, str, str]],
                 w: float, wl: float, wlab: float | None) -> None:
        from ragbeam.transforms.embed.lexical import tokenize

        self._tokenize = tokenize
        frequencies, lengths, df = [], [], Counter()
        for t in texts:
            body, header, label = fields.get(t, (t, "", ""))
            text_tf = Counter(tokenize(body))
            header_tf = Counter(tokenize(header)) if header else Counter()
            label_tf = Counter(tokenize(label)) if label and wlab is not None else Counter()
            path_tf = header_tf - label_tf
            tf = {k: text_tf[k] + w * path_tf[k] + (w if wlab is None else wlab) * label_tf[k]
                  for k in text_tf.keys() | header_tf.keys()}
            tf = {k: v for k, v in tf.items() if v > 0}
            frequencies.append(tf)
            lengths.append(sum(text_tf.values()) + wl * sum(header_tf.values()))
            df.update(tf.keys())
        self._n = len(texts)
        average = sum(lengths) / self._n if self._n else 1.0
        self._norm = [K1 * (1 - B + B * n / average) for n in lengths]
        self._idf = {k: math.log(1 + (self._n - d + 0.5) / (d + 0.5)) for k, d in df.items()}
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for i, tf in enumerate(frequencies):
            for k, v in tf.items():
                self._postings.setdefault(k, []).append((i, v))

    def rank(self, query: str) -> list[int]:
        scores = np.zeros(self._n)
        for term in self._tokenize(query):
            for i, v in self._postings.get(term, ()):
                scores[i] += self._idf[term] * v * (K1 + 1) / (v + self._norm[i])
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order if scores[i] > 0]


def main(argv: list[str] | None = None) -> int:
    import ragbeam.evaluate.retrieval as retrieval
    from ragbeam.transforms.embed.text import context_parts, header_for_text

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ragbeam-output", type=pathlib.Path, required=True,
                        help="DIR/<domain>: one finished run per dev domain")
    parser.add_argument("--data", type=pathlib.Path, default=sets.DEFAULT_DATA)
    parser.add_argument("--domains", default=",".join(sets.DEV_DOMAINS))
    parser.add_argument("--variants", default="1:1,0:0,1:0.25,0.75:0.25",
                        help="w:wl[:wlab], comma-separated")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args(argv)
    variants = [tuple(float(x) for x in v.split(":")) for v in args.variants.split(",") if v]

    fields: dict[str, tuple[str, str, str]] = {}
    current: dict = {}
    today = retrieval.make_retriever
    retrieval.make_retriever = lambda name, texts, cache=None, dense=None: (
        HeaderFieldBM25(texts, fields, *current["variant"]) if name == "bm25"
        else today(name, texts, cache, dense))

    results: dict = {}
    for domain in [d for d in args.domains.split(",") if d]:
        if sets.DOMAINS[domain].role != "dev":
            raise SystemExit(f"{domain} is not a dev domain")
        questions = sets.load_questions(domain)
        pages = {row["path"]: PageIndex(cached_page_texts(args.data / row["path"],
                                                          args.data / ".page-texts"))
                 for row in sets.document_rows(domain)}
        chunks = pipelines.ragbeam_chunks_from_run(args.ragbeam_output / domain, args.data)
        indexed = score.prepare("ragbeam-contextual", chunks, pages, contextual=True)
        fields.clear()
        for chunk, text in zip(indexed.chunks, indexed.index_texts, strict=True):
            header = header_for_text(chunk.context, chunk.text)
            if header:
                label = context_parts(chunk.context, chunk.heading_path)[0]
                fields[text] = (text[len(header) + 2:], header, label)
        for variant in variants:
            w, wl, *rest = variant
            current["variant"] = (w, wl, rest[0] if rest else None)
            tally = score.score(indexed, questions, "bm25")
            cells = [tally[s][str(b)]["hits"] for s in score.SCOPES for b in score.BUDGETS]
            results.setdefault(":".join(f"{x:g}" for x in variant), {})[domain] = cells
            print(f"{domain} {variant}: {cells}", file=sys.stderr, flush=True)

    print("| variant (w:wl[:wlab]) | " + " | ".join(results[next(iter(results))])
          + " | all domains |")
    print("| --- |" + " ---: |" * (len(results[next(iter(results))]) + 1))
    for name, by_domain in results.items():
        total = [sum(cells[i] for cells in by_domain.values()) for i in range(4)]
        print(f"| {name} | " + " | ".join(" / ".join(map(str, c)) for c in by_domain.values())
              + f" | {' / '.join(map(str, total))} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
