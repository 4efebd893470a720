"""The contextual header as its own BM25 field (issue 38, diagnostics): BM25F over a
chunk's text and its header (``header_for_text``: document label, heading path, table
lines), on one finished ragbeam run per dev domain.

    python benchmarks/bm25_header_field.py --ragbeam-output DIR \\
        --variants 1:1,1:0.25,0.75:0.25,1:0.25:0.5

A variant ``w:wl[:wlab]``: a term's frequency is ``tf(text) + w · tf(header)`` (the
label's terms ``wlab`` instead of ``w`` where given) and a chunk's length ``|text| + wl ·
|header|``, with bm25s's Lucene BM25 otherwise (k1 1.5, b 0.75, its idf). ``1:1`` is
the BM25 over ``sparse_text_for`` before the header's length was weighed, ``1:0.5``
today's (``lexical.HEADER_LENGTH_WEIGHT``; each the same hits as ``retrieval.py``,
checked on the five dev domains); ``0:0`` the chunk text alone; a ``-once`` suffix
counts a header term at most once. A ``/…`` suffix says which chunks count in a term's
document frequency: ``/all`` every chunk that indexes it (the rule before 2026-12-07);
``/name`` (today's, ``lexical.bm25_terms``; the default) all but those that have it from
their document's title (the label's first part) alone; ``/unlabelled`` all but those that
have it from the label alone; ``/text`` those whose text holds it; ``/doclabel`` as
``/unlabelled``, a label's share of a term weighed by the documents whose labels hold it.

A named variant (``FIELDED``: ``rz2``, ``rz3-once-b0``, …) is Robertson & Zaragoza's
BM25F: each field's term frequency over its own length normalisation (its own ``b``,
its own average length over the index), weighted, summed, then saturated once with
``k1``; one idf. ``rz2``: the text and the whole header; ``rz3``: the text, the
document label and the heading path (with the table lines); ``-once``: a header
field counts a term at most once; ``-b0`` / ``-b1``: the header fields' length not /
fully normalised; ``rz3t``: a table's title and header row read with the text.

``--explain domain:qid,…`` prints, per variant, the chunks that fill the context
(``--budget``) ahead of the first evidence chunk, with their headers.

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
from retrieval_bench import rescore, score

K1, B = 1.5, 0.75  # bm25s.BM25()'s defaults (method "lucene")


class HeaderFieldBM25:
    """BM25F over two fields: ``fields[i] = (text, header, label)`` of ``texts[i]``."""

    name = "bm25"

    def __init__(self, texts: Sequence[str], fields: dict[str, tuple[str, str, str]],
                 w: float, wl: float, wlab: float | None, once: bool = False,
                 idf_from: str = "name") -> None:
        from ragbeam.transforms.embed.lexical import as_text, guess_language, tokenize, words_of
        from ragbeam.transforms.embed.text import LABEL_SEPARATOR

        self._tokenize = tokenize
        frequencies, lengths, df = [], [], Counter()
        shares: list[dict] = []
        labels: list[str] = []
        label_terms: dict[str, set] = {}
        for t in texts:
            body, header, label = fields.get(t, (as_text(t), "", ""))
            # one language for the chunk, guessed from both fields (as BM25 does)
            language = guess_language(words_of(as_text(t)))
            text_tf = Counter(tokenize(body, language))
            header_tf = Counter(tokenize(header, language)) if header else Counter()
            # the label's words the header holds (``sparse_fields_for`` leaves out those
            # the text holds)
            label_tf = (Counter(tokenize(label, language)) & header_tf if label
                        else Counter())
            path_tf = header_tf - label_tf
            if once:  # a header term counts at most once per chunk
                header_tf = Counter(dict.fromkeys(header_tf, 1))
                label_tf = Counter(dict.fromkeys(label_tf, 1))
                path_tf = header_tf - label_tf
            tf = {k: text_tf[k] + w * path_tf[k] + (w if wlab is None else wlab) * label_tf[k]
                  for k in text_tf.keys() | header_tf.keys()}
            tf = {k: v for k, v in tf.items() if v > 0}
            frequencies.append(tf)
            lengths.append(sum(text_tf.values()) + wl * sum(header_tf.values()))
            if idf_from == "doclabel":  # the label's terms weigh by documents (below)
                df.update(k for k in tf if text_tf[k] or path_tf[k])
                body = {k: text_tf[k] + w * path_tf[k] for k in tf}
                shares.append({k: (body[k] / v if v else 1.0) for k, v in tf.items()})
                full_label = fields.get(t, ("", "", ""))[2]
                labels.append(full_label)
                if full_label not in label_terms:
                    label_terms[full_label] = set(tokenize(full_label, language))
            elif idf_from == "name":  # the label's first part (the name) does not count
                name = label.split(LABEL_SEPARATOR)[0] if label else ""
                name_tf = Counter(tokenize(name, language)) & label_tf if name else Counter()
                df.update(k for k in tf if text_tf[k] or path_tf[k] or label_tf[k] > name_tf[k])
            elif idf_from == "all":
                df.update(tf.keys())
            elif idf_from == "unlabelled":  # the label's terms do not count
                df.update(k for k in tf if text_tf[k] or path_tf[k])
            else:  # "text": the chunk text's terms alone
                df.update(text_tf.keys())
        self._n = len(texts)
        average = sum(lengths) / self._n if self._n else 1.0
        self._norm = [K1 * (1 - B + B * n / average) for n in lengths]
        terms = {k for tf in frequencies for k in tf}
        self._idf = {k: math.log(1 + (self._n - max(df[k], 1) + 0.5) / (max(df[k], 1) + 0.5))
                     for k in terms}
        self._postings: dict[str, list[tuple[int, float]]] = {}
        self._weights: list[dict[str, float]] | None = None
        if idf_from == "doclabel":
            documents = len(label_terms)
            label_df = Counter(k for terms in label_terms.values() for k in terms)
            doc_idf = {k: math.log(1 + (documents - d + 0.5) / (d + 0.5))
                       for k, d in label_df.items()}
            # a term's weight in a chunk: the chunk idf for the share the text and
            # headings give, the document idf of the label's terms for the label's share
            self._weights = [{k: share * self._idf[k] + (1 - share) * doc_idf.get(k, self._idf[k])
                              for k, share in chunk_shares.items()} for chunk_shares in shares]
        for i, tf in enumerate(frequencies):
            for k, v in tf.items():
                self._postings.setdefault(k, []).append((i, v))

    def rank(self, query: str) -> list[int]:
        scores = np.zeros(self._n)
        for term in self._tokenize(query):
            for i, v in self._postings.get(term, ()):
                idf = self._weights[i][term] if self._weights is not None else self._idf[term]
                scores[i] += idf * v * (K1 + 1) / (v + self._norm[i])
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order if scores[i] > 0]



# Robertson & Zaragoza's BM25F ("The Probabilistic Relevance Framework: BM25 and Beyond",
# 2009, §3.5): each field's term frequency over its own length normalisation (its own b and
# average length), weighted, summed, then saturated once with k1; one idf over the chunk.
# A named variant: fields ("text", "header") or ("text", "label", "path"), their weights
# and b, whether a header field counts a term at most once, averages from the index.
FIELDED = {
    # two fields: the text and the whole header (label, heading path, table lines)
    "rz2": dict(fields=("text", "header"), w=(1, 1), b=(0.75, 0.75)),
    "rz2-once": dict(fields=("text", "header"), w=(1, 1), b=(0.75, 0.75), once=True),
    # the header's length not normalised (b 0: it says which section, not how verbose)
    "rz2-b0": dict(fields=("text", "header"), w=(1, 1), b=(0.75, 0)),
    "rz2-once-b0": dict(fields=("text", "header"), w=(1, 1), b=(0.75, 0), once=True),
    # three fields: the text, the document label, the heading path and table lines
    "rz3": dict(fields=("text", "label", "path"), w=(1, 1, 1), b=(0.75, 0.75, 0.75)),
    "rz3-once": dict(fields=("text", "label", "path"), w=(1, 1, 1), b=(0.75, 0.75, 0.75),
                     once=True),
    "rz3-b0": dict(fields=("text", "label", "path"), w=(1, 1, 1), b=(0.75, 0, 0)),
    "rz3-once-b0": dict(fields=("text", "label", "path"), w=(1, 1, 1), b=(0.75, 0, 0),
                        once=True),
    # the header's terms over its whole length (b 1: a long path weighs each heading less)
    "rz2-b1": dict(fields=("text", "header"), w=(1, 1), b=(0.75, 1)),
    "rz3-b1": dict(fields=("text", "label", "path"), w=(1, 1, 1), b=(0.75, 1, 1)),
    # a table's title and header row read as the chunk's own text (the column names of
    # its rows), the label and the heading path as fields
    "rz3t": dict(fields=("text", "label", "path"), w=(1, 1, 1), b=(0.75, 0.75, 0.75),
                 table_in_text=True),
    "rz3t-b0": dict(fields=("text", "label", "path"), w=(1, 1, 1), b=(0.75, 0, 0),
                    table_in_text=True),
}


class FieldedBM25:
    """BM25F (Robertson & Zaragoza) over ``fields[i] = (text, header, label)``."""

    name = "bm25"

    def __init__(self, texts: Sequence[str], fields: dict[str, tuple[str, str, str]],
                 spec: dict, k1: float = K1, averages: dict[str, float] | None = None) -> None:
        from ragbeam.transforms.embed.lexical import as_text, guess_language, tokenize, words_of

        self._tokenize = tokenize
        names, weights, bs = spec["fields"], spec["w"], spec["b"]
        once = spec.get("once", False)
        table_in_text = spec.get("table_in_text", False)
        per_chunk: list[dict[str, Counter]] = []
        for t in texts:
            body, header, label = fields.get(t, (as_text(t), "", ""))
            language = guess_language(words_of(as_text(t)))
            if table_in_text and "\n" in header:
                header, _, table = header.partition("\n")
                body = f"{table}\n{body}"
            text_tf = Counter(tokenize(body, language))
            header_tf = Counter(tokenize(header, language)) if header else Counter()
            label_tf = Counter(tokenize(label, language)) if label else Counter()
            split = {"text": text_tf, "header": header_tf, "label": label_tf,
                     "path": header_tf - label_tf}
            per_chunk.append({f: split[f] for f in names})
        n = len(texts)
        lengths = {f: [sum(c[f].values()) for c in per_chunk] for f in names}
        avg = averages or {f: (sum(v) / n if n else 1.0) or 1.0 for f, v in lengths.items()}
        df: Counter = Counter()
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for i, chunk in enumerate(per_chunk):
            pseudo: dict[str, float] = {}
            for f, w, b in zip(names, weights, bs, strict=True):
                norm = 1 - b + b * lengths[f][i] / avg[f]
                for term, tf in chunk[f].items():
                    tf = min(tf, 1) if once and f != "text" else tf
                    pseudo[term] = pseudo.get(term, 0.0) + w * tf / norm
            df.update(pseudo.keys())
            for term, v in pseudo.items():
                self._postings.setdefault(term, []).append((i, v * (k1 + 1) / (k1 + v)))
        self._n = n
        self._idf = {k: math.log(1 + (n - d + 0.5) / (d + 0.5)) for k, d in df.items()}

    def rank(self, query: str) -> list[int]:
        scores = np.zeros(self._n)
        for term in self._tokenize(query):
            for i, v in self._postings.get(term, ()):
                scores[i] += self._idf[term] * v
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order if scores[i] > 0]


def main(argv: list[str] | None = None) -> int:
    import ragbeam.evaluate.retrieval as retrieval
    from ragbeam.transforms.embed.text import context_parts

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rescore.add_run_arguments(parser)
    parser.add_argument("--variants", default="1:1,0:0,1:0.25,0.75:0.25",
                        help="w:wl[:wlab] or a BM25F name (" + ", ".join(FIELDED)
                        + "), comma-separated")
    parser.add_argument("--k1", type=float, default=K1, help="the BM25F variants' k1")
    parser.add_argument("--explain", help="domain:qid[,qid…]: the chunks that outrank the "
                        "evidence, per variant (scope all, 600 tokens)")
    parser.add_argument("--budget", type=int, default=600, help="--explain's budget")
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    show = 12 if args.budget > 600 else 4

    fields: dict[str, tuple[str, str, str]] = {}
    current: dict = {}
    today = retrieval.make_retriever

    def make(name, texts, cache=None, dense=None, text_vector=None):
        if name != "bm25":
            return today(name, texts, cache, dense, text_vector)
        variant = current["variant"]
        if variant in FIELDED:
            return FieldedBM25(texts, fields, FIELDED[variant], args.k1)
        spec, _, idf_from = variant.partition("/")
        once = spec.endswith("-once")
        w, wl, *rest = (float(x) for x in spec.removesuffix("-once").split(":"))
        return HeaderFieldBM25(texts, fields, w, wl, rest[0] if rest else None, once,
                               idf_from or "name")

    retrieval.make_retriever = make
    explain_domain, _, explain_ids = (args.explain or "").partition(":")
    domains = [explain_domain] if args.explain else [d for d in args.domains.split(",") if d]

    results: dict = {}
    hit_ids: dict = {}
    for domain, questions, _, indexed in rescore.indexed_domains(args, domains):
        fields.clear()
        # The header and the text as BM25 indexes them (``sparse_fields_for``: the label
        # less the words the rest holds, the text less note markers). Splitting the
        # joined text at ``header_for_text``'s length, as this did before, cut the text
        # wherever the label lost a word (12,324 of financebench's 20,038 chunks) and
        # counted the whole label: its "1:1" was not today's BM25 (financebench 22
        # questions at 600 tokens, all documents, where retrieval.py gives 24).
        for chunk, text in zip(indexed.chunks, indexed.index_texts, strict=True):
            if text.header:
                label = context_parts(chunk.context, chunk.heading_path)[0]
                fields[text] = (text.text, text.header, label)
        if args.explain:
            wanted = set(explain_ids.split(","))
            for q in (q for q in questions if q.id in wanted):
                print(f"== {q.id}: {q.question}")
                for variant in variants:
                    current["variant"] = variant
                    e = score.explain(indexed, q, "bm25", budget=args.budget, show=show)
                    print(f"-- {variant}: answered {e['answered']}, first evidence at rank "
                          f"{e['first_evidence_rank']} of {e['evidence_chunks']} evidence chunks")
                    shown = e["context"] + ([e["first_evidence_chunk"]]
                                            if e["first_evidence_chunk"] else [])
                    for view in shown:
                        head, _, body = view["indexed_text"].partition("\n\n")
                        print(f"   {'E' if view['evidence'] else ' '} {view['doc']} p"
                              f"{view['pages']} [{head[:200]!r}] {body[:140]!r}")
            continue
        for variant in variants:
            current["variant"] = variant
            tally = score.score(indexed, questions, "bm25")
            cells = rescore.cells_of(tally)
            results.setdefault(variant, {})[domain] = cells
            hit_ids.setdefault(variant, {})[domain] = {
                f"{s}/{b}": tally[s][str(b)]["hit_ids"] for s in score.SCOPES
                for b in score.BUDGETS}
            print(f"{domain} {variant}: {cells}", file=sys.stderr, flush=True)
    if not results:
        return 0

    rescore.print_cells(results)
    if args.json:
        args.json.write_text(json.dumps({"cells": results, "hit_ids": hit_ids}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
