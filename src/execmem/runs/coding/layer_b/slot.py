"""From a system's search results to the slot: the ranking memory.json keeps and the injected text.

The slot takes the first ``top_k`` records of the ranking, skipping empty ones and any that names
the target (its instance id or issue number, ``identifier_leaks``), joins them by blank lines in
rank order and, with a cap, cuts the joined text to ``truncate_chars`` characters.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from execmem.core.protocols import MemoryItem
from execmem.core.tokens import estimate_tokens
from execmem.runs.coding.layer_b.ingest import history_ids
from execmem.suites.coding.history import TargetView, identifier_leaks

SEPARATOR = "\n\n"


def size(text: str | None) -> dict[str, int]:
    """Characters, lines and tokens (``core.tokens``' yardstick) of a text; zeros for none."""
    text = text or ""
    return {"chars": len(text), "lines": len(text.splitlines()), "tokens": estimate_tokens(text)}


def _json_safe(metadata: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(metadata, default=str))


def _item_history(item: MemoryItem, ranges: Sequence[dict[str, Any]]) -> list[str]:
    """The history items a record came from: its line ids, else ids the system put in metadata."""
    found = history_ids(item.line_ids, ranges)
    if found:
        return found
    named = item.metadata.get("history_ids") or item.metadata.get("history_id") or []
    return [named] if isinstance(named, str) else [str(n) for n in named]


def ranking(items: Sequence[MemoryItem], ranges: Sequence[dict[str, Any]], view: TargetView) -> list[dict]:
    """The system's results, best first, each with its size, score, history items and metadata."""
    entries = []
    for rank, item in enumerate(items, start=1):
        measured = size(item.text)
        entry = {"rank": rank, "text": item.text, "lines": measured["lines"], "tokens": measured["tokens"],
                 "score": float(item.score), "history_ids": _item_history(item, ranges),
                 "metadata": _json_safe(dict(item.metadata)), "injected": False}  # fmt: skip
        leaks = identifier_leaks(item.text, view)
        if leaks:
            entry["leaks"] = leaks
        entries.append(entry)
    return entries


def fill_slot(entries: list[dict], top_k: int, truncate_chars: int | None) -> tuple[str | None, list[str]]:
    """The slot text (None: nothing to inject) and the history items of the injected records; marks
    the injected entries."""
    chosen = [e for e in entries if e["text"].strip() and "leaks" not in e][:top_k]
    for entry in chosen:
        entry["injected"] = True
    if not chosen:
        return None, []
    text = SEPARATOR.join(entry["text"].strip() for entry in chosen)
    if truncate_chars is not None:
        text = text[:truncate_chars]
    sources = list(dict.fromkeys(h for entry in chosen for h in entry["history_ids"]))
    return text, sources
