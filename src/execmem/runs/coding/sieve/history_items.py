"""Stage 3's artifact: the completed history trajectories, and which of them each target may use.

``stages/3-history/<key>/`` holds

* ``history.jsonl``: one :class:`HistoryItem` per completed history task (``instance_id``, ``repo``,
  ``created_at``, ``problem_statement``, ``trajectory`` (compressed), ``model_patch`` (the solver's
  final diff), ``resolved``, ``end_reason``, ``seed``); never a gold patch, test patch or test result;
* ``pools.json``: per target that reached stage 3, ``{"pool": [...], "kept": [...], "executed":
  [...], "eligible": [...]}``: its history pool, the candidates the screen kept, the tasks run for it
  and its *eligible* items (completed, carrying none of its identifiers), oldest first in ``pool``
  and in screen order in ``kept``;
* ``runs.json``: the coding run folder of each history task.

``eligible_history(out, target)`` is the one call a memory system needs (Layer B): the eligible items
of a target from the latest history stage of a SIEVE output folder, oldest first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from execmem.core.files import (
    DamagedFileError,
    atomic_write,
    complete_records,
    read_json_document,
    write_json_atomic,
)
from execmem.suites.coding.history import HistoryItem

ITEMS, POOLS, RUNS = "history.jsonl", "pools.json", "runs.json"
SIEVE_DOCUMENT = "sieve.json"


class HistoryArtifactError(ValueError):
    """A SIEVE folder without a readable history stage; the message names the file."""


def write_history(
    folder: Path, items: dict[str, HistoryItem], pools: dict[str, dict], runs: dict[str, str]
) -> None:
    with atomic_write(folder / ITEMS) as handle:
        for item in sorted(items.values(), key=lambda i: (i.created_at, i.instance_id)):
            handle.write(item.model_dump_json() + "\n")
    write_json_atomic(folder / POOLS, pools)
    write_json_atomic(folder / RUNS, runs)


def load_history(folder: Path) -> tuple[dict[str, HistoryItem], dict[str, dict[str, Any]]]:
    """A history stage folder's items (by id) and per-target pools."""
    try:
        items = {r["instance_id"]: HistoryItem.model_validate(r) for r in complete_records(folder / ITEMS)}
        pools = read_json_document(folder / POOLS)
    except (DamagedFileError, FileNotFoundError, ValueError) as exc:
        raise HistoryArtifactError(f"{folder}: not a readable SIEVE history stage ({exc})") from None
    return items, pools


def history_folder(out: Path) -> Path:
    """The history stage folder the latest pipeline run of ``out`` used."""
    try:
        document = read_json_document(out / SIEVE_DOCUMENT)
        return out / document["stages"]["3-history"]
    except (DamagedFileError, FileNotFoundError, KeyError, TypeError) as exc:
        raise HistoryArtifactError(f"{out / SIEVE_DOCUMENT}: no history stage recorded ({exc})") from None


def eligible_history(out: Path, target: str) -> list[HistoryItem]:
    """The target's eligible history items (oldest first); empty when it never reached stage 3."""
    items, pools = load_history(history_folder(out))
    eligible = pools.get(target, {}).get("eligible", [])
    return sorted((items[h] for h in eligible), key=lambda i: (i.created_at, i.instance_id))
