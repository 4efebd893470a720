"""Checks on ``--previous DIR`` before Beam starts (wherever it is: ``storage.py``)."""

from __future__ import annotations

import json
import os

from ragbeam.transforms import storage

# What an incremental run reads from the previous run's output.
PREVIOUS_TABLES = ("documents", "chunks")


def _same_location(a: str, b: str) -> bool:
    if "://" in a or "://" in b:
        return a.rstrip("/") == b.rstrip("/")
    return os.path.realpath(a) == os.path.realpath(b)


def _read_run_json(run: str) -> dict:
    return json.loads(storage.read_bytes(storage.join(run, "run.json")).decode("utf-8"))


def previous_run_problem(previous: str, output: str) -> str | None:
    """Why ``previous`` cannot serve as the previous run, in words; None if it can.

    It must be a completed run (``run.json`` is written last) with its tables, and
    it must not be the new output, which is cleared before the pipeline reads it.
    """
    if _same_location(previous, output):
        return ("must differ from --output: the new run replaces its output before "
                "reading the previous one; write each run to a new directory")
    try:
        run_json = storage.join(previous, "run.json")
        if not storage.exists(run_json):
            return "is not a completed ragbeam run (no run.json)"
        written = _read_run_json(previous).get("files") or {}
        for table in PREVIOUS_TABLES:
            pattern = storage.join(previous, table, "*.parquet")
            found = len(storage.match(pattern))
            if not found:
                return f"has no {table} table ({pattern} matches nothing)"
            # Its rows are carried over as they are, document by document, without
            # being counted again: a table missing a file would lose rows for good.
            if table in written and found != written[table]:
                return (f"is damaged: its run.json lists {written[table]} {table} files, "
                        f"{pattern} matches {found}")
    except Exception as exc:  # unknown scheme, missing bucket, no permission…
        return f"cannot be read: {exc}"
    return None


def foreign_previous_problem(previous: str, input_root: str, namespace: str, id_mode: str
                             ) -> str | None:
    """Why ``previous`` looks like a run over another corpus, in words; None if not.

    Documents meet their previous rows by doc id, a hash of the path below the input
    root, the namespace and the id mode: a previous run of other inputs would take
    same-named files as unchanged and every other one as deleted. Runs older than
    this check recorded no root: only their namespace and id mode are compared.
    """
    try:
        before = _read_run_json(previous)
    except Exception as exc:
        return f"cannot be read: {exc}"
    ids = before.get("ids") or (before.get("config") or {}).get("ids") or {}
    now = {"input root": input_root, "namespace": namespace, "id mode": id_mode}
    then = {"input root": before.get("input_root"), "namespace": ids.get("namespace"),
            "id mode": ids.get("mode")}
    differ = [name for name in now if then[name] is not None and then[name] != now[name]]
    if not differ:
        return None
    return ("is a run over another corpus: its " + ", ".join(
        f"{name} is {then[name]!r}, this run's {now[name]!r}" for name in differ)
        + "; matching its documents by id would take same-named files as unchanged and "
          "every other one as deleted. If that is intended (the same corpus mounted "
          "elsewhere), pass --accept-foreign-previous")


# Settings that say where and how this run goes, not what it makes: never "an option
# that differs from the previous run's".
_RUN_ONLY_SETTINGS = frozenset({"input", "output", "previous", "overwrite", "take_over",
                                "beam", "accept_foreign_previous", "preflight"})
# Fingerprint fields that no option sets: named when they differ.
_IMPLICIT_FIELDS = {"ragbeam": "ragbeam's version", "format_version": "the output format version",
                    "extractor": "the extractor (iscc-tika release or Tika server version)"}


def option_flag(setting: str) -> str:
    """The command-line flag of a setting (``settings.py`` names them so)."""
    return "--" + setting.replace("_", "-")


def option_differences(previous: dict, settings: dict, fingerprint: dict) -> list[str]:
    """What differs between a previous run's ``run.json`` and this run: each option
    (``effective_config``) as ``--flag OLD → NEW``, then what no option sets (ragbeam's
    version, the extractor) from its ``config``. Runs before ``effective_config``
    was recorded give only the latter."""
    out = []
    before = previous.get("effective_config") or {}
    for name in sorted(set(before) | set(settings)):
        if name in _RUN_ONLY_SETTINGS or name not in before or name not in settings:
            continue
        if before[name] != settings[name]:
            out.append(f"{option_flag(name)} {_shown(before[name])} → {_shown(settings[name])}")
    old_config = previous.get("config") or {}
    for name, what in _IMPLICIT_FIELDS.items():
        if name in old_config and old_config.get(name) != fingerprint.get(name):
            out.append(f"{what} {_shown(old_config.get(name))} → {_shown(fingerprint.get(name))}")
    return out


def _shown(value: object) -> str:
    if isinstance(value, dict):
        return " ".join(f"{v}" for v in value.values() if v is not None) or "-"
    return "-" if value is None or value == [] else json.dumps(value, ensure_ascii=False)
