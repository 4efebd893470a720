"""One scheduled re-indexing run: a dated output folder, the newest completed run as ``--previous``.

    python reindex.py --output-root ROOT [--run-date YYYY-MM-DD] [--submit-only] \\
        --input gs://bucket/docs [other ragbeam options] [Beam options]

writes ``ROOT/<run date>/`` (chunks, documents, errors, changes, run.json) and
passes the newest earlier folder under ROOT that holds a ``run.json`` as
``--previous``, so unchanged documents are carried over and ``changes/`` lists
what to upsert and delete in the vector store. The first run has no previous.

Every scheduler in deploy/schedule/ (Airflow, Kubernetes CronJob, Cloud Scheduler
via the Flex Template) runs this file, so they share one set of rules:

* ``--run-date`` defaults to today (UTC); Airflow passes its logical date.
* A retry of a date whose run completed (``run.json`` present) does nothing and
  succeeds; a retry of an interrupted run replaces its partial tables.
* ``--submit-only`` submits and returns without waiting (a Flex Template launcher
  must not wait for its job); the pipeline then writes ``run.json`` itself.
* ragbeam options may be spelled with underscores (``--max_file_bytes``), as
  Airflow's ``pipeline_options`` and Flex Template parameters produce them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from collections.abc import Iterable, Sequence

DATE_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def plan_run(root: str, run_date: dt.date, completed: Iterable[str]) -> tuple[str, str | None]:
    """The output folder for ``run_date`` and the ``--previous`` for it (None: first run).

    ``completed`` are the names of folders under ``root`` that hold a run.json.
    Only earlier dates count: re-running an old date never reads a newer run.
    """
    name = run_date.isoformat()
    earlier = sorted(c for c in completed if DATE_FOLDER.match(c) and c < name)
    previous = f"{root}/{earlier[-1]}" if earlier else None
    return f"{root}/{name}", previous


def completed_run_names(root: str) -> list[str]:
    """Folders directly under ``root`` (any Beam filesystem) that hold a run.json."""
    from apache_beam.io.filesystems import FileSystems

    matches = FileSystems.match([FileSystems.join(root, "*", "run.json")])[0].metadata_list
    return sorted({m.path.rstrip("/").split("/")[-2] for m in matches})


def ragbeam_option_names() -> set[str]:
    """Long option names ``ragbeam run`` defines (``--max-file-bytes``…)."""
    from ragbeam.pipeline.settings import flag_names

    return set(flag_names())


def hyphenate_ragbeam_options(argv: Sequence[str], known: set[str]) -> list[str]:
    """``--max_file_bytes=5`` → ``--max-file-bytes=5`` for ragbeam's own options.

    Beam's options (``--temp_location``) keep their underscores.
    """
    out = []
    for arg in argv:
        name, eq, value = arg.partition("=")
        hyphenated = name.replace("_", "-")
        out.append(hyphenated + eq + value if name.startswith("--") and hyphenated in known
                   else arg)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output-root", "--output_root", required=True,
                        help="folder (any Beam filesystem) holding one folder per run date")
    parser.add_argument("--run-date", "--run_date", type=dt.date.fromisoformat,
                        help="YYYY-MM-DD (default: today, UTC)")
    parser.add_argument("--submit-only", "--submit_only", action="store_true",
                        help="submit the job and return without waiting for it")
    args, rest = parser.parse_known_args(argv)
    rest = hyphenate_ragbeam_options(rest, ragbeam_option_names())
    for forbidden in ("--output", "--previous", "--overwrite"):
        if any(a == forbidden or a.startswith(forbidden + "=") for a in rest):
            parser.error(f"{forbidden} is chosen by reindex.py from --output-root")

    root = args.output_root.rstrip("/")
    run_date = args.run_date or dt.datetime.now(dt.UTC).date()
    completed = completed_run_names(root)
    output, previous = plan_run(root, run_date, completed)
    if run_date.isoformat() in completed:
        print(f"reindex: {output} is already a completed run; nothing to do")
        return 0
    # --overwrite: the dated folder is ours; anything in it is an interrupted attempt.
    run_argv = [*rest, "--output", output, "--overwrite",
                *(["--previous", previous] if previous else [])]
    print(f"reindex: {output} (previous: {previous or 'none, first run'})")
    from ragbeam.pipeline.run import exit_code_for, request_from_argv, run_pipeline

    try:
        request = request_from_argv(run_argv, wait=not args.submit_only,
                                    show_progress=True)
        result = run_pipeline(request)
    except Exception as exc:  # exit 2: nothing ran; 1: the run failed
        print(f"reindex: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return exit_code_for(exc)
    if not args.submit_only:
        summary = result.summary
        print(f"reindex: {summary['files_matched']} files → {summary['documents_ok']} ok, "
              f"{summary['documents_error']} error, {summary['documents_stale']} stale; "
              f"{summary['chunks']} chunks; {output}/run.json (outcome: {summary['outcome']})")
        return result.exit_code
    print(f"reindex: submitted; the job writes {output}/run.json when it finishes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
