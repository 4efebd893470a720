"""What the scripts that score finished ragbeam runs again share
(``bm25_header_field.py``, ``store_sparse.py``): their arguments, each domain's chunks as
ragbeam indexes them, and the table of cells they print."""

from __future__ import annotations

import argparse
import pathlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from retrieval_bench import pipelines, score, sets


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """``--ragbeam-output``, ``--data``, ``--domains``, ``--json`` and ``--closing``."""
    parser.add_argument("--ragbeam-output", type=pathlib.Path, required=True,
                        help="DIR/<domain>: one finished run per dev domain")
    parser.add_argument("--data", type=pathlib.Path, default=sets.DEFAULT_DATA)
    parser.add_argument("--domains", default=",".join(sets.DEV_DOMAINS))
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--closing", action="store_true",
                        help="allow a closing domain (scored once, by the lead)")


def indexed_domains(args: argparse.Namespace, domains: Sequence[str]
                    ) -> Iterator[tuple[str, list, Any, Any]]:
    """Each domain's ``(name, questions, chunks, indexed)``: the run's chunks as ragbeam
    indexes them (``score.prepare``, the contextual header); a closing domain only with
    ``--closing``."""
    for domain in domains:
        if sets.DOMAINS[domain].role != "dev" and not args.closing:
            raise SystemExit(f"{domain} is not a dev domain")
        questions = sets.load_questions(domain)
        _, pages = pipelines.page_material(args.data, domain)
        chunks = pipelines.ragbeam_chunks_from_run(args.ragbeam_output / domain, args.data)
        yield domain, questions, chunks, score.prepare("ragbeam-contextual", chunks, pages,
                                                       contextual=True)


def cells_of(tally: Mapping[str, Any]) -> list[int]:
    """A tally's questions answered: all 600, all 1,500, doc 600, doc 1,500."""
    return [tally[s][str(b)]["hits"] for s in score.SCOPES for b in score.BUDGETS]


def print_cells(results: Mapping[str, Mapping[str, list[int]]]) -> None:
    """``{variant: {domain: cells}}`` as a Markdown table, with the domains' sums."""
    domains = list(next(iter(results.values())))
    print("| variant | " + " | ".join(domains) + " | all domains |")
    print("| --- |" + " ---: |" * (len(domains) + 1))
    for name, by_domain in results.items():
        total = [sum(cells[i] for cells in by_domain.values()) for i in range(4)]
        print(f"| {name} | " + " | ".join(" / ".join(map(str, c)) for c in by_domain.values())
              + f" | {' / '.join(map(str, total))} |")
