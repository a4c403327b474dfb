"""A run folder: config, finished episodes, infrastructure failures, metrics, trajectories.

config.json          what the run measures, how it was called, versions, start/resume times
episodes.jsonl       one line per finished (scored) episode
infra_errors.jsonl   episodes the endpoint could not serve, with the reason (re-run on resume)
metrics.json         the aggregate, rewritten atomically
memory/              each scenario's built memory and its cost
trajectories.jsonl   each episode's full message list (a long scenario memory is referenced)
"""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Any

from execmem import __version__
from execmem.core.clock import now_iso
from execmem.core.files import (
    DamagedFileError,
    JsonlAppender,
    complete_records,
    read_json_document,
    write_json_atomic,
)
from execmem.runs.episode_log import NUMBER, EpisodeLog, Problems, Schema, saved_document, schema_problem
from execmem.runs.identity import CompareError, identity_mismatch
from execmem.runs.vehicle.config import VehicleRunConfig

CONFIG_FILE = "config.json"
# What a vehicle run makes in its folder before its store opens: the response cache and memory state.
OWN_FILES = (
    "responses.sqlite",
    "responses.sqlite-wal",
    "responses.sqlite-shm",
    "memory-system",
    "memory-builds",
)

EPISODE_SCHEMA: Schema = {
    "id": str,
    "scenario": int,
    "index": int,
    "reasoning_type": str,
    "exact_match": NUMBER,
    **{
        f"{metric}.{part}": NUMBER
        for metric in ("field", "value", "tool")
        for part in ("precision", "recall", "f1")
    },
    **{key: NUMBER for key in ("n_calls", "steps", "input_tokens", "output_tokens", "memory_tokens")},
    "model_errors": dict,
    "end_reason": str,
}
"""What metrics and compare read from each line of episodes.jsonl."""


CONFIG_SCHEMA: Schema = {"identity.model.model": str, "identity.memory": str, "identity.scenarios": list}
"""What readers of a finished run (compare, diagnose) need from its config.json."""


def read_config(folder: Path) -> dict[str, Any]:
    """A run folder's config.json, for reading the run; CompareError when it is missing, damaged
    or lacks what ``CONFIG_SCHEMA`` asks for."""
    path = folder / CONFIG_FILE
    if not path.is_file():
        raise CompareError(f"{folder} is not a vehicle run folder: {CONFIG_FILE} is missing")
    try:
        config = read_json_document(path)
    except DamagedFileError as exc:
        raise CompareError(str(exc)) from None
    problem = schema_problem(config, CONFIG_SCHEMA) if isinstance(config, dict) else "not an object"
    if problem:
        raise CompareError(f"{path}: not a vehicle run config ({problem})")
    return config


def check_resumable(folder: Path, config: VehicleRunConfig) -> dict[str, Any] | None:
    """The saved config of the run in ``folder`` (None if there is none yet); RunFolderError,
    before anything is written there, when the folder is busy, foreign, unreadable, or holds a run
    with a different identity."""
    return saved_document(folder / CONFIG_FILE, _identity_problems(config.identity()), OWN_FILES)


def _identity_problems(identity: dict[str, Any]) -> Problems:
    def problems(saved: dict[str, Any]) -> list[str]:
        if not isinstance(saved.get("identity"), dict):
            return ["its config.json has no 'identity'"]
        return identity_mismatch(saved["identity"], identity)

    return problems


class RunStore(EpisodeLog):
    def __init__(self, folder: Path, config: VehicleRunConfig, components: dict[str, Any]) -> None:
        document = {
            "identity": config.identity(),
            "invocation": config.model_dump(mode="json"),
            "components": components,
            "versions": {"execmem": __version__, "python": platform.python_version()},
            "started_at": now_iso(),
        }
        problems = _identity_problems(document["identity"])
        super().__init__(folder, CONFIG_FILE, document, problems, EPISODE_SCHEMA, OWN_FILES)
        self._trajectories = JsonlAppender(folder / "trajectories.jsonl", durable=False)

    def save_memory(self, scenario: int, record: dict[str, Any]) -> None:
        folder = self.folder / "memory"
        folder.mkdir(exist_ok=True)
        write_json_atomic(folder / f"scenario-{scenario}.json", record)

    def memory_records(self) -> dict[int, dict[str, Any]]:
        folder = self.folder / "memory"
        if not folder.exists():
            return {}
        return {int(p.stem.split("-")[1]): read_json_document(p) for p in folder.glob("scenario-*.json")}

    def save_trajectory(self, record: dict[str, Any]) -> None:
        """Written before the episode line, which is the commit point of an episode."""
        self._trajectories.append(record)

    def trajectories(self) -> dict[str, dict[str, Any]]:
        return {t["id"]: t for t in complete_records(self.folder / "trajectories.jsonl")}

    def close(self) -> None:
        if not self._closed:
            self._trajectories.close()
        super().close()
