"""mini-swe-agent's ``Model`` over execmem's chat client, so both solvers are measured the same way.

mini-swe-agent's loop is synchronous and runs in a worker thread; each ``query`` sends the
conversation (its ``extra`` bookkeeping left out) through the episode's ``Model`` on the run's event
loop: the same client, per-seed sampling, retries, infrastructure errors and response cache as the
built-in solver. Before every call the built-in solver's budgets are checked in its order (steps,
tokens, time, context; ``solver.budget_exhausted``) and end the episode with its end reasons;
mini-swe-agent's own step, cost and time limits are off. A reply mini-swe-agent cannot parse (no
tool call, another tool, arguments without ``command``) is fed back with its format-error message
and counted in the episode's model errors, as one error per reply.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.miniswe.library import Templates, exit_message, library
from execmem.agents.coding.miniswe.steps import StepLog
from execmem.agents.coding.solver import Clock, SolveResult, budget_exhausted
from execmem.agents.tool_loop import assistant_message, parse_arguments
from execmem.core.protocols import Model, ModelReply
from execmem.llm.errors import ContextOverflow


class EpisodeCancelled(RuntimeError):
    """The episode's task was cancelled while mini-swe-agent waited for the model."""


def error_kind(reply: ModelReply) -> str:
    """Which model error a reply mini-swe-agent refused counts as."""
    if not reply.tool_calls:
        return "no_tool_call"
    for call in reply.tool_calls:
        if call.name != "bash":
            return "unknown_tool"
        arguments = parse_arguments(call.arguments)
        if arguments is None or "command" not in arguments:
            return "malformed_arguments"
    return "format_error"


def tool_calls(reply: ModelReply) -> list[SimpleNamespace]:
    """The reply's tool calls in the shape mini-swe-agent's parser reads."""
    return [
        SimpleNamespace(id=c.id, function=SimpleNamespace(name=c.name, arguments=c.arguments))
        for c in reply.tool_calls
    ]


class EndpointModel:
    """mini-swe-agent's model protocol: ``query``, message formatting, template variables."""

    def __init__(
        self,
        model: Model,
        loop: asyncio.AbstractEventLoop,
        settings: SolverConfig,
        templates: Templates,
        episode: tuple[Clock, SolveResult, StepLog, threading.Event],
        count_tokens: Callable[[str], int],
    ) -> None:
        self.model, self.loop, self.settings, self.templates = model, loop, settings, templates
        self.clock, self.result, self.log, self.stop = episode
        self.count_tokens = count_tokens
        self.tool = library().BASH_TOOL
        self.config = {"model_name": model.describe().get("model", "")}

    def query(self, messages: list[dict[str, Any]], **_: Any) -> dict[str, Any]:
        sent = [{k: v for k, v in m.items() if k != "extra"} for m in messages]
        self.result.messages = sent
        reason = budget_exhausted(self.result, self.settings, self.clock.left(), self.count_tokens)
        if reason:
            raise library().LimitsExceeded(exit_message(reason))
        try:
            reply = self._complete(sent)
        except ContextOverflow:  # the endpoint's window, not the estimate, ran out
            raise library().LimitsExceeded(exit_message("context_length")) from None
        self._count(reply)
        actions = self._actions(reply)
        usage = {"input_tokens": reply.usage.input_tokens, "output_tokens": reply.usage.output_tokens}
        return {**assistant_message(reply), "extra": {"actions": actions, "cost": 0.0, "usage": usage}}

    def format_message(self, **kwargs: Any) -> dict[str, Any]:
        return dict(kwargs)

    def format_observation_messages(
        self, message: dict[str, Any], outputs: list[dict[str, Any]], template_vars: dict | None = None
    ) -> list[dict[str, Any]]:
        return library().observations(
            actions=message.get("extra", {}).get("actions", []),
            outputs=outputs,
            observation_template=self.templates.observation,
            template_vars=template_vars,
        )

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {**self.config, **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"config": {"model": self.model.describe(), "model_type": "execmem client"}}}

    def _complete(self, messages: list[dict[str, Any]]) -> ModelReply:
        """The episode's model call, run on the event loop; given up when the episode is cancelled."""
        future = asyncio.run_coroutine_threadsafe(self.model.complete(messages, [self.tool]), self.loop)
        while True:
            try:
                return future.result(timeout=0.5)
            except concurrent.futures.TimeoutError:
                if self.stop.is_set():
                    future.cancel()
                    raise EpisodeCancelled("the episode was cancelled while waiting for the model") from None

    def _count(self, reply: ModelReply) -> None:
        self.result.steps += 1
        self.result.usage += reply.usage
        self.result.model_latency_s += reply.latency_s
        self.log.begin(reply)

    def _actions(self, reply: ModelReply) -> list[dict[str, Any]]:
        """The reply's commands; a reply mini-swe-agent refuses closes its step as an error."""
        lib = library()
        try:
            return lib.parse_actions(
                tool_calls(reply),
                format_error_template=self.templates.format_error,
                template_kwargs={"finish_reason": reply.finish_reason},
            )
        except lib.FormatError as error:
            kind = error_kind(reply)
            self.result.errors[kind] += 1
            self.log.result({"error": kind, "message": error.messages[0]["content"]})
            self.log.end()
            raise
