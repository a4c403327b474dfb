"""Run the vehicle benchmark end to end: memory per scenario, episodes in parallel, scores on disk."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from execmem.agents.vehicle.agent import EpisodeAborted, VehicleEpisode, solve
from execmem.agents.vehicle.conditions.base import ScenarioMemory
from execmem.agents.vehicle.prompts import AGENT_PROMPT_VERSION
from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.runs.executors.base import WorkerSide
from execmem.runs.runner import DRIVER_ONLY, EpisodeRunner
from execmem.runs.vehicle.conditions import History, make_condition, store_opener
from execmem.runs.vehicle.config import VehicleRunConfig
from execmem.runs.vehicle.metrics import compute_metrics
from execmem.runs.vehicle.scenario_memories import ScenarioMemories, WorkerMemories
from execmem.runs.vehicle.store import RunStore, check_resumable
from execmem.runs.vehicle.trials import Trial, episode_id, trial_seed
from execmem.suites.vehicle.dataset import load_history, load_questions
from execmem.suites.vehicle.release import resolve_data_dir
from execmem.suites.vehicle.scorebook import Scorebook


class VehicleRun(EpisodeRunner[Trial]):
    """One run folder being filled: every question once per trial. Re-creating it on the same
    folder resumes."""

    def __init__(self, config: VehicleRunConfig, folder: Path) -> None:
        check_resumable(folder, config)  # refuse a different run's folder before touching it
        data_dir = resolve_data_dir(config.data_dir)
        self.config = config = config.model_copy(update={"data_dir": data_dir.resolve()})  # as used
        self.questions = load_questions(data_dir, config.scenarios)
        self.book = Scorebook(self.questions)
        cache_root = config.cache_dir or folder
        self.cache = ResponseCache(cache_root / "responses.sqlite")
        self._connect(OpenAIChatModel(config.model, self.cache))
        self.space = folder.resolve().name  # names the user spaces of a memory system
        history: History = partial(load_history, data_dir)
        condition = make_condition(config, self.model, history, cache_root / "memory-builds", folder)
        components = {
            "model": self.model.describe() | {"api_key_env": config.model.api_key_env},
            "memory": condition.describe(),
            "agent": {"prompt_version": AGENT_PROMPT_VERSION, "max_steps": config.max_steps},
        }
        self.store = RunStore(folder, config, components)
        self.memories: ScenarioMemories | WorkerMemories = ScenarioMemories(condition, self.store, history)

    def _connect(self, model: OpenAIChatModel) -> None:
        """Use ``model``, and its seeded twins for the trials."""
        self.model, self.models, self.probe = model, [model], self.config.model.probe
        self.trial_models = {t: model.with_seed(trial_seed(self.config.model.seed, t)) for t in self.trials()}

    def trials(self) -> range:
        return range(1, self.config.trials + 1)

    def items(self) -> list[Trial]:
        """Every question once per trial: trial 1 of every question first, then trial 2..."""
        return [Trial(question, t) for t in self.trials() for question in self.questions]

    def key(self, item: Trial) -> str:
        return episode_id(item.question.id, item.number)

    def identity(self, item: Trial) -> dict[str, Any]:
        q = item.question
        return {"id": self.key(item), "scenario": q.scenario, "index": q.index, "trial": item.number}

    def concurrency(self) -> int:
        """Episodes talking to the model at once: twice the connections, so none sits idle."""
        return self.config.model.max_connections * 2

    def metrics(self, episodes: list[dict[str, Any]], expected: int) -> dict[str, Any]:
        records = self.store.memory_records()
        trials, price = self.config.trials, self.config.price()
        return compute_metrics(episodes, self.store.infra_errors(), records, expected, trials, price)

    async def episode(self, item: Trial) -> dict[str, Any]:
        """Build (or await) the scenario's memory, solve on a fresh car, score; the trajectory is
        written before the episode line. A failure mid-episode keeps what was done with its reason."""
        key, model = self.key(item), self.trial_models[item.number]
        memory = await self.memories.get(item.question.scenario)  # an InfraError: building it failed
        try:
            async with self.slots:
                episode = await solve(item.question, memory, model, self.config.max_steps)
        except EpisodeAborted as exc:
            aborted = trajectory_record(exc.episode, memory, key) | {"aborted": exc.cause.reason}
            self.store.save_trajectory(aborted)
            raise exc.cause from None
        record = {**self._record(episode), "id": key, "trial": item.number}
        self.store.save_trajectory(trajectory_record(episode, memory, key))
        return record

    def shared_inputs(self) -> ScenarioMemories | WorkerMemories:
        return self.memories

    def driver_only(self) -> tuple[str, ...]:
        return (*DRIVER_ONLY, "model", "trial_models", "memories")

    def attach(self, side: WorkerSide) -> None:
        """On a worker: its own clients, and memories it builds in its scratch folder or is sent."""
        self.store = side.outbox
        self._connect(side.model(self.config.model))

        def fresh(history: History, folder: Path):
            return make_condition(
                self.config, self.model, history, folder / "memory-builds", folder, self.space
            )

        self.memories = WorkerMemories(side.outbox, fresh, side.scratch, store_opener(self.config))

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


SHARED_MEMORY_MIN_CHARS = 2000


def trajectory_record(
    episode: VehicleEpisode, memory: ScenarioMemory, key: str | None = None
) -> dict[str, Any]:
    """The episode's messages (under ``key``, its episode id; default the question's id); a long
    scenario-wide memory text is referenced, not repeated."""
    messages = episode.loop.messages
    shared = memory.prompt_memory(episode.question)
    if shared and len(shared) >= SHARED_MEMORY_MIN_CHARS and shared is not episode.question.gold_memory:
        ref = f"<memory: memory/scenario-{episode.question.scenario}.json#text>"
        user = dict(messages[1], content=messages[1]["content"].replace(shared, ref))
        messages = [messages[0], user, *messages[2:]]
    return {"id": key or episode.question.id, "model_calls": episode.loop.calls, "messages": messages}
