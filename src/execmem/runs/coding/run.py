"""Run the coding suite under one memory condition: every (task, seed) episode, resumable.

Re-creating a :class:`CodingRun` on the same folder resumes: finished episodes
are kept, episodes that hit infrastructure errors or crashed are run again.
Every episode's failure is stored with its traceback (the per-episode boundary).
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execmem.core.clock import now_iso
from execmem.core.hashing import file_sha256
from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.llm.errors import EndpointError, InfraError
from execmem.runs.coding.config import CodingRunConfig, build_manifest
from execmem.runs.coding.episode import EpisodeSettings, run_episode
from execmem.runs.coding.metrics import compute_metrics
from execmem.runs.coding.store import CodingRunStore, episode_id
from execmem.runs.runner import run_all
from execmem.suites.coding.environment import EnvironmentCache
from execmem.suites.coding.paths import cache_root
from execmem.suites.coding.records import memory_for
from execmem.suites.coding.sandbox import make_sandbox
from execmem.suites.coding.tasks import CodingTask, load_tasks, select_tasks

EpisodeHook = Callable[[dict[str, Any] | None], None]


class CodingRun:
    """One run folder being filled. Raises ``SandboxUnavailable``, ``TaskFileError``, ``RecordError``
    or ``RunFolderError`` before any episode when the run cannot be made as asked."""

    def __init__(self, config: CodingRunConfig, folder: Path, coding_cache: Path | None = None) -> None:
        self.config = config
        folder = folder.resolve()
        every_task = load_tasks(config.tasks_file)
        self.tasks = select_tasks(every_task, config.only, config.limit)
        sandbox_kind = make_sandbox(config.sandbox, unsafe_local=config.unsafe_local).describe()["kind"]
        self.memories = {  # records come from the whole file: a subset changes targets, not history
            t.instance_id: memory_for(config.memory, t, every_task, config.records) for t in self.tasks
        }
        manifest = build_manifest(config, self.tasks, sandbox_kind, file_sha256(config.tasks_file))
        self.store = CodingRunStore(folder, manifest)
        self.store.save_memory({key: memory.to_dict() for key, memory in self.memories.items()})
        self.cache = ResponseCache((config.cache_dir or folder) / "responses.sqlite")
        self.models = {
            seed: OpenAIChatModel(config.model.model_copy(update={"seed": seed}), self.cache)
            for seed in config.seed_list()
        }
        self.settings = EpisodeSettings(
            condition=config.memory,
            solver=config.solver,
            sandbox_kind=sandbox_kind,
            workspaces=folder / "workspaces",
            env_cache=EnvironmentCache((coding_cache or cache_root()) / "envs"),
            unsafe_local=config.unsafe_local,
            eval_timeout_s=config.eval_timeout_s,
            sandbox_config=config.sandbox,
            keep_workspaces=config.keep_workspaces,
        )

    def pending(self) -> list[tuple[CodingTask, int]]:
        """Episodes still to run, in task order then seed order."""
        return [
            (task, seed)
            for task in self.tasks
            for seed in self.config.seed_list()
            if episode_id(task.instance_id, seed) not in self.store.finished
        ]

    async def run(self, on_episode: EpisodeHook | None = None) -> dict[str, Any]:
        """Run every pending episode, then write and return the metrics."""
        slots = asyncio.Semaphore(self.config.concurrency)

        async def one(task: CodingTask, seed: int) -> None:
            async with slots:
                record = await self._episode(task, seed)
            if on_episode:
                on_episode(record)

        try:
            pending = self.pending()
            if pending and self.config.model.probe:  # a wrong URL, key or model: fail in seconds
                await next(iter(self.models.values())).probe()
            await run_all([one(task, seed) for task, seed in pending])
        except BaseException:  # EndpointError stops the run; episodes in flight were cancelled
            self.store.close()
            raise
        finally:
            for model in self.models.values():
                await model.aclose()
            self.cache.close()
        return self.finish()

    def finish(self) -> dict[str, Any]:
        store = self.store
        order = [episode_id(t.instance_id, s) for t in self.tasks for s in self.config.seed_list()]
        episodes = [store.finished[key] for key in order if key in store.finished]
        metrics = compute_metrics(episodes, store.infra_errors(), len(order))
        store.write_metrics(metrics)
        store.close()
        return metrics

    async def _episode(self, task: CodingTask, seed: int) -> dict[str, Any] | None:
        """Run and record one episode; any failure is recorded with it (the per-episode boundary)."""
        identifier = episode_id(task.instance_id, seed)
        trajectory = self.store.trajectory(identifier)
        memory = self.memories[task.instance_id]
        try:
            record = await run_episode(identifier, task, memory, self.models[seed], self.settings, trajectory)
        except EndpointError:
            raise
        except InfraError as exc:
            self._failure(identifier, task, seed, "infra", exc.reason, attempts=exc.attempts)
            return None
        except Exception as exc:  # noqa: BLE001 - stored with its traceback, re-run on resume
            redact = self.models[seed].redact
            reason = redact(f"{type(exc).__name__}: {exc}")
            self._failure(identifier, task, seed, "crash", reason, traceback=redact(traceback.format_exc()))
            return None
        finally:
            trajectory.close()
        self.store.add_episode(record)
        return record

    def _failure(self, identifier: str, task: CodingTask, seed: int, kind: str, reason: str, **extra) -> None:
        record = {"id": identifier, "instance_id": task.instance_id, "seed": seed}
        self.store.add_infra_error({**record, "error_kind": kind, "reason": reason, "at": now_iso(), **extra})
