"""The scripted vehicle solver: a fake-server policy that makes each question's gold calls.

``oracle`` lists the modules of the gold calls, then makes the gold calls,
then answers. With ``mistakes`` > 0 it errs on that share of the questions
(deterministically per seed), in the ways real models do: a wrong value, a
missing or extra call, malformed arguments, an unknown tool, a tool used
before its module was listed; which questions depends on the request's ``seed`` too, when it
sends one, so repeated trials of a run (``--trials``) differ. Memory-building requests (no
"Request:" in the prompt) get a short text answer. Serve it with
``python -m execmem.testing.fake_server --data`` (or ``--policy oracle --arg mistakes=0.1``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from execmem.agents.vehicle.prompts import REQUEST_MARKER
from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.dataset import Question, load_questions
from execmem.suites.vehicle.environment import LIST_TOOLS
from execmem.suites.vehicle.release import resolve_data_dir
from execmem.suites.vehicle.world import TOOLS
from execmem.testing.fake_policies import Reply, ToolCallSpec

MISTAKES = (
    "wrong_value",
    "missing_call",
    "extra_call",
    "malformed_arguments",
    "unknown_tool",
    "unlisted_module",
)
EXTRA_CALL = ToolCall("carcontrol_bluetooth_set_connection", {"connected": True})


def request_query(body: dict[str, Any]) -> str | None:
    """The request text of an agent prompt, or None for other requests (memory building)."""
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str) and REQUEST_MARKER in content:
            return content.rsplit(REQUEST_MARKER, 1)[1]
    return None


class OraclePolicy:
    def __init__(self, questions: list[Question], mistakes: float = 0.0, seed: int = 0) -> None:
        self.by_query: dict[str, Question] = {}
        for question in questions:  # a duplicated query text maps to its first question
            self.by_query.setdefault(question.query, question)
        self.mistakes, self.seed = mistakes, seed

    def mistake(self, question: Question, request_seed: Any = None) -> str | None:
        key = (
            f"{self.seed}:{question.id}"
            if request_seed is None
            else f"{self.seed}:{request_seed}:{question.id}"
        )
        digest = hashlib.sha256(key.encode()).digest()
        if int.from_bytes(digest[:8]) / 2**64 >= self.mistakes:
            return None
        return MISTAKES[digest[8] % len(MISTAKES)]

    def __call__(self, body: dict[str, Any]) -> Reply:
        query = request_query(body)
        if query is None:
            return Reply(content="No in-car preferences were mentioned.")
        question = self.by_query.get(query)
        if question is None:
            return Reply(content="I do not know this request.")
        step = sum(1 for m in body["messages"] if m.get("role") == "assistant")
        plan = self.plan(question, body.get("seed"))
        return Reply(tool_calls=plan[step]) if step < len(plan) else Reply(content="Done.")

    def plan(self, question: Question, request_seed: Any = None) -> list[list[ToolCallSpec]]:
        """The tool calls of each step."""
        kind = self.mistake(question, request_seed)
        calls = _with_mistake(list(question.gold_calls), kind)
        listing = [ToolCallSpec(LIST_TOOLS, {"module_name": m}) for m in _modules(calls)]
        specs = [ToolCallSpec(c.name, c.args) for c in calls]
        if kind == "malformed_arguments":
            specs[0] = ToolCallSpec(specs[0].name, '{"broken": ')
        if kind == "unlisted_module":
            return [specs[:1], listing, specs]
        return [listing, specs]


def _modules(calls: list[ToolCall]) -> list[str]:
    return list(dict.fromkeys(TOOLS[c.name].module for c in calls if c.name in TOOLS))


def _with_mistake(calls: list[ToolCall], kind: str | None) -> list[ToolCall]:
    if kind == "wrong_value":
        return [_shift_value(calls[0]), *calls[1:]]
    if kind == "missing_call":
        return calls[:-1]
    if kind == "extra_call":
        return [*calls, EXTRA_CALL]
    if kind == "unknown_tool":
        return [ToolCall(calls[0].name + "_v2", calls[0].args), *calls[1:]]
    return calls


def _shift_value(call: ToolCall) -> ToolCall:
    args = dict(call.args)
    for key, value in args.items():
        if isinstance(value, int) and not isinstance(value, bool):
            args[key] = value - 1 if value > 1 else value + 1
            return ToolCall(call.name, args)
        if isinstance(value, bool):
            args[key] = not value
            return ToolCall(call.name, args)
    return ToolCall(call.name, {**args, **{k: f"{v}x" for k, v in args.items() if isinstance(v, str)}})


def oracle(data: str | None = None, mistakes: str = "0", seed: str = "0") -> OraclePolicy:
    """Factory for ``--policy``: every argument arrives as a string."""
    questions = load_questions(resolve_data_dir(Path(data) if data else None))
    return OraclePolicy(questions, float(mistakes), int(seed))
