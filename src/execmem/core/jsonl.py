"""JSON and JSON-lines input with precise error locations.

Whatever bytes a user hands in, reading either yields plain JSON values or raises
:class:`JsonlError` naming the source and line: bytes that are not UTF-8, invalid JSON,
nesting deeper than ``MAX_DEPTH``, integers longer than ``MAX_INT_DIGITS``, ``NaN`` and
``Infinity`` (and numbers too large for a float), and strings holding lone surrogates (which
cannot be written back out as UTF-8). Nothing past the reader has to guard against them.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

MAX_DEPTH = 100
"""Nesting of arrays and objects a record may have (real inputs use fewer than 10)."""
MAX_INT_DIGITS = 4300
"""Python's own default limit on converting integers to and from text."""
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonlError(ValueError):
    """Input that cannot be read as JSON; the message names the source and line."""


class _Rejected(ValueError):
    """Raised by the parser hooks; becomes a JsonlError with the location added."""


def read_jsonl(source: Path | None) -> Iterator[tuple[str, Any]]:
    """``(where, record)`` for each non-blank line of a file, or of stdin when ``source`` is None or '-'."""
    if source is None or str(source) == "-":
        yield from records(sys.stdin.buffer, "<stdin>")
        return
    with open(source, "rb") as handle:
        yield from records(handle, str(source))


def records(lines: Iterable[bytes], name: str) -> Iterator[tuple[str, Any]]:
    """``(where, record)`` for each non-blank line of raw ``lines`` (``where`` is ``name:line``)."""
    for line_no, raw in enumerate(lines, start=1):
        where = f"{name}:{line_no}"
        text = decode_utf8(raw, where)
        if text.strip():
            yield where, loads(text.rstrip("\r\n"), where)


def decode_utf8(data: bytes, where: str) -> str:
    """``data`` as text; JsonlError naming where the first byte that is not UTF-8 is."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        place = "" if line == 1 else f" line {line}:"
        byte = data[exc.start]
        raise JsonlError(f"{where}:{place} not UTF-8 text (byte 0x{byte:02x} at column {column})") from None


def loads(text: str, where: str) -> Any:
    """One JSON value from ``text``; JsonlError (``where: what``) for anything it cannot hold."""
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        line = "" if exc.lineno == 1 else f" line {exc.lineno}:"
        raise JsonlError(f"{where}:{line} invalid JSON ({exc.msg}, column {exc.colno})") from None
    except _Rejected as exc:
        raise JsonlError(f"{where}: {exc}") from None
    except RecursionError:
        raise JsonlError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels") from None
    problem = _shape_problem(value)
    if problem:
        raise JsonlError(f"{where}: {problem}")
    return value


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Rejected(f"an integer has {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Rejected(f"number {text[:40]} is too large")
    return value


def _constant(name: str) -> Any:
    raise _Rejected(f"{name} is not a JSON number")


def _shape_problem(value: Any) -> str | None:
    """Why a parsed value cannot be used (too deep, a lone surrogate), or None."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return f"JSON nested deeper than {MAX_DEPTH} levels"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "a string holds a lone surrogate (\\ud800-\\udfff), which is not text"
    return None


def dumps(record: Any) -> str:
    return json.dumps(record, ensure_ascii=False)


def without_lone_surrogates(value: Any) -> Any:
    """``value`` (parsed JSON) with every lone surrogate in its strings replaced by U+FFFD."""
    root = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if isinstance(item, str):
            holder[key] = _LONE_SURROGATE.sub("\ufffd", item)
        elif isinstance(item, list):
            stack.extend((item, index) for index in range(len(item)))
        elif isinstance(item, dict):
            holder[key] = {_LONE_SURROGATE.sub("\ufffd", name): child for name, child in item.items()}
            stack.extend((holder[key], name) for name in holder[key])
    return root[0]
