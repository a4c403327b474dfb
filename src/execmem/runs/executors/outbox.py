"""What a worker's episodes would write to the run folder, kept for the driver to write.

On a worker the run's store is an :class:`Outbox`: an episode calls the methods it calls on a run
folder (its trajectory, its line or its failure, a scenario's built memory) and the outbox keeps
each call, in order, under the episode or shared input it belongs to. The driver replays them into
the run folder (:func:`replay`): it stays the only writer, an episode's line still comes after its
trajectory, and an episode whose worker died leaves nothing behind.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from typing import Any

Call = tuple[str, tuple[Any, ...]]
"""A store method's name and its arguments."""


def shared_bucket(key: Hashable) -> str:
    """Where the records made while making a shared input are kept."""
    return f"shared:{key}"


class TrajectoryLines:
    """A coding episode's trajectory file, as lines kept in memory."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def append(self, record: dict[str, Any]) -> None:
        self.lines.append(record)

    def close(self) -> None:
        """Nothing to close: the driver writes the lines."""


class Outbox:
    """The store of a run's episodes on a worker."""

    def __init__(self) -> None:
        self._calls: dict[str, list[Call]] = defaultdict(list)

    def add_episode(self, record: dict[str, Any]) -> None:
        self._keep(record["id"], "add_episode", record)

    def add_infra_error(self, record: dict[str, Any]) -> None:
        self._keep(record["id"], "add_infra_error", record)

    def save_trajectory(self, record: dict[str, Any]) -> None:
        self._keep(record["id"], "save_trajectory", record)

    def save_memory(self, scenario: int, record: dict[str, Any]) -> None:
        self._keep(shared_bucket(scenario), "save_memory", scenario, record)

    def trajectory(self, identifier: str) -> TrajectoryLines:
        lines = TrajectoryLines()
        self._keep(identifier, "trajectory", identifier, lines.lines)
        return lines

    def take(self, bucket: str) -> list[Call]:
        """The calls kept for an episode id (or a :func:`shared_bucket`), forgetting them here."""
        return self._calls.pop(bucket, [])

    def _keep(self, bucket: str, name: str, *arguments: Any) -> None:
        self._calls[bucket].append((name, arguments))


def replay(calls: list[Call], store: Any) -> dict[str, Any] | None:
    """Make the calls on the run's store, in order; the episode line among them, if any."""
    record = None
    for name, arguments in calls:
        if name == "trajectory":
            identifier, lines = arguments
            trajectory = store.trajectory(identifier)
            try:
                for line in lines:
                    trajectory.append(line)
            finally:
                trajectory.close()
            continue
        getattr(store, name)(*arguments)
        if name == "add_episode":
            record = arguments[0]
    return record
