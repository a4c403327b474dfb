"""Run the vehicle benchmark end to end: memory per scenario, episodes in parallel, scores on disk."""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execmem.agents.vehicle.agent import EpisodeAborted, VehicleEpisode, solve
from execmem.agents.vehicle.conditions.base import ScenarioMemory
from execmem.agents.vehicle.prompts import AGENT_PROMPT_VERSION
from execmem.core.clock import now_iso
from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.llm.errors import EndpointError, InfraError
from execmem.runs.runner import run_all
from execmem.runs.vehicle.conditions import make_condition
from execmem.runs.vehicle.config import VehicleRunConfig
from execmem.runs.vehicle.metrics import compute_metrics
from execmem.runs.vehicle.store import RunStore, check_resumable
from execmem.suites.vehicle.dataset import Question, load_questions
from execmem.suites.vehicle.release import resolve_data_dir
from execmem.suites.vehicle.scorebook import Scorebook

EpisodeHook = Callable[[dict[str, Any] | None], None]


class VehicleRun:
    """One run folder being filled. Re-creating it on the same folder resumes."""

    def __init__(self, config: VehicleRunConfig, folder: Path) -> None:
        check_resumable(folder, config)  # refuse a different run's folder before touching it
        data_dir = resolve_data_dir(config.data_dir)
        self.config = config = config.model_copy(update={"data_dir": data_dir.resolve()})  # as used
        self.questions = load_questions(data_dir, config.scenarios)
        self.book = Scorebook(self.questions)
        cache_root = config.cache_dir or folder
        self.cache = ResponseCache(cache_root / "responses.sqlite")
        self.model = OpenAIChatModel(config.model, self.cache)
        self.condition = make_condition(config, self.model, data_dir, cache_root / "memory-builds", folder)
        components = {
            "model": self.model.describe() | {"api_key_env": config.model.api_key_env},
            "memory": self.condition.describe(),
            "agent": {"prompt_version": AGENT_PROMPT_VERSION, "max_steps": config.max_steps},
        }
        self.store = RunStore(folder, config, components)
        self._memories: dict[int, asyncio.Task[ScenarioMemory]] = {}

    def pending(self) -> list[Question]:
        return [q for q in self.questions if q.id not in self.store.finished]

    async def run(self, on_episode: EpisodeHook | None = None) -> dict[str, Any]:
        """Run every pending episode, then write and return the metrics.

        :class:`EndpointError` (refused key, unknown model, nothing listening; from the start-up
        probe or any request) stops the run at once: episodes in flight are cancelled, finished
        ones stay on disk, and the error propagates."""
        slots = asyncio.Semaphore(self.config.model.max_connections * 2)

        async def one(question: Question) -> None:
            record = await self._episode(question, slots)
            if on_episode:
                on_episode(record)

        try:
            pending = self.pending()
            if pending and self.config.model.probe:
                await self.model.probe()
            await run_all([one(q) for q in pending])
        except BaseException:
            self.store.close()
            raise
        finally:
            await self.model.aclose()
            self.cache.close()
        return self.finish()

    def finish(self) -> dict[str, Any]:
        store = self.store
        episodes = [store.finished[q.id] for q in self.questions if q.id in store.finished]
        metrics = compute_metrics(episodes, store.infra_errors(), store.memory_records(), len(self.questions))
        store.write_metrics(metrics)
        store.close()
        return metrics

    async def _episode(self, question: Question, slots: asyncio.Semaphore) -> dict[str, Any] | None:
        """Run and record one episode; any failure is recorded with it (the per-episode boundary)."""
        try:
            memory = await self._memory(question.scenario)
            async with slots:
                episode = await solve(question, memory, self.model, self.config.max_steps)
        except EndpointError:
            raise
        except EpisodeAborted as exc:
            self.store.save_trajectory(trajectory_record(exc.episode, memory) | {"aborted": exc.cause.reason})
            self._infra(question, "infra", exc.cause.reason, attempts=exc.cause.attempts)
            return None
        except InfraError as exc:  # building the scenario's memory
            self._infra(question, "infra", exc.reason, attempts=exc.attempts)
            return None
        except Exception as exc:  # noqa: BLE001 - stored with its traceback, re-run on resume
            reason, trace = f"{type(exc).__name__}: {exc}", traceback.format_exc()
            self._infra(question, "crash", reason, traceback=self.model.redact(trace))
            return None
        record = self._record(episode)
        self.store.save_trajectory(trajectory_record(episode, memory))
        self.store.add_episode(record)
        return record

    def _memory(self, scenario: int) -> asyncio.Task[ScenarioMemory]:
        if scenario not in self._memories or self._memories[scenario].cancelled():
            self._memories[scenario] = asyncio.ensure_future(self._build_memory(scenario))
        return self._memories[scenario]

    async def _build_memory(self, scenario: int) -> ScenarioMemory:
        memory = await self.condition.prepare(scenario)
        self.store.save_memory(scenario, memory.record())
        return memory

    def _record(self, episode: VehicleEpisode) -> dict[str, Any]:
        q, loop = episode.question, episode.loop
        calls = episode.environment.calls
        return {
            **self.book.score_row(q, calls),
            "memory": self.config.memory,
            "calls": [c.to_json() for c in calls],
            "n_calls": len(calls),
            "steps": loop.steps,
            "end_reason": loop.end_reason,
            "input_tokens": loop.usage.input_tokens,
            "output_tokens": loop.usage.output_tokens,
            "memory_tokens": episode.memory_tokens,
            "memory_tool_calls": loop.memory_tool_calls,
            "model_errors": dict(loop.errors + episode.environment.errors),
            "tool_requests": loop.tool_requests,
            "latency_s": round(episode.seconds, 4),
            **loop.timing(),
            "error_kind": loop.end_reason if loop.end_reason in ("max_steps", "context_length") else None,
            "context_error": loop.context_error,
        }

    def _infra(self, question: Question, kind: str, reason: str, **extra: Any) -> None:
        record = {"id": question.id, "scenario": question.scenario, "index": question.index}
        reason = self.model.redact(reason)
        self.store.add_infra_error({**record, "error_kind": kind, "reason": reason, "at": now_iso(), **extra})


SHARED_MEMORY_MIN_CHARS = 2000


def trajectory_record(episode: VehicleEpisode, memory: ScenarioMemory) -> dict[str, Any]:
    """The episode's messages; a long scenario-wide memory text is referenced, not repeated."""
    messages = episode.loop.messages
    shared = memory.prompt_memory(episode.question)
    if shared and len(shared) >= SHARED_MEMORY_MIN_CHARS and shared is not episode.question.gold_memory:
        ref = f"<memory: memory/scenario-{episode.question.scenario}.json#text>"
        user = dict(messages[1], content=messages[1]["content"].replace(shared, ref))
        messages = [messages[0], user, *messages[2:]]
    return {"id": episode.question.id, "model_calls": episode.loop.calls, "messages": messages}
