"""The trajectory of a mini-swe-agent episode, one line per step in the built-in solver's shape.

A step is one model call and the commands it asked for. The model adapter opens it (the
assistant message, tokens, timing), the environment adds each command's result, and the agent
closes it once its actions ran (or the reply was refused as a format error).
"""

from __future__ import annotations

from typing import Any

from execmem.agents.coding.solver import Clock, StepHook
from execmem.agents.tool_loop import assistant_message, call_record
from execmem.core.protocols import ModelReply


class StepLog:
    """Builds step records and hands each finished one to ``on_step``."""

    def __init__(self, on_step: StepHook | None, clock: Clock) -> None:
        self.on_step, self.clock = on_step, clock
        self.steps = 0
        self._open: dict[str, Any] | None = None

    def begin(self, reply: ModelReply) -> None:
        self.steps += 1
        self._open = {"step": self.steps, "assistant": assistant_message(reply), "tool_results": []}
        self._open |= call_record(reply)

    def result(self, record: dict[str, Any]) -> None:
        if self._open is not None:
            self._open["tool_results"].append(record)

    def end(self) -> None:
        """Hand the open step on (nothing happens when no step is open)."""
        if self._open is None:
            return
        record, self._open = self._open, None
        record["elapsed_s"] = round(self.clock.elapsed(), 3)
        if self.on_step is not None:
            self.on_step(record)
