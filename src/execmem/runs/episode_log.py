"""What every run folder shares: its identity document, finished episodes and infrastructure failures.

episodes.jsonl       one line per finished (scored) episode: the commit point of an episode
infra_errors.jsonl   episodes the harness could not finish, with the reason (re-run on resume)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from execmem.runs.files import JsonlAppender, read_jsonl, write_json_atomic


class RunFolderError(Exception):
    """The folder holds a run that this command cannot continue."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


Problems = Callable[[dict[str, Any]], list[str]]


def saved_document(path: Path, problems: Problems) -> dict[str, Any] | None:
    """The run's saved identity document (None for a new run); RunFolderError, before anything is
    written, when ``problems(saved)`` names a difference from what this command would run."""
    if not path.exists():
        return None
    saved = json.loads(path.read_text(encoding="utf-8"))
    found = problems(saved)
    if found:
        raise RunFolderError(f"{path.parent} holds a different run; use another --out. " + "; ".join(found))
    return saved


def open_identity_document(path: Path, document: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """Write ``document`` for a new run; for a matching existing one, record this resume (time and
    invocation) and return the saved document."""
    saved = saved_document(path, problems)
    if saved is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, document)
        return document
    saved["resumed_at"] = [*saved.get("resumed_at", []), now()]
    saved["invocation"] = document["invocation"]
    write_json_atomic(path, saved)
    return saved


class EpisodeLog:
    """Finished episodes (latest line per id wins) and the infrastructure failures of a run folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.finished: dict[str, dict[str, Any]] = {e["id"]: e for e in read_jsonl(folder / "episodes.jsonl")}
        self._episodes = JsonlAppender(folder / "episodes.jsonl")
        self._infra = JsonlAppender(folder / "infra_errors.jsonl")

    def add_episode(self, record: dict[str, Any]) -> None:
        self._episodes.append(record)
        self.finished[record["id"]] = record

    def add_infra_error(self, record: dict[str, Any]) -> None:
        self._infra.append(record)

    def infra_errors(self) -> list[dict[str, Any]]:
        """Failures not since resolved by a finished episode (the latest per episode)."""
        latest = {r["id"]: r for r in read_jsonl(self.folder / "infra_errors.jsonl")}
        return [r for key, r in latest.items() if key not in self.finished]

    def write_metrics(self, metrics: dict[str, Any]) -> None:
        write_json_atomic(self.folder / "metrics.json", metrics)

    def close(self) -> None:
        self._episodes.close()
        self._infra.close()
