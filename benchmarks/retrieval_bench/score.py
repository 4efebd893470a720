"""Score a pipeline's chunks against a domain's questions, with ragbeam's own retrievers
and budget fill (``ragbeam.evaluate.retrieval``, ``ragbeam.evaluate.budget``).

A question is **answered** at a budget when the context the budget fill takes
from the top of the ranking holds a chunk that lies on one of the question's
evidence pages (``pages.PageIndex.pages_of``, the same attribution for every
pipeline). Every chunk is charged its text's cl100k tokens (the project's
sizer), whatever it is indexed by.

Scopes: ``all`` (one index over every document of the domain) and ``doc`` (the
same index, its ranking filtered to the question's own document(s): what a store
holding every document returns to a query filtered by document id; BM25's term
statistics stay the collection's, and hybrid fuses the filtered BM25 and dense
rankings, as a store's filtered prefetches are fused). Reference rows beside the
pipelines: ``oracle`` (the evidence pages' own text, cut to the budget, as
the whole context: the scorer's check, near 100 % unless a page has no text)
and ``random`` (a seeded random ranking of the first pipeline's chunks: the
floor).
"""

from __future__ import annotations

import hashlib
import random
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from retrieval_bench.chunks import BenchChunk
from retrieval_bench.pages import PageIndex
from retrieval_bench.sets import BenchQuestion

BUDGETS = (600, 1500)
SCOPES = ("all", "doc")


@dataclass
class Indexed:
    """One pipeline's chunks of one domain, ready to rank."""

    name: str
    chunks: list[BenchChunk]
    # What BM25 indexes: the text, or (contextual) a ``FieldedText``, header and text.
    index_texts: list
    tokens: list[int]
    pages: list[frozenset[int]]
    # What the dense model embeds, where it differs from ``index_texts`` (BM25's).
    dense_texts: list[str] | None = None
    # A second dense vector's text per chunk (a ragbeam run made with --text-vector:
    # the chunk text), the dense score the closer vector's (max-sim).
    text_vector_texts: list[str] | None = None

    @property
    def located_share(self) -> float:
        return sum(1 for p in self.pages if p) / len(self.pages) if self.pages else 0.0


def token_sizer():
    from ragbeam.transforms.chunk.sizing import make_sizer

    return make_sizer("tokens")


def prepare(name: str, chunks: Sequence[BenchChunk], page_indexes: Mapping[str, PageIndex],
            contextual: bool = False, text_vectors: bool = False) -> Indexed:
    """``contextual``: what ragbeam indexes (BM25: ``sparse_text_for``; dense:
    ``dense_text_for``); ``text_vectors`` (with it: a run made with ``--text-vector``)
    gives each chunk a second dense vector, of its text, scored by the closer one."""
    from ragbeam.transforms.embed.text import (
        dense_text_for,
        sparse_fields_for,
        text_vector_text_for,
    )

    sizer = token_sizer()
    kept = [c for c in chunks if c.doc in page_indexes]
    memo: dict[tuple[str, str], frozenset[int]] = {}
    pages = []
    for c in kept:
        key = (c.doc, c.text)
        if key not in memo:
            memo[key] = page_indexes[c.doc].pages_of(c.text)
        pages.append(memo[key])
    # contextual: what ragbeam indexes, BM25 and the dense model each their own text
    # (BM25's as its header and text: the header counts a fraction of a chunk's length)
    texts = [sparse_fields_for(c.context, c.text, c.heading_path) if contextual else c.text
             for c in kept]
    dense = ([dense_text_for(c.context, c.text, c.heading_path) for c in kept]
             if contextual else None)
    second = ([text_vector_text_for(c.text) for c in kept] if contextual and text_vectors
              else None)
    return Indexed(name, list(kept), texts, [sizer.size(c.text) for c in kept], pages, dense,
                   second)


def _dense_texts(indexed: Indexed, positions: Sequence[int]) -> list[str] | None:
    if indexed.dense_texts is None:
        return None
    return [indexed.dense_texts[i] for i in positions]


def _units(indexed: Indexed):
    from ragbeam.evaluate.budget import ContextUnit

    return [ContextUnit(str(i), c.doc, c.text, t)
            for i, (c, t) in enumerate(zip(indexed.chunks, indexed.tokens, strict=True))]


def _hit(question: BenchQuestion, context_ids: Sequence[int], indexed: Indexed) -> bool:
    wanted = question.evidence_pages
    return any((indexed.chunks[i].doc, p) in wanted
               for i in context_ids for p in indexed.pages[i])


def _tally(questions: Sequence[BenchQuestion], hits: Mapping[str, bool]) -> dict:
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for q in questions:
        by_kind[q.kind][0] += hits[q.id]
        by_kind[q.kind][1] += 1
    return {"hits": sum(hits.values()), "questions": len(questions),
            "by_kind": dict(sorted(by_kind.items())),
            "hit_ids": sorted(q for q, h in hits.items() if h)}


Ranker = Callable[[BenchQuestion, "frozenset[int] | None"], list[int]]


