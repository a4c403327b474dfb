"""A vehicle run folder as the diagnosis reads it: its episodes and infrastructure errors in run
order, each episode's messages, and each scenario's built memory.

Read only. Folders written by ``vehicle run`` have everything; a hand-made folder needs only
``config.json`` (``identity.memory``, ``identity.model.model``, ``identity.scenarios``) and
``episodes.jsonl``: a missing trajectory means nothing was shown, a missing memory record an
empty memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execmem.agents.vehicle.transcript import MEMORY_REFERENCE
from execmem.core.files import DamagedFileError, complete_records, read_json_document
from execmem.runs.episode_log import RunFolderError, checked_lines, unresolved_infra_errors
from execmem.runs.identity import CompareError
from execmem.runs.vehicle.store import read_config
from execmem.runs.vehicle.trials import split_episode_id
from execmem.suites.vehicle.release import resolve_data_dir

_EPISODE = {"id": str, "scenario": int, "index": int, "exact_match": (bool, int, float)}


@dataclass
class RunSources:
    folder: Path
    config: dict[str, Any]
    episodes: list[dict[str, Any]]
    infra: list[dict[str, Any]]
    trajectories: dict[str, dict[str, Any]] = field(default_factory=dict)
    memories: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def model(self) -> str:
        return self.config["identity"]["model"]["model"]

    @property
    def memory(self) -> str:
        return self.config["identity"]["memory"]

    @property
    def scenarios(self) -> list[int]:
        """The run's scenarios, and any other an episode names."""
        named = {r["scenario"] for r in [*self.episodes, *self.infra]}
        return sorted(set(self.config["identity"]["scenarios"]) | named)

    def records(self) -> list[dict[str, Any]]:
        """Scored episodes and unresolved infrastructure errors, by scenario, index and trial."""
        return sorted([*self.episodes, *self.infra], key=_order)

    def messages(self, episode: str) -> list[dict[str, Any]]:
        found = self.trajectories.get(episode, {}).get("messages")
        return found if isinstance(found, list) else []

    def resolver(self, scenario: int) -> Callable[[str], str]:
        """Turns a ``<memory: memory/scenario-N.json#text>`` reference back into the text."""

        def resolve(text: str) -> str:
            if MEMORY_REFERENCE.match(text):
                return str(self.memories.get(scenario, {}).get("text") or "")
            return text

        return resolve

    def store_text(self, scenario: int) -> str:
        """A key-value memory's final entries, one ``key: value`` line each."""
        entries = self.memories.get(scenario, {}).get("entries") or {}
        return "\n".join(f"{key}: {value}" for key, value in entries.items())

    def data_dir(self, explicit: Path | None) -> Path:
        """The release: ``explicit``, else the one the run used, else the default one."""
        used = self.config.get("invocation", {}).get("data_dir")
        if explicit is None and isinstance(used, str) and Path(used).is_dir():
            explicit = Path(used)
        return resolve_data_dir(explicit)


def _order(record: dict[str, Any]) -> tuple[int, int, int]:
    return record["scenario"], record["index"], split_episode_id(record["id"])[1]


def read_run(folder: Path) -> RunSources:
    """The run in ``folder``; CompareError naming the file (and line) when it cannot be read."""
    config = read_config(folder)
    try:
        latest = {e["id"]: e for e in checked_lines(folder / "episodes.jsonl", _EPISODE)}
        episodes, finished = list(latest.values()), set(latest)
        infra = [r for r in unresolved_infra_errors(folder, finished) if _names_question(r)]
        trajectories = {t["id"]: t for t in complete_records(folder / "trajectories.jsonl") if "id" in t}
        memories = _memories(folder / "memory")
    except (DamagedFileError, RunFolderError) as exc:
        raise CompareError(str(exc)) from None
    return RunSources(folder, config, episodes, infra, trajectories, memories)


def _names_question(record: dict[str, Any]) -> bool:
    return isinstance(record.get("scenario"), int) and isinstance(record.get("index"), int)


def _memories(folder: Path) -> dict[int, dict[str, Any]]:
    found = {}
    for path in sorted(folder.glob("scenario-*.json")) if folder.is_dir() else []:
        number = path.stem.removeprefix("scenario-")
        if number.isdigit():
            record = read_json_document(path)
            found[int(number)] = record if isinstance(record, dict) else {}
    return found
