"""Run the coding suite under one memory condition: every (task, seed) episode, resumable
(the skeleton is ``runs.runner``)."""

from __future__ import annotations

import dataclasses
from functools import partial
from pathlib import Path
from typing import Any

from execmem.agents.coding.solvers import make_solver
from execmem.core.hashing import file_sha256
from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.runs.coding.config import CodingRunConfig, build_manifest
from execmem.runs.coding.episode import EpisodeSettings, run_episode
from execmem.runs.coding.evaluation_reuse import EvaluationStore
from execmem.runs.coding.layer_b.memories import SystemMemories
from execmem.runs.coding.layer_b.on_workers import WorkerTargetMemories
from execmem.runs.coding.memories import open_memories
from execmem.runs.coding.metrics import compute_metrics
from execmem.runs.coding.store import episode_id
from execmem.runs.executors.base import Executor, WorkerSide
from execmem.runs.runner import DRIVER_ONLY, EpisodeRunner
from execmem.suites.coding.bases import BaseCache
from execmem.suites.coding.conditions import MemorySource, check_condition
from execmem.suites.coding.frozen import load_frozen
from execmem.suites.coding.given import load_given
from execmem.suites.coding.paths import cache_root
from execmem.suites.coding.records import RecordError
from execmem.suites.coding.sandbox.base import make_sandbox
from execmem.suites.coding.tasks import CodingTask, load_tasks, select_tasks
from execmem.suites.coding.venvs import VenvCache


class CodingRun(EpisodeRunner[tuple[CodingTask, int]]):
    """One run folder being filled. Raises ``SandboxUnavailable``, ``TaskFileError``, ``RecordError``,
    ``FrozenFileError``, ``GivenFileError`` or ``RunFolderError`` before any episode when the run
    cannot be made as asked (a memory system's run also the registry's errors, ``MemorySetupError``,
    ``HistoryArtifactError``)."""

    def __init__(self, config: CodingRunConfig, folder: Path, coding_cache: Path | None = None) -> None:
        self.config = config
        folder = folder.resolve()
        every_task = load_tasks(config.tasks_file)
        source = memory_source(config, every_task)
        if config.system is None:
            check_condition(config.memory, source)
        self.tasks = run_targets(every_task, config, source)
        sandbox = make_sandbox(config.sandbox, unsafe_local=config.unsafe_local, image=config.image)
        sandbox_kind = sandbox.describe()["kind"]
        agent = make_solver(config.solver_kind)
        sha = file_sha256(config.tasks_file)
        manifest = partial(build_manifest, config, self.tasks, sandbox_kind, sha, source, agent)
        self.memories, self.store = open_memories(config, folder, source, self.tasks, manifest)
        self.cache = ResponseCache((config.cache_dir or folder) / "responses.sqlite")
        store = (config.cache_dir or folder) / "evaluations.sqlite"
        self.evaluations = EvaluationStore(store) if config.reuse_evaluations else None
        self._connect(lambda model: OpenAIChatModel(model, self.cache))
        self.settings = EpisodeSettings(
            condition=config.memory,
            solver=config.solver,
            sandbox_kind=sandbox_kind,
            workspaces=folder / "workspaces",
            env_cache=VenvCache((coding_cache or cache_root()) / "envs"),
            bases=BaseCache((coding_cache or cache_root()) / "bases"),
            unsafe_local=config.unsafe_local,
            eval_timeout_s=config.eval_timeout_s,
            sandbox_config=config.sandbox,
            keep_workspaces=config.keep_workspaces,
            image=config.image,
            evaluations=self.evaluations,
            agent=agent,
        )

    async def run(self, on_episode=None, executor: Executor | None = None) -> dict[str, Any]:
        """The skeleton's run; the memories and the evaluation store (when reused) close with the run."""
        try:
            return await super().run(on_episode, executor)
        finally:
            self.memories.close()
            if self.evaluations is not None:
                self.evaluations.close()

    def _connect(self, client) -> None:
        """One client per seed, made by ``client(model config)``."""
        seeded = {
            seed: self.config.model.model_copy(update={"seed": seed}) for seed in self.config.seed_list()
        }
        self.by_seed = {seed: client(model) for seed, model in seeded.items()}
        self.models, self.probe = list(self.by_seed.values()), self.config.model.probe

    def driver_only(self) -> tuple[str, ...]:
        return (*DRIVER_ONLY, "by_seed", "evaluations")

    def worker_copy(self) -> CodingRun:
        """A Layer B run's system and memory.json stay with the driver; workers prepare targets in
        stores of their own, or are sent the entries (``shared_inputs``)."""
        twin = super().worker_copy()
        twin.settings = dataclasses.replace(self.settings, evaluations=None)  # its file stays here
        if isinstance(self.memories, SystemMemories):
            twin.memories = WorkerTargetMemories(self.memories.config)
        return twin

    def shared_inputs(self) -> SystemMemories | WorkerTargetMemories | None:
        """A Layer B run's targets: each prepared once, before its episodes."""
        return self.memories if isinstance(self.memories, SystemMemories | WorkerTargetMemories) else None

    def attach(self, side: WorkerSide) -> None:
        """On a worker: its own clients; workspaces and reused evaluations in its scratch folder;
        environments and bases built once per node, in the node's coding cache."""
        self.store = side.outbox
        self._connect(side.model)
        if isinstance(self.memories, WorkerTargetMemories):
            self.memories.scratch = side.scratch / "layer-b"
        reuse = (
            EvaluationStore(side.scratch / "evaluations.sqlite") if self.config.reuse_evaluations else None
        )
        node = cache_root()
        self.settings = dataclasses.replace(
            self.settings, workspaces=side.scratch / "workspaces", env_cache=VenvCache(node / "envs"),
            bases=BaseCache(node / "bases"), evaluations=reuse,
        )  # fmt: skip

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
                memory, model = await self.memories.memory(task), self.by_seed[seed]
                return await run_episode(identifier, task, memory, model, self.settings, trajectory)
            finally:
                trajectory.close()


def memory_source(config: CodingRunConfig, tasks: list[CodingTask]) -> MemorySource:
    """The run's memory source: the task file's records, and the frozen and given-text files when
    given (their targets must be the task file's; a given file's, the frozen file's too)."""
    frozen = load_frozen(config.frozen_file) if config.frozen_file is not None else None
    given = load_given(config.given_file) if config.given_file is not None else None
    known = {task.instance_id for task in tasks}
    for path, targets, among in (
        (config.frozen_file, frozen, known),
        (config.given_file, given, known if frozen is None else set(frozen)),
    ):
        unknown = [target for target in targets or {} if target not in among]
        if unknown:
            where = config.tasks_file if among is known else config.frozen_file
            raise RecordError(f"{path}: target {unknown[0]} is not in {where}")
    return MemorySource(
        tasks, config.records, frozen, _sha(config.frozen_file), given, _sha(config.given_file)
    )


def _sha(path: Path | None) -> str | None:
    return file_sha256(path) if path is not None else None


def run_targets(tasks: list[CodingTask], config: CodingRunConfig, source: MemorySource) -> list[CodingTask]:
    """The run's targets: ``only`` and ``limit`` applied to the frozen and given files' targets (when
    given)."""
    chosen = select_tasks(tasks, config.only, None)
    for restricted in (source.frozen, source.given):
        if restricted is not None:
            chosen = [task for task in chosen if task.instance_id in restricted]
    return chosen[: config.limit] if config.limit is not None else chosen
