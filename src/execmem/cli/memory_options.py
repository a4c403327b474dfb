"""Command-line options for memory systems, shared by ``vehicle audit`` and ``vehicle run``."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any

import typer

from execmem.core.jsonl import JsonlError, loads


class Window(StrEnum):
    hour = "hour"
    turn = "turn"
    window = "window"


WindowLinesOption = Annotated[int, typer.Option(min=1, help="Lines per unit with --window window.")]
MemoryOptionsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--memory-option",
        help="KEY=VALUE passed to the memory system (VALUE read as JSON when it parses), repeatable.",
    ),
]


def windowing(window: Window, window_lines: int) -> dict[str, Any]:
    """The ``windowing`` config a memory system is given."""
    if window is Window.window:
        return {"mode": window.value, "window_lines": window_lines}
    return {"mode": window.value}


def parse_memory_options(pairs: list[str] | None) -> dict[str, Any]:
    """``["cache_path=/x/e.sqlite", "rrf_k=30"]`` -> ``{"cache_path": "/x/e.sqlite", "rrf_k": 30}``."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--memory-option")
        options[key.strip()] = _option_value(key.strip(), raw)
    return options


def _option_value(key: str, raw: str) -> Any:
    """``raw`` as JSON when it is JSON, else as text; JSON we do not take (NaN, a 5,000-digit
    integer, nesting 100k deep) is refused naming the option."""
    try:
        json.loads(raw)
    except json.JSONDecodeError:
        return raw
    except (ValueError, RecursionError):
        pass  # JSON, but not a value we take: loads says why
    try:
        return loads(raw, key)
    except JsonlError as exc:
        raise typer.BadParameter(str(exc), param_hint="--memory-option") from None


MAX_K = 1000


def parse_ks(text: str) -> list[int]:
    """``1,3,5,10`` -> [1, 3, 5, 10] (sorted, distinct, each from 1 to ``MAX_K``)."""
    hint = "'--top-k'"
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not all(part.isdigit() and len(part) <= 6 for part in parts):
        raise typer.BadParameter(f"{text[:40]!r} is not a list of numbers like 1,3,5,10", param_hint=hint)
    ks = sorted({int(part) for part in parts})
    if not ks or ks[0] < 1 or ks[-1] > MAX_K:
        raise typer.BadParameter(f"{text!r}: give at least one K, each from 1 to {MAX_K}", param_hint=hint)
    return ks
