"""A run folder: config, finished episodes, infrastructure failures, metrics, trajectories.

config.json          what the run measures, how it was called, versions, start/resume times
episodes.jsonl       one line per finished (scored) episode
infra_errors.jsonl   episodes the endpoint could not serve, with the reason (re-run on resume)
metrics.json         the aggregate, rewritten atomically
memory/              each scenario's built memory and its cost
trajectories/        each episode's full message list (gzip JSON)
"""

from __future__ import annotations

import json
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from execmem import __version__
from execmem.runs.files import JsonlAppender, read_jsonl, write_json_atomic
from execmem.runs.vehicle_config import VehicleRunConfig, identity_mismatch


class RunFolderError(Exception):
    """The folder holds a run that this command cannot continue."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def check_resumable(folder: Path, config: VehicleRunConfig) -> dict[str, Any] | None:
    """The saved config of the run in ``folder`` (None if there is none yet).

    Raises RunFolderError when the folder holds a run with a different identity,
    before anything is written there.
    """
    path = folder / "config.json"
    if not path.exists():
        return None
    saved = json.loads(path.read_text(encoding="utf-8"))
    problems = identity_mismatch(saved["identity"], config.identity())
    if problems:
        raise RunFolderError(f"{folder} holds a different run; use another --out. " + "; ".join(problems))
    return saved


class RunStore:
    def __init__(self, folder: Path, config: VehicleRunConfig, components: dict[str, Any]) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._open_config(config, components)
        self.finished: dict[str, dict[str, Any]] = {e["id"]: e for e in read_jsonl(folder / "episodes.jsonl")}
        self._episodes = JsonlAppender(folder / "episodes.jsonl")
        self._infra = JsonlAppender(folder / "infra_errors.jsonl")
        self._trajectories = JsonlAppender(folder / "trajectories.jsonl", durable=False)

    def _open_config(self, config: VehicleRunConfig, components: dict[str, Any]) -> None:
        path = self.folder / "config.json"
        identity = config.identity()
        saved = check_resumable(self.folder, config)
        if saved is not None:
            saved["resumed_at"] = [*saved.get("resumed_at", []), _now()]
            saved["invocation"] = config.model_dump(mode="json")
            write_json_atomic(path, saved)
            return
        write_json_atomic(
            path,
            {
                "identity": identity,
                "invocation": config.model_dump(mode="json"),
                "components": components,
                "versions": {"execmem": __version__, "python": platform.python_version()},
                "started_at": _now(),
            },
        )

    def add_episode(self, record: dict[str, Any]) -> None:
        self._episodes.append(record)
        self.finished[record["id"]] = record

    def add_infra_error(self, record: dict[str, Any]) -> None:
        self._infra.append(record)

    def infra_errors(self) -> list[dict[str, Any]]:
        """Infrastructure failures not since resolved by a finished episode."""
        latest = {r["id"]: r for r in read_jsonl(self.folder / "infra_errors.jsonl")}
        return [r for key, r in latest.items() if key not in self.finished]

    def save_memory(self, scenario: int, record: dict[str, Any]) -> None:
        folder = self.folder / "memory"
        folder.mkdir(exist_ok=True)
        write_json_atomic(folder / f"scenario-{scenario}.json", record)

    def memory_records(self) -> dict[int, dict[str, Any]]:
        folder = self.folder / "memory"
        if not folder.exists():
            return {}
        return {int(p.stem.split("-")[1]): json.loads(p.read_text()) for p in folder.glob("scenario-*.json")}

    def save_trajectory(self, record: dict[str, Any]) -> None:
        """Written before the episode line, which is the commit point of an episode."""
        self._trajectories.append(record)

    def trajectories(self) -> dict[str, dict[str, Any]]:
        return {t["id"]: t for t in read_jsonl(self.folder / "trajectories.jsonl")}

    def write_metrics(self, metrics: dict[str, Any]) -> None:
        write_json_atomic(self.folder / "metrics.json", metrics)

    def close(self) -> None:
        for appender in (self._episodes, self._infra, self._trajectories):
            appender.close()
