"""mini-swe-agent's ``DefaultAgent`` as a coding solver, with the one memory slot and execmem's budgets.

The prompts are mini-swe-agent's ``mini.yaml`` (its tool-calling agent); the only change is the
memory slot: the built-in solver's ``<memory>`` section (``prompts.MEMORY_SLOT``), placed at the
top of the first user message when there is memory text, and absent otherwise. The loop is
mini-swe-agent's own (``DefaultAgent.run``), with its limits and its format-error cap off: the
built-in solver's budgets end the episode instead (see ``model``). The episode ends when a command
submits (see ``environment``); what is scored is the working copy, as for the built-in solver.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from typing import Any

from execmem.agents.coding.bash_tool import CommandRunner
from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.miniswe.environment import SUBMIT_RULE, SandboxEnvironment, system_vars
from execmem.agents.coding.miniswe.library import CONFIG, library, templates
from execmem.agents.coding.miniswe.model import EndpointModel
from execmem.agents.coding.miniswe.steps import StepLog
from execmem.agents.coding.prompts import MEMORY_SLOT, MEMORY_SLOT_RULE
from execmem.agents.coding.solver import Clock, SolveResult, StepHook, counter
from execmem.core.protocols import Model

SLOT_VARIABLE = "{{memory_slot}}"


def memory_slot(memory: str | None) -> str:
    """The memory section that opens the first user message ("" without memory text)."""
    return MEMORY_SLOT.format(memory=memory) if memory else ""


@functools.cache
def recording_agent() -> type:
    """mini-swe-agent's ``DefaultAgent``, closing each step's trajectory line once its actions ran."""

    class RecordingAgent(library().DefaultAgent):
        log: StepLog

        def execute_actions(self, message: dict[str, Any]) -> list[dict[str, Any]]:
            try:
                return super().execute_actions(message)
            finally:
                self.log.end()

    return RecordingAgent


class MiniSweSolver:
    """The ``CodingSolver`` running mini-swe-agent (``agents.coding.solvers``)."""

    def __init__(self) -> None:
        self.templates = templates()  # MissingExtraError now, before any episode, without the extra

    def opening_messages(self, statement: str, memory: str | None) -> list[dict[str, Any]]:
        """The system and first user messages, rendered as mini-swe-agent renders them."""
        from jinja2 import StrictUndefined, Template

        variables = {**system_vars(), "task": statement, "memory_slot": memory_slot(memory)}
        system, user = (
            Template(text, undefined=StrictUndefined).render(**variables)
            for text in (self.templates.system, self._instance())
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    async def solve(
        self,
        model: Model,
        runner: CommandRunner,
        statement: str,
        memory: str | None,
        config: SolverConfig,
        on_step: StepHook | None = None,
    ) -> SolveResult:
        clock, stop = Clock(config.time_limit_s), threading.Event()
        result = SolveResult(messages=self.opening_messages(statement, memory))
        log = StepLog(on_step, clock)
        count = counter(config.tokenizer, model.describe().get("model", "")).count
        endpoint = EndpointModel(
            model, asyncio.get_running_loop(), config, self.templates, (clock, result, log, stop), count
        )
        agent = recording_agent()(
            endpoint, SandboxEnvironment(runner, config, clock, result, log),
            system_template=self.templates.system, instance_template=self._instance(),
            step_limit=0, cost_limit=0.0, wall_time_limit_seconds=0, max_consecutive_format_errors=0,
        )  # fmt: skip
        agent.log = log
        try:
            ending = await asyncio.to_thread(agent.run, statement, memory_slot=memory_slot(memory))
        except asyncio.CancelledError:
            stop.set()  # the agent's thread stops at its next model call
            raise
        status = ending.get("exit_status", "")
        result.end_reason = "submitted" if status == "Submitted" else status
        result.messages = [{k: v for k, v in m.items() if k != "extra"} for m in agent.messages]
        result.seconds = clock.elapsed()
        return result

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "mini-swe-agent",
            "version": library().version,
            "agent": "minisweagent.agents.default.DefaultAgent",
            "config": CONFIG,
            "templates_sha256": self.templates.sha256(),
            "submit": SUBMIT_RULE,
            "memory_slot": MEMORY_SLOT_RULE,
            "limits": "mini-swe-agent's step, cost, time and format-error limits off; the budgets apply",
        }

    def tools(self) -> list[dict[str, Any]]:
        return [library().BASH_TOOL["function"]]

    def _instance(self) -> str:
        return SLOT_VARIABLE + self.templates.instance
