"""SIEVE's episodes: ordinary coding run folders, one per (task, condition), run a few at a time.

A history task's run and each verification run is a coding run folder (``runs.coding.run``: the
manifest, episodes, trajectories, resume), named by what it measures, under
``episodes/<solver key>/``. A folder is shared by every pipeline configuration that needs the same
episodes, so changing the screen or the distiller re-runs nothing that is already finished.
Responses go to one cache (``cache/responses.sqlite``); venvs come from the coding cache.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execmem.core.files import complete_records
from execmem.runs.coding.config import CodingRunConfig
from execmem.runs.coding.run import CodingRun
from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.coding.sieve.stages import content_key
from execmem.runs.coding.store import episode_id
from execmem.runs.executors.base import Executor
from execmem.runs.executors.local import LocalExecutor, run_all

Progress = Callable[[str], None]


class SieveIncomplete(RuntimeError):
    """Episodes of a stage are missing (infrastructure errors); re-running resumes them."""


@dataclass(frozen=True)
class RunSpec:
    """One coding run folder SIEVE needs: a task under a condition for some seeds."""

    folder: Path
    task: str
    memory: str = "off"
    seeds: int = 1
    frozen_file: Path | None = None

    def expected(self) -> list[str]:
        return [episode_id(self.task, seed) for seed in range(self.seeds)]


class EpisodeRuns:
    """Runs RunSpecs with the pipeline's solver, at most ``concurrency`` episodes at a time, with
    ``executor`` (default: this process; on Ray, inside :meth:`session`, every run on one pool)."""

    def __init__(self, config: SieveConfig, progress: Progress, executor: Executor | None = None) -> None:
        self.config, self.progress = config, progress
        self.executor = executor or LocalExecutor()
        self.root = config.out / "episodes" / content_key(config.solver_identity())[:12]

    def session(self) -> AbstractAsyncContextManager[None]:
        """The executor started once for the whole pipeline (on Ray: one pool, one gate)."""
        model = self.config.model
        return self.executor.session(model.max_connections, model.api_key_env, CodingRun.__module__)

    def coding_config(self, spec: RunSpec) -> CodingRunConfig:
        c = self.config
        return CodingRunConfig(
            model=c.model.model_copy(update={"probe": False}),
            tasks_file=c.tasks_file,
            memory=spec.memory,
            frozen_file=spec.frozen_file,
            seeds=spec.seeds,
            solver=c.solver,
            only=[spec.task],
            sandbox=c.sandbox,
            unsafe_local=c.unsafe_local,
            image=c.image,
            eval_timeout_s=c.eval_timeout_s,
            concurrency=min(c.concurrency, spec.seeds),
            cache_dir=c.out / "cache",
            reuse_evaluations=c.reuse_evaluations,
            solver_kind=c.solver_kind,
        )

    def pending(self, specs: Sequence[RunSpec]) -> int:
        """Episodes of ``specs`` not finished yet (read-only)."""
        return sum(len(set(s.expected()) - set(finished(s.folder))) for s in specs)

    async def run(self, specs: Sequence[RunSpec], label: str) -> dict[Path, dict[str, dict[str, Any]]]:
        """Run (or resume) every spec; their finished episodes by folder. SieveIncomplete when any
        episode is missing afterwards."""
        parallel = max(1, self.config.concurrency // max((s.seeds for s in specs), default=1))
        gate = asyncio.Semaphore(parallel)
        done = 0

        async def one(spec: RunSpec) -> None:
            nonlocal done
            if set(spec.expected()) <= set(finished(spec.folder)):
                return
            async with gate:
                await CodingRun(self.coding_config(spec), spec.folder).run(None, self.executor)
            done += 1
            self.progress(f"{label}: {spec.task} ({spec.memory}) done [{done} runs this stage]")

        await run_all([one(spec) for spec in specs])
        results = {spec.folder: finished(spec.folder) for spec in specs}
        missing = [s for s in specs if not set(s.expected()) <= set(results[s.folder])]
        if missing:
            raise SieveIncomplete(
                f"{label}: {len(missing)} runs have episodes missing after infrastructure errors (e.g. "
                f"{missing[0].folder / 'infra_errors.jsonl'}); re-run the same command to resume"
            )
        return results


def finished(folder: Path) -> dict[str, dict[str, Any]]:
    """A run folder's finished episodes by id (none for a folder not made yet)."""
    return {record["id"]: record for record in complete_records(folder / "episodes.jsonl")}
