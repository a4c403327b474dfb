"""A coding run folder: manifest, injected memory, finished episodes, infra errors, trajectories.

manifest.json        what the protocol fixes (see ``config.build_manifest``), plus versions,
                     the invocation and start/resume times
memory.json          each target's injected memory text and the tasks it was written from (a memory
                     system's run adds the ranking and the ingestion: runs.coding.layer_b)
memory-system/       a memory system's state and ingestion markers (Layer B runs)
episodes.jsonl       one line per finished (scored) episode: the commit point of an episode
infra_errors.jsonl   episodes that failed for the harness's reasons, with the traceback (re-run on resume)
trajectories/        one JSON-lines file per episode: opening messages, then one line per step
metrics.json         the aggregate, rewritten atomically
workspaces/          episode folders while they run (removed after scoring unless kept)
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from execmem.core.files import JsonlAppender, read_json_document, write_json_atomic
from execmem.core.text import slug
from execmem.runs.coding.config import FIXED_FIELDS
from execmem.runs.coding.layer_b.config import STATE_FOLDER
from execmem.runs.episode_log import NUMBER, EpisodeLog, Schema
from execmem.runs.identity import identity_mismatch

MANIFEST, MEMORY = "manifest.json", "memory.json"
_COMPARED = (*FIXED_FIELDS, "memory", "manifest_version")
EPISODE_SCHEMA: Schema = {
    "id": str,
    "resolved": (bool, int),
    "end_reason": str,
    **{
        key: NUMBER
        for key in ("steps", "input_tokens", "output_tokens", "commands", "agent_s", "memory_chars")
    },
    "model_errors": dict,
}
"""What metrics and compare read from each line of episodes.jsonl."""


def episode_id(instance_id: str, seed: int) -> str:
    return f"{instance_id}@{seed}"


def trajectory_path(folder: Path, identifier: str) -> Path:
    """Where an episode's trajectory is written in a run folder."""
    return folder / "trajectories" / f"{slug(identifier, keep='@')}.jsonl"


def manifest_problems(saved: dict[str, Any], current: dict[str, Any], fields=_COMPARED) -> list[str]:
    """Readable differences of ``fields`` between two manifests (empty when they agree)."""
    return identity_mismatch({k: saved.get(k) for k in fields}, {k: current.get(k) for k in fields})


class CodingRunStore(EpisodeLog):
    def __init__(self, folder: Path, manifest: dict[str, Any]) -> None:
        problems = partial(manifest_problems, current=manifest)
        super().__init__(folder, MANIFEST, manifest, problems, EPISODE_SCHEMA, own_files=(STATE_FOLDER,))
        self.manifest = self.document
        (folder / "trajectories").mkdir(exist_ok=True)

    def save_memory(self, memories: dict[str, dict[str, Any]]) -> None:
        write_json_atomic(self.folder / MEMORY, memories)

    def saved_memory(self) -> dict[str, dict[str, Any]]:
        """What memory.json holds (empty for a new run)."""
        path = self.folder / MEMORY
        return read_json_document(path) if path.exists() else {}

    def trajectory(self, identifier: str) -> JsonlAppender:
        """A fresh trajectory file for an episode (an earlier, unfinished attempt's is replaced)."""
        path = trajectory_path(self.folder, identifier)
        path.unlink(missing_ok=True)
        return JsonlAppender(path, durable=False)
