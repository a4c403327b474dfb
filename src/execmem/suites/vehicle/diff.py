"""Compare flattened car states."""

from __future__ import annotations

from typing import Any


def values_equal(a: Any, b: Any) -> bool:
    """The scorer's equality: strings case-insensitively, everything else with ``==``."""
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return a == b


def strictly_equal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def state_diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every path that changed, with ``before``/``after`` (null on the missing side).

    Changes are strict (``1`` -> ``True`` counts); those the scorer cannot see
    are marked ``evaluator_equal``, and added/removed paths carry ``kind``.
    """
    out: dict[str, dict[str, Any]] = {}
    for path, old in before.items():
        if path not in after:
            out[path] = {"before": old, "after": None, "kind": "removed"}
            continue
        new = after[path]
        if not strictly_equal(old, new):
            entry: dict[str, Any] = {"before": old, "after": new}
            if values_equal(old, new):
                entry["evaluator_equal"] = True
            out[path] = entry
    for path, new in after.items():
        if path not in before:
            out[path] = {"before": None, "after": new, "kind": "added"}
    return out
