"""What the report says of any run folder: its metrics (saved, or computed while it is not done)
and whether it is complete, in progress, unfinished or incomplete."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execmem.core.files import DamagedFileError, read_json_document

SAVED = "metrics.json"


@dataclass
class RunState:
    label: str
    metrics: dict[str, Any]
    metrics_source: str
    """``metrics.json``, or why the numbers were computed from ``episodes.jsonl``."""
    writing: bool
    """A process holds the folder's lock: the run is going on."""

    @property
    def complete(self) -> bool:
        return self.status().startswith("complete")

    def status(self) -> str:
        """complete, in progress, unfinished (stopped before its end) or incomplete (infra errors)."""
        block = self.metrics["episodes"]
        done = f"{block['finished']} of {block['expected']} episodes"
        if self.writing:
            return f"in progress: {done}"
        if self.metrics_source != SAVED and block["complete"]:
            return "complete (its metrics.json not written yet)"
        if self.metrics_source != SAVED:
            return f"unfinished: {done} (stopped before its end; re-run its command to resume)"
        if not block["complete"]:
            return f"incomplete: {done} ({block['infra_errors']} infra errors; re-run its command)"
        return "complete"


def saved_metrics(folder: Path, finished: int, writing: bool) -> dict[str, Any] | None:
    """The folder's metrics.json when it covers the ``finished`` episodes and no run is writing."""
    path = folder / SAVED
    try:
        found = read_json_document(path) if path.is_file() and not writing else None
    except DamagedFileError:  # torn by a kill, or being replaced: the episodes are what counts
        return None
    if not isinstance(found, dict) or not isinstance(found.get("episodes"), dict):
        return None
    return found if found["episodes"].get("finished") == finished else None


def computed_because(writing: bool) -> str:
    why = "the run is being written" if writing else "metrics.json is missing or older than episodes.jsonl"
    return f"computed from episodes.jsonl ({why})"
