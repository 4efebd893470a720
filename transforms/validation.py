"""Config validation messages that name the key path of every problem."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import ValidationError


def key_path(location: tuple[Any, ...], prefix: str = "") -> str:
    """``("rules", 0, "params", "size")`` → ``routing.rules[0].params.size``."""
    path = prefix
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def validation_message(exc: ValidationError, prefix: str = "",
                       known_keys: dict[tuple[Any, ...], list[str]] | None = None) -> str:
    """Every problem of a pydantic validation error, ``; ``-separated, by key path.
    ``known_keys`` (location of a mapping → its valid keys) adds "did you mean"
    to unknown keys."""
    lines = []
    for error in exc.errors():
        location, kind, given = tuple(error["loc"]), error["type"], error.get("input")
        if kind == "extra_forbidden":
            message = "unknown key"
            candidates = (known_keys or {}).get(location[:-1], [])
            close = difflib.get_close_matches(str(location[-1]), candidates, n=1, cutoff=0.7)
            if close:
                message += f" (did you mean {close[0]!r}?)"
        elif kind == "missing":
            message = "required, but missing"
        else:
            shown = "" if isinstance(given, dict | list) else f" (got {given!r})"
            message = f"{error['msg']}{shown}"
        lines.append(f"{key_path(location, prefix)}: {message}")
    return "; ".join(lines)
