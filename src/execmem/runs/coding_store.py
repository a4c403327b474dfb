"""A coding run folder: manifest, injected memory, finished episodes, infra errors, trajectories.

manifest.json        what the protocol fixes (see ``coding_config.build_manifest``), plus versions,
                     the invocation and start/resume times
memory.json          each target's injected memory text and the tasks it was written from
episodes.jsonl       one line per finished (scored) episode: the commit point of an episode
infra_errors.jsonl   episodes that failed for the harness's reasons, with the traceback (re-run on resume)
trajectories/        one JSON-lines file per episode: opening messages, then one line per step
metrics.json         the aggregate, rewritten atomically
workspaces/          episode folders while they run (removed after scoring unless kept)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from execmem.runs.coding_config import FIXED_FIELDS, now
from execmem.runs.files import JsonlAppender, read_jsonl, write_json_atomic
from execmem.runs.vehicle_config import identity_mismatch

_COMPARED = (*FIXED_FIELDS, "memory", "manifest_version")


class RunFolderError(Exception):
    """The folder holds a run that this command cannot continue."""


def episode_id(instance_id: str, seed: int) -> str:
    return f"{instance_id}@{seed}"


def manifest_problems(saved: dict[str, Any], current: dict[str, Any], fields=_COMPARED) -> list[str]:
    """Readable differences of ``fields`` between two manifests (empty when they agree)."""
    return identity_mismatch({k: saved.get(k) for k in fields}, {k: current.get(k) for k in fields})


class CodingRunStore:
    def __init__(self, folder: Path, manifest: dict[str, Any]) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.manifest = self._open_manifest(manifest)
        self.finished = {e["id"]: e for e in read_jsonl(folder / "episodes.jsonl")}
        self._episodes = JsonlAppender(folder / "episodes.jsonl")
        self._infra = JsonlAppender(folder / "infra_errors.jsonl")
        (folder / "trajectories").mkdir(exist_ok=True)

    def _open_manifest(self, manifest: dict[str, Any]) -> dict[str, Any]:
        path = self.folder / "manifest.json"
        if not path.exists():
            write_json_atomic(path, manifest)
            return manifest
        saved = json.loads(path.read_text(encoding="utf-8"))
        problems = manifest_problems(saved, manifest)
        if problems:
            raise RunFolderError(
                f"{self.folder} holds a different run; use another --out. " + "; ".join(problems)
            )
        saved["resumed_at"] = [*saved.get("resumed_at", []), now()]
        saved["invocation"] = manifest["invocation"]
        write_json_atomic(path, saved)
        return saved

    def save_memory(self, memories: dict[str, dict[str, Any]]) -> None:
        write_json_atomic(self.folder / "memory.json", memories)

    def trajectory(self, identifier: str) -> JsonlAppender:
        """A fresh trajectory file for an episode (an earlier, unfinished attempt's is replaced)."""
        path = self.folder / "trajectories" / f"{_slug(identifier)}.jsonl"
        path.unlink(missing_ok=True)
        return JsonlAppender(path, durable=False)

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


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@-]+", "_", text)
