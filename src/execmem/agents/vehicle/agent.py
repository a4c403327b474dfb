"""One vehicle episode: the request, the memory, the car, the tool loop."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from execmem.agents.tool_loop import LoopResult, run_tool_loop
from execmem.agents.vehicle.conditions.base import ScenarioMemory
from execmem.agents.vehicle.prompts import AGENT_SYSTEM, MEMORY_BLOCK, MEMORY_TOOL_HINT, REQUEST
from execmem.core.protocols import Model
from execmem.core.tokens import estimate_tokens
from execmem.llm.errors import InfraError
from execmem.suites.vehicle.dataset import Question
from execmem.suites.vehicle.environment import VehicleEnvironment, module_catalogue

_SYSTEM = AGENT_SYSTEM.format(catalogue=module_catalogue())


@dataclass
class VehicleEpisode:
    question: Question
    environment: VehicleEnvironment
    loop: LoopResult
    prompt_memory_tokens: int
    seconds: float

    @property
    def memory_tokens(self) -> int:
        """MemToken of this episode: memory text in the prompt plus memory-tool results."""
        return self.prompt_memory_tokens + self.loop.memory_tool_tokens


def build_messages(question: Question, memory: ScenarioMemory) -> tuple[list[dict[str, Any]], int]:
    """The opening messages, and the size of the memory text they carry."""
    text = memory.prompt_memory(question)
    tools = memory.tools()
    if text is not None:
        block = MEMORY_BLOCK.format(memory=text)
    elif tools is not None:
        block = MEMORY_TOOL_HINT.format(tools=", ".join(s["name"] for s in tools.schemas()))
    else:
        block = ""
    user = REQUEST.format(memory_block=block, query=question.query)
    messages = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]
    return messages, estimate_tokens(text) if text else 0


class EpisodeAborted(Exception):
    """The endpoint failed mid-episode (``cause``); ``episode`` holds what was done until then."""

    def __init__(self, cause: InfraError, episode: VehicleEpisode) -> None:
        super().__init__(cause.reason)
        self.cause, self.episode = cause, episode


async def solve(question: Question, memory: ScenarioMemory, model: Model, max_steps: int) -> VehicleEpisode:
    """Run one episode on a fresh car; an InfraError from the model becomes :class:`EpisodeAborted`."""
    started = time.perf_counter()
    messages, memory_tokens = build_messages(question, memory)
    episode = VehicleEpisode(question, VehicleEnvironment(), LoopResult(messages), memory_tokens, 0.0)
    try:
        await run_tool_loop(model, episode.environment, messages, memory.tools(), max_steps, episode.loop)
    except InfraError as exc:
        raise EpisodeAborted(exc, episode) from exc
    finally:
        episode.seconds = time.perf_counter() - started
    return episode
