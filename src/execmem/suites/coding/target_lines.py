"""The one reader of the coding suite's per-target JSON-lines files (the frozen file, given-text
files): one pydantic object per line, keyed by its ``target``, every problem an error naming the
file, the line and the field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from execmem.core.jsonl import JsonlError, read_jsonl
from execmem.core.pydantic_errors import first_error

Line = TypeVar("Line", bound=BaseModel)


def target_lines(path: Path, model: type[Line], error: type[ValueError]) -> Iterator[tuple[str, Line]]:
    """``(where, line)`` for each line of ``path`` read as ``model``; ``error`` for a line that is no
    such object, a target twice, bad JSON or an unreadable file."""
    seen: set[str] = set()
    try:
        for where, raw in read_jsonl(path):
            if not isinstance(raw, dict):
                raise error(f"{where}: expected a JSON object, got {type(raw).__name__}")
            try:
                line = model.model_validate(raw)
            except ValidationError as exc:
                raise error(f"{where}: {first_error(exc)}") from None
            target = line.target
            if target in seen:
                raise error(f"{where}: field target: duplicate {target!r}")
            seen.add(target)
            yield where, line
    except JsonlError as exc:
        raise error(str(exc)) from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror})") from None
