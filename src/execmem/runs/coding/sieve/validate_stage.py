"""SIEVE stage 1, source validation: a target stays only when its gold patch passes its tests.

Each task is checked as ``execmem coding validate`` checks it (``builder.validation.validate_task``:
the unpatched copy fails as recorded, the gold patch resolves it), once per task content: results
are kept by the sha256 of the task's record, so an edited task file re-checks only what changed.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execmem.core.files import JsonlAppender, complete_records
from execmem.core.hashing import text_sha256
from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.coding.sieve.episodes import Progress
from execmem.runs.coding.sieve.stages import Stage
from execmem.suites.coding.builder.validation import TaskCheck, validate_task
from execmem.suites.coding.gitrepo import GitError
from execmem.suites.coding.pypi import SdistError
from execmem.suites.coding.sources import SourceError
from execmem.suites.coding.tasks import CodingTask
from execmem.suites.coding.venvs import VenvBuildError, VenvCache
from execmem.suites.coding.workspace import EpisodeError

VALIDATE_VERSION = "sieve-validate-v1"
RESULTS = "results.jsonl"
_UNPREPARED = (EpisodeError, SourceError, GitError, SdistError, VenvBuildError)


def task_sha(task: CodingTask) -> str:
    return text_sha256(task.model_dump_json())


def validate_stage(config: SieveConfig) -> Stage:
    inputs = {"timeout_s": config.eval_timeout_s, "unsafe_local": config.unsafe_local, "image": config.image}
    return Stage("1-validate", VALIDATE_VERSION, inputs, config.out)


def checked(stage: Stage) -> dict[str, dict[str, Any]]:
    """Results so far, by task sha."""
    return {r["task_sha"]: r for r in complete_records(stage.path(RESULTS))}


def pending_tasks(stage: Stage, tasks: Sequence[CodingTask]) -> list[CodingTask]:
    done = checked(stage)
    return [task for task in tasks if task_sha(task) not in done]


async def run_validation(
    config: SieveConfig, tasks: Sequence[CodingTask], env_cache: VenvCache, progress: Progress
) -> dict[str, dict[str, Any]]:
    """Every task's verdict, by instance id (checking those not checked yet)."""
    stage = validate_stage(config)
    stage.start()
    todo = pending_tasks(stage, tasks)
    gate = asyncio.Semaphore(config.concurrency)
    sink = JsonlAppender(stage.path(RESULTS))
    try:
        with tempfile.TemporaryDirectory(prefix="execmem-sieve-validate-") as scratch:

            async def one(task: CodingTask) -> None:
                async with gate:
                    check = await asyncio.to_thread(_check, task, Path(scratch), env_cache, config)
                sink.append({"task_sha": task_sha(task), **check.to_dict()})
                progress(f"validate: {task.instance_id}: {check.reason}")

            await asyncio.gather(*(one(task) for task in todo))
    finally:
        sink.close()
    results = checked(stage)
    by_id = {task.instance_id: results[task_sha(task)] for task in tasks}
    stage.finish({"tasks": len(tasks), "valid": sum(r["ok"] for r in by_id.values())})
    return by_id


def _check(task: CodingTask, scratch: Path, env_cache: VenvCache, config: SieveConfig) -> TaskCheck:
    try:
        return validate_task(
            task, scratch, env_cache, unsafe_local=config.unsafe_local, timeout_s=config.eval_timeout_s
        )
    except _UNPREPARED as exc:
        return TaskCheck.unprepared(task, f"cannot prepare: {exc}")
