"""Run the coding suite under one memory condition: every (task, seed) episode, resumable
(the skeleton is ``runs.runner``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from execmem.agents.coding.solvers import make_solver
from execmem.core.hashing import file_sha256
from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.runs.coding.config import CodingRunConfig, build_manifest
from execmem.runs.coding.episode import EpisodeSettings, run_episode
from execmem.runs.coding.metrics import compute_metrics
from execmem.runs.coding.store import CodingRunStore, episode_id
from execmem.runs.executors.base import WorkerSide
from execmem.runs.runner import DRIVER_ONLY, EpisodeRunner
from execmem.suites.coding.paths import cache_root
from execmem.suites.coding.records import memory_for
from execmem.suites.coding.sandbox.base import make_sandbox
from execmem.suites.coding.tasks import CodingTask, load_tasks, select_tasks
from execmem.suites.coding.venvs import VenvCache


class CodingRun(EpisodeRunner[tuple[CodingTask, int]]):
    """One run folder being filled. Raises ``SandboxUnavailable``, ``TaskFileError``, ``RecordError``
    or ``RunFolderError`` before any episode when the run cannot be made as asked."""

    def __init__(self, config: CodingRunConfig, folder: Path, coding_cache: Path | None = None) -> None:
        self.config = config
        folder = folder.resolve()
        every_task = load_tasks(config.tasks_file)
        self.tasks = select_tasks(every_task, config.only, config.limit)
        sandbox = make_sandbox(config.sandbox, unsafe_local=config.unsafe_local, image=config.image)
        sandbox_kind = sandbox.describe()["kind"]
        self.memories = {  # records come from the whole file: a subset changes targets, not history
            t.instance_id: memory_for(config.memory, t, every_task, config.records) for t in self.tasks
        }
        agent = make_solver(config.solver_kind)
        manifest = build_manifest(config, self.tasks, sandbox_kind, file_sha256(config.tasks_file), agent)
        self.store = CodingRunStore(folder, manifest)
        self.store.save_memory({key: memory.to_dict() for key, memory in self.memories.items()})
        self.cache = ResponseCache((config.cache_dir or folder) / "responses.sqlite")
        self._connect(lambda model: OpenAIChatModel(model, self.cache))
        self.settings = EpisodeSettings(
            condition=config.memory,
            solver=config.solver,
            sandbox_kind=sandbox_kind,
            workspaces=folder / "workspaces",
            env_cache=VenvCache((coding_cache or cache_root()) / "envs"),
            unsafe_local=config.unsafe_local,
            eval_timeout_s=config.eval_timeout_s,
            sandbox_config=config.sandbox,
            keep_workspaces=config.keep_workspaces,
            image=config.image,
            agent=agent,
        )

    def _connect(self, client) -> None:
        """One client per seed, made by ``client(model config)``."""
        seeded = {
            seed: self.config.model.model_copy(update={"seed": seed}) for seed in self.config.seed_list()
        }
        self.by_seed = {seed: client(model) for seed, model in seeded.items()}
        self.models, self.probe = list(self.by_seed.values()), self.config.model.probe

    def driver_only(self) -> tuple[str, ...]:
        return (*DRIVER_ONLY, "by_seed")

    def attach(self, side: WorkerSide) -> None:
        """On a worker: its own clients, and workspaces in its scratch folder (environments are
        built once per node, in the node's coding cache)."""
        self.store = side.outbox
        self._connect(side.model)
        node_cache = VenvCache(cache_root() / "envs")
        self.settings = dataclasses.replace(
            self.settings, workspaces=side.scratch / "workspaces", env_cache=node_cache
        )

    def items(self) -> list[tuple[CodingTask, int]]:
        """Every (task, seed) episode, in task order then seed order."""
        return [(task, seed) for task in self.tasks for seed in self.config.seed_list()]

    def key(self, item: tuple[CodingTask, int]) -> str:
        return episode_id(item[0].instance_id, item[1])

    def identity(self, item: tuple[CodingTask, int]) -> dict[str, Any]:
        return {"id": self.key(item), "instance_id": item[0].instance_id, "seed": item[1]}

    def concurrency(self) -> int:
        return self.config.concurrency

    def metrics(self, episodes: list[dict[str, Any]], expected: int) -> dict[str, Any]:
        return compute_metrics(episodes, self.store.infra_errors(), expected)

    async def episode(self, item: tuple[CodingTask, int]) -> dict[str, Any]:
        """Prepare, solve and evaluate one episode in a slot; its trajectory file is always closed."""
        task, seed = item
        identifier = self.key(item)
        async with self.slots:
            trajectory = self.store.trajectory(identifier)
            try:
                memory, model = self.memories[task.instance_id], self.by_seed[seed]
                return await run_episode(identifier, task, memory, model, self.settings, trajectory)
            finally:
                trajectory.close()
