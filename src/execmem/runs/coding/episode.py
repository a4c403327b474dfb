"""One coding episode: a fresh workspace, the solver, the diff, the task's tests, one record.

Blocking work (preparing the copy, commands, git, tests) runs in worker threads so
that many episodes can wait on the model at once.
"""

from __future__ import annotations

import asyncio
import functools
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.solver import SolveResult
from execmem.agents.coding.solvers import BashSolver, CodingSolver
from execmem.core.clock import now_iso
from execmem.core.files import JsonlAppender
from execmem.core.protocols import Model
from execmem.runs.coding.evaluation_reuse import EvaluationStore, evaluate_once, evaluation_key
from execmem.suites.coding.bases import BaseCache
from execmem.suites.coding.evaluation.evaluate import Evaluation, evaluate
from execmem.suites.coding.records import InjectedMemory
from execmem.suites.coding.sandbox.config import SandboxConfig
from execmem.suites.coding.tasks import CodingTask
from execmem.suites.coding.venvs import VenvCache
from execmem.suites.coding.workspace import Episode, prepare_episode


@dataclass(frozen=True)
class EpisodeSettings:
    """What every episode of a run shares."""

    condition: str
    solver: SolverConfig
    sandbox_kind: str
    workspaces: Path
    env_cache: VenvCache
    unsafe_local: bool = False
    eval_timeout_s: float = 600.0
    sandbox_config: SandboxConfig = field(default_factory=SandboxConfig)
    keep_workspaces: bool = False
    image: str | None = None  # docker/podman image the commands run in (None: bubblewrap)
    evaluations: EvaluationStore | None = None  # identical diffs share one evaluation (opt-in)
    bases: BaseCache | None = None  # prepared bases of pinned sources, copied into each episode
    agent: CodingSolver = field(default_factory=BashSolver)  # the solver the manifest names


async def run_episode(
    identifier: str,
    task: CodingTask,
    memory: InjectedMemory,
    model: Model,
    settings: EpisodeSettings,
    trajectory: JsonlAppender,
) -> dict[str, Any]:
    """Prepare, solve, score; return the episode's record. Errors propagate to the run's boundary."""
    start = time.monotonic()
    episode = await asyncio.to_thread(_prepare, task, settings)
    try:
        statement, agent = task.problem_statement, settings.agent
        trajectory.append({"id": identifier, "messages": agent.opening_messages(statement, memory.text)})
        result = await agent.solve(model, episode, statement, memory.text, settings.solver, trajectory.append)
        patch = await asyncio.to_thread(episode.diff)
        evaluation, reused = await _evaluate(task, episode, patch, settings)
        trajectory.append({"end_reason": result.end_reason, "evaluation": evaluation.to_dict()})
    finally:
        if not settings.keep_workspaces:
            await asyncio.to_thread(episode.cleanup)
    record = episode_record(identifier, task, memory, settings, episode, result, evaluation, patch)
    return {**record, "eval_reused": reused, "episode_s": round(time.monotonic() - start, 3)}


async def _evaluate(
    task: CodingTask, episode: Episode, patch: str, settings: EpisodeSettings
) -> tuple[Evaluation, bool]:
    """The episode's evaluation, and whether it was reused from an identical diff's."""
    if settings.evaluations is None:
        return await asyncio.to_thread(evaluate, task, episode, settings.eval_timeout_s), False
    key = evaluation_key(
        task, patch, {"timeout_s": settings.eval_timeout_s, "sandbox": settings.sandbox_kind}
    )
    run = functools.partial(evaluate, task, episode, settings.eval_timeout_s)
    return await asyncio.to_thread(evaluate_once, settings.evaluations, key, run)


def _prepare(task: CodingTask, settings: EpisodeSettings) -> Episode:
    episode = prepare_episode(
        task, settings.workspaces, settings.env_cache,
        unsafe_local=settings.unsafe_local, sandbox_config=settings.sandbox_config, image=settings.image,
        bases=settings.bases,
    )  # fmt: skip
    kind = episode.sandbox.describe()["kind"]
    if kind != settings.sandbox_kind:
        episode.cleanup()
        raise RuntimeError(f"episode sandbox is {kind!r}, the manifest declares {settings.sandbox_kind!r}")
    return episode


def episode_record(
    identifier: str,
    task: CodingTask,
    memory: InjectedMemory,
    settings: EpisodeSettings,
    episode: Episode,
    result: SolveResult,
    evaluation: Evaluation,
    patch: str,
) -> dict[str, Any]:
    seed = int(identifier.rsplit("@", 1)[1])
    return {
        "id": identifier,
        "instance_id": task.instance_id,
        "repo": task.repo,
        "seed": seed,
        "memory": settings.condition,
        "memory_chars": len(memory.text or ""),
        "memory_sources": list(memory.sources),
        "resolved": evaluation.resolved,
        "evaluation_suspect": evaluation.suspect,
        "suspect_reasons": evaluation.suspect_reasons,
        "end_reason": result.end_reason,
        "steps": result.steps,
        "commands": result.commands,
        "input_tokens": result.usage.input_tokens,
        "output_tokens": result.usage.output_tokens,
        "model_errors": dict(result.errors),
        "agent_s": round(result.seconds, 3),
        "model_latency_s": round(result.model_latency_s, 3),
        "prepare_s": round(episode.prepare_s, 3),
        "eval_s": round(evaluation.duration_s, 3),
        "test_s": round(evaluation.result.duration_s, 3) if evaluation.result else 0.0,
        "eval_error": evaluation.error,
        "eval_dropped_paths": evaluation.dropped_paths,
        "outcomes": evaluation.outcomes,
        "model_patch": patch,
        "finished_at": now_iso(),
    }