def _store_ranker(indexed: Indexed, retriever: str, cache=None) -> Ranker:
    """Rank every chunk of the domain, or only ``among`` them as a store's filter does:
    built once over all chunks; hybrid fuses the parts' filtered rankings."""
    from ragbeam.evaluate.retrieval import make_retriever, reciprocal_rank_fusion

    everything = range(len(indexed.chunks))
    names = ("bm25", "dense") if retriever == "hybrid" else (retriever,)
    parts = [make_retriever(name, indexed.index_texts, cache,
                            _dense_texts(indexed, everything), indexed.text_vector_texts)
             for name in names]

    def rank(question: BenchQuestion, among: frozenset[int] | None) -> list[int]:
        rankings = [part.rank(question.question) for part in parts]
        if among is not None:
            rankings = [[i for i in r if i in among] for r in rankings]
        return reciprocal_rank_fusion(rankings) if len(rankings) > 1 else rankings[0]
    return rank


def _random_ranker(size: int) -> Ranker:
    """A seeded shuffle of the chunks in scope (the floor)."""
    def rank(question: BenchQuestion, among: frozenset[int] | None) -> list[int]:
        order = sorted(among) if among is not None else list(range(size))
        seed = int(hashlib.sha256(question.id.encode()).hexdigest()[:8], 16)
        random.Random(seed).shuffle(order)
        return order
    return rank


def score(indexed: Indexed, questions: Sequence[BenchQuestion], retriever: str,
          cache=None, budgets: Sequence[int] = BUDGETS, scopes: Sequence[str] = SCOPES
          ) -> dict:
    """``{scope: {budget: tally}}`` for one retriever (``bm25``, ``dense``, ``hybrid``
    or ``random``)."""
    rank = (_random_ranker(len(indexed.chunks)) if retriever == "random"
            else _store_ranker(indexed, retriever, cache))
    started = time.process_time()
    out = score_rankings(indexed, questions, rank, budgets, scopes)
    out["cpu_s"] = round(time.process_time() - started, 2)
    return out


def score_rankings(indexed: Indexed, questions: Sequence[BenchQuestion], rank: Ranker,
                   budgets: Sequence[int] = BUDGETS, scopes: Sequence[str] = SCOPES) -> dict:
    """``{scope: {budget: tally}}`` for any ``rank(question, among)``: the budget fill
    over its ranking, ``among`` the question's documents' chunks in scope ``doc``."""
    from ragbeam.evaluate.budget import fill_context

    units = _units(indexed)
    by_doc: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(indexed.chunks):
        by_doc[c.doc].append(i)
    out: dict = {}
    for scope in scopes:
        hits = {b: {} for b in budgets}
        for q in questions:
            among = (frozenset(i for d in q.docs for i in by_doc.get(d, ()))
                     if scope == "doc" else None)
            ranking = rank(q, among)
            for b in budgets:
                context = fill_context(ranking, units, b)
                hits[b][q.id] = _hit(q, [int(u.chunk_id) for u in context.units], indexed)
        out[scope] = {str(b): _tally(questions, hits[b]) for b in budgets}
    return out


def oracle(questions: Sequence[BenchQuestion], page_texts: Mapping[str, Sequence[str]],
           page_indexes: Mapping[str, PageIndex], budgets: Sequence[int] = BUDGETS) -> dict:
    """The evidence pages' own text, each cut to its share of the budget, as the context;
    answered when the attribution puts that text back on an evidence page."""
    sizer = token_sizer()
    result = {}
    for b in budgets:
        hits = {}
        for q in questions:
            evidence = sorted(q.evidence_pages)
            share = max(1, b // len(evidence))
            found = False
            for doc, page in evidence:
                text = page_texts[doc][page - 1]
                text = text[:sizer.prefix_within(text, share)] if text.strip() else ""
                if any((doc, p) in q.evidence_pages for p in page_indexes[doc].pages_of(text)):
                    found = True
                    break
            hits[q.id] = found
        result[str(b)] = _tally(questions, hits)
    return {scope: result for scope in SCOPES}


def explain(indexed: Indexed, question: BenchQuestion, retriever: str, cache=None,
            budget: int = 600, scope: str = "all", show: int = 5) -> dict:
    """Why a question is (not) answered: the context's chunks (pages, evidence or not)
    and the best-ranked chunk that lies on an evidence page, with its rank."""
    from ragbeam.evaluate.budget import fill_context
    from ragbeam.transforms.embed.lexical import as_text

    among = (frozenset(i for i, c in enumerate(indexed.chunks) if c.doc in question.docs)
             if scope == "doc" else None)
    ranking = _store_ranker(indexed, retriever, cache)(question, among)
    context = fill_context(ranking, _units(indexed), budget)
    sent = [int(u.chunk_id) for u in context.units]

    def view(i: int) -> dict:
        c = indexed.chunks[i]
        return {"doc": c.doc, "pages": sorted(indexed.pages[i]), "tokens": indexed.tokens[i],
                "evidence": any((c.doc, p) in question.evidence_pages
                                for p in indexed.pages[i]),
                "indexed_text": as_text(indexed.index_texts[i])}

    on_evidence = [(rank, i) for rank, i in enumerate(ranking, 1)
                   if any((indexed.chunks[i].doc, p) in question.evidence_pages
                          for p in indexed.pages[i])]
    evidence_chunks = [i for i, c in enumerate(indexed.chunks)
                       if any((c.doc, p) in question.evidence_pages for p in indexed.pages[i])]
    return {"pipeline": indexed.name, "answered": _hit(question, sent, indexed),
            "context": [view(i) for i in sent[:show]], "context_chunks": len(sent),
            "first_evidence_rank": on_evidence[0][0] if on_evidence else None,
            "first_evidence_chunk": view(on_evidence[0][1]) if on_evidence else None,
            "evidence_chunks": len(evidence_chunks)}
