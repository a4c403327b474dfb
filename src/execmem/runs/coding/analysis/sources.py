"""What the analyses read beside the runs: the task file (statements and gold patches, for the
anchors), the episodes' trajectories and, optionally, a SIEVE folder's frozen file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from execmem.core.files import DamagedFileError, complete_records
from execmem.core.hashing import file_sha256
from execmem.runs.coding.analysis.runset import AnalysisRun
from execmem.runs.coding.store import episode_id, trajectory_path
from execmem.runs.identity import CompareError
from execmem.suites.coding.frozen import FrozenFileError, load_frozen
from execmem.suites.coding.tasks import CodingTask, TaskFileError, load_tasks


def run_tasks(run: AnalysisRun, override: Path | None = None) -> dict[str, CodingTask]:
    """The run's task file (its invocation's, or ``override``), checked against the manifest's sha256."""
    path = override or Path(run.data.manifest.get("invocation", {}).get("tasks_file", ""))
    expected = run.data.manifest["tasks"].get("file_sha256")
    if not path.is_file():
        raise CompareError(f"{run.folder}: its task file {path} is not there (give it with --tasks FILE)")
    if expected and file_sha256(path) != expected:
        raise CompareError(f"{path}: not the task file {run.folder} ran (its sha256 differs; see --tasks)")
    try:
        return {task.instance_id: task for task in load_tasks(path)}
    except TaskFileError as exc:
        raise CompareError(str(exc)) from None


def solvers_tasks(runs: list[AnalysisRun], override: Path | None = None) -> dict[str, CodingTask]:
    """The tasks of every run's task file (each file read once; solvers may have their own)."""
    tasks: dict[str, CodingTask] = {}
    seen: set[str] = set()
    for run in runs:
        key = str(override or run.data.manifest.get("invocation", {}).get("tasks_file", ""))
        if key not in seen:
            seen.add(key)
            tasks.update(run_tasks(run, override))
    return tasks


def steps(run: AnalysisRun, target: str, seed: int) -> list[dict[str, Any]]:
    """An episode's trajectory steps (empty when the file is missing)."""
    try:
        lines = complete_records(trajectory_path(run.folder, episode_id(target, seed)))
    except DamagedFileError as exc:
        raise CompareError(str(exc)) from None
    return [line for line in lines if "step" in line]


def sieve_frozen_ids(sieve: Path | None) -> dict[str, frozenset[str]]:
    """Each target's frozen history ids from ``SIEVE_DIR/frozen.jsonl`` (empty without --sieve)."""
    if sieve is None:
        return {}
    try:
        records = load_frozen(sieve / "frozen.jsonl")
    except FrozenFileError as exc:
        raise CompareError(str(exc)) from None
    return {t: frozenset(map(str, r.provenance.get("history_ids", []))) for t, r in records.items()}
