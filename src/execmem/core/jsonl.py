"""JSON-lines input with precise error locations."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO


class JsonlError(ValueError):
    """A line that is not valid JSON; the message names the source and line."""


def read_jsonl(source: Path | None) -> Iterator[tuple[str, Any]]:
    """``(where, record)`` for each non-blank line of a file, or of stdin when ``source`` is None or '-'."""
    if source is None or str(source) == "-":
        yield from _records(sys.stdin, "<stdin>")
        return
    with open(source, encoding="utf-8") as handle:
        yield from _records(handle, str(source))


def _records(handle: TextIO, name: str) -> Iterator[tuple[str, Any]]:
    for line_no, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        where = f"{name}:{line_no}"
        try:
            yield where, json.loads(line)
        except json.JSONDecodeError as exc:
            raise JsonlError(f"{where}: invalid JSON ({exc.msg}, column {exc.colno})") from None


def dumps(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False)
