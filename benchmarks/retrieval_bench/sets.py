"""The benchmark's question sets: domains, their documents and questions, and fetching.

Each domain has two committed files under ``benchmarks/data/retrieval/<domain>/``:

* ``documents.csv``: every PDF with the repository, path and commit it comes
  from, its SHA-256, size and page count (``large_docs.csv``'s columns, so the
  one fetcher of benchmark corpora, ``large_docs.py``, brings them);
* ``questions.jsonl``: one question a line, with its evidence as
  ``{"doc": PATH, "pages": [1-based page numbers]}`` (made once by
  ``build_sets.py``; see docs/evaluation.md for the mapping rules), its
  ``kind`` (``table``, ``text`` or ``figure``: where the evidence sits), its
  language and how its evidence was mapped.

The PDFs themselves are never committed: ``fetch`` copies them from local git
mirrors or downloads them at the pinned commit into ``../data/retrieval``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import pathlib
import sys
from dataclasses import dataclass, field

REPO = pathlib.Path(__file__).resolve().parents[2]
SETS_DIR = REPO / "benchmarks" / "data" / "retrieval"
DEFAULT_DATA = REPO.parent / "data" / "retrieval"


@dataclass(frozen=True)
class Domain:
    name: str
    lang: str
    role: str  # "dev" (tuning: look at it freely) or "closing" (scored once, at the end)
    description: str


DOMAINS = {d.name: d for d in (
    Domain("financebench", "en", "dev",
           "FinanceBench (patronus-ai/financebench): 10-Ks, 10-Qs, 8-Ks and earnings "
           "releases; questions by financial analysts with evidence pages"),
    Domain("reference", "en", "dev",
           "Wikipedia articles printed to PDF and NLP papers from arXiv (UDA-Benchmark's "
           "examples): Natural Questions and FeTaQA questions on the articles, Qasper "
           "questions on the papers"),
    Domain("fujitsu-ja", "ja", "dev",
           "Japanese corporate reports (FujitsuResearch/Fujitsu-RAG-Hard-Benchmark): "
           "questions with annotated evidence pages"),
    Domain("sec-10-q", "en", "dev",
           "Twenty 10-Q filings (docugami/KG-RAG-datasets): single- and multi-document "
           "questions; evidence pages located from the answers' figures"),
    Domain("financial-qa-10k", "en", "dev",
           "Four 10-Ks (Apple FY2023, AMD FY2023, Alphabet FY2022, NVIDIA FY2024; "
           "cs50-i/Financial-QA-agent): virattt/financial-qa-10K's questions, each written "
           "from one passage; the passage located, the answer's figures checked on its page"),
    Domain("annual-reports", "en", "closing",
           "Six annual reports (UDA-Benchmark's examples): FinQA questions (page given) and "
           "TAT-QA questions (answer spans located); the first closing set, scored once on "
           "2026-12-04/05 and worn since (tuning data now)"),
    Domain("earnings-calls", "en", "closing",
           "Nine Snowflake earnings-call transcripts and one of Microsoft's "
           "(docugami/KG-RAG-datasets, 3e9ce57): human-written questions and answers "
           "naming the call; evidence pages located from the answers' quotes and figures; "
           "the second closing set (2026-12-05), scored and re-checked at the stops since, "
           "worn now (tuning data)"),
    Domain("health-plans", "en", "closing",
           "A fictitious employer's two health-plan benefit booklets (about 100 pages "
           "each, largely parallel in wording), employee handbook, role library and two "
           "short benefit sheets (Azure-Samples/azure-search-openai-demo, a7dfc64): its "
           "evaluation's 50 questions, whose answers cite their page; the cited page (or "
           "the next: the cited chunk runs on) kept where the answer's text is found; "
           "the third closing set (2026-12-06), built blind and scored, worn now "
           "(tuning data)"),
    Domain("ml-papers", "en", "closing",
           "Fifteen AI/ML research papers from arXiv (BERT, RoBERTa, DistilBERT, LLaMA, "
           "MMLU, SuperGLUE, HellaSwag, DetectGPT, Task2Vec, Megatron-LM, PAL, CodeNet "
           "and three without questions; predlico/ARAGOG, c41beba): its evaluation's "
           "questions, each naming its paper, with an answer that reads as an LLM's; "
           "the paper's pages holding the answer's words kept; "
           "the fourth closing set (2026-12-06), built blind and scored, worn now "
           "(tuning data)"),
    Domain("manuals-admin", "en", "closing",
           "Product manuals and user guides (two smartwatches, a phone, a 4K display, a "
           "MacBook Air, a coffee machine, a headset, a cloud storage service, a search "
           "tool, a city guide's chapter) and administrative files (court "
           "filings and opinions, a congressional hearing, a state agency's strategic "
           "plan, a federal IT business case, a course outline), MMLongBench-Doc's "
           "(mayubo2333/MMLongBench-Doc, d73f0dc) born-digital ones up to 200 pages: its "
           "annotated questions whose evidence is text, the pages the annotators give "
           "kept where the short answer is found; the fifth closing set (2026-12-06), "
           "built blind and scored, worn now (tuning data)"),
    Domain("financebench-heldout", "en", "closing",
           "A held-out split of a used source: FinanceBench's filings (10-Ks, 10-Qs, "
           "8-Ks, earnings releases; patronus-ai/financebench, cc39aeb) that the dev set "
           "financebench does not load, by fewest pages per question within 1,500 "
           "pages: its analysts' questions with their evidence pages, checked as the "
           "dev set's; the sixth closing set (2026-12-06), built blind and scored, "
           "worn now (tuning data)"),
)}
DEV_DOMAINS = tuple(n for n, d in DOMAINS.items() if d.role == "dev")
CLOSING_DOMAINS = tuple(n for n, d in DOMAINS.items() if d.role == "closing")


@dataclass(frozen=True)
class Evidence:
    doc: str
    pages: tuple[int, ...]


@dataclass(frozen=True)
class BenchQuestion:
    id: str
    domain: str
    question: str
    evidence: tuple[Evidence, ...]
    kind: str
    lang: str
    answer: str = ""
    mapping: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def docs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.doc for e in self.evidence))

    @property
    def evidence_pages(self) -> frozenset[tuple[str, int]]:
        return frozenset((e.doc, p) for e in self.evidence for p in e.pages)


def documents_csv(domain: str) -> pathlib.Path:
    return SETS_DIR / domain / "documents.csv"


def questions_jsonl(domain: str) -> pathlib.Path:
    return SETS_DIR / domain / "questions.jsonl"


def document_rows(domain: str) -> list[dict[str, str]]:
    with open(documents_csv(domain), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def load_questions(domain: str) -> list[BenchQuestion]:
    out = []
    for line in questions_jsonl(domain).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        obj = json.loads(line)
        out.append(BenchQuestion(
            id=obj["id"], domain=domain, question=obj["question"],
            evidence=tuple(Evidence(e["doc"], tuple(e["pages"])) for e in obj["evidence"]),
            kind=obj["kind"], lang=obj["lang"], answer=obj.get("answer", ""),
            mapping=obj.get("mapping", ""),
            extra={k: v for k, v in obj.items() if k not in {
                "id", "question", "evidence", "kind", "lang", "answer", "mapping"}}))
    return out


def domain_dir(data: pathlib.Path, domain: str) -> pathlib.Path:
    return data / domain


def fetch(data: pathlib.Path, domains: list[str], mirror_root: pathlib.Path | None) -> int:
    """Copy (``mirror_root``) or download each domain's PDFs, checking SHA-256."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from large_docs import _downloaded, _from_mirror

    bad = 0
    for domain in domains:
        rows = document_rows(domain)
        have = 0
        for row in rows:
            target = data / row["path"]
            if (target.is_file()
                    and hashlib.sha256(target.read_bytes()).hexdigest() == row["sha256"]):
                have += 1
                continue
            blob = _from_mirror(mirror_root, row) if mirror_root else _downloaded(row)
            digest = hashlib.sha256(blob).hexdigest()
            if digest != row["sha256"]:
                print(f"SHA-256 mismatch: {row['path']} ({digest} != {row['sha256']})",
                      file=sys.stderr)
                bad += 1
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
            have += 1
        pages = sum(int(r["pages"]) for r in rows)
        print(f"{domain}: {have} of {len(rows)} PDFs ({pages} pages) in {data / domain}")
    return 1 if bad else 0


def check(data: pathlib.Path, domain: str) -> list[str]:
    """The domain's PDFs that are missing or changed under ``data``."""
    missing = []
    for row in document_rows(domain):
        path = data / row["path"]
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != row["sha256"]:
            missing.append(row["path"])
    return missing
