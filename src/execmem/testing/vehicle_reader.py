"""The scripted reader: a fake-server policy whose answers depend on what memory delivered.

The oracle (``vehicle_oracle``) makes every gold call whatever the memory, so offline every memory
scores the same. The reader knows the gold calls too, but may only use a value the memory gave
it. A question's *memory values* are its gold values (``evidence.gold_values``: the strings and
numbers of the gold calls, selectors and booleans aside) that its request text does not state.
The reader makes a gold call with a memory value only when that value occurs (as a whole word,
time stamps and event dates ignored) in what memory showed it:

* protocol A: the memory text in its prompt (``gold``, ``full-history``, ``summary``);
* protocol B: the results of one memory search it asks for with the request text
  (``search_memory`` of a memory system, ``memory_search`` of ``key-value``).

**Fallback**, when a memory value was not delivered: the reader acts as a model that does not
know the preference, and keeps the setting the car already has. It makes the call with that
argument set to the value a fresh car has for the field the gold call sets (found by running the
gold call on a fresh car and reading the field that took the gold value); when that field is
empty on a fresh car (a destination, a song), it leaves the call out. It lists the modules of the
calls it makes, then makes them in one step, then answers "Done."; with no call left it answers
in words. Deterministic: the same request always gets the same answer.

Its ESM is what a perfect reader would achieve with the memory: it never misreads, mixes up
people or takes an outdated value once the right value is in front of it. That makes it an
upper bound of memory's contribution (a model scores at most this from memory; it can only
do better by guessing or by working out a value that is not written, such as "two degrees
warmer"), and a zero-cost end-to-end figure for any memory beside the retrieval audit. Memory
building requests get a short answer without tool calls, so ``summary`` and ``key-value`` built
by the reader hold nothing. Serve it with
``python -m execmem.testing.fake_server --policy reader [--data DIR]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execmem.agents.vehicle.transcript import shown_memory
from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.dataset import Question, load_questions
from execmem.suites.vehicle.diff import values_equal
from execmem.suites.vehicle.environment import LIST_TOOLS
from execmem.suites.vehicle.evidence import Value, memory_values
from execmem.suites.vehicle.execution import MISSING, changed_paths, run_calls
from execmem.suites.vehicle.release import resolve_data_dir
from execmem.suites.vehicle.retrieval import values_present
from execmem.suites.vehicle.world import TOOLS, initial_module_flat
from execmem.testing.fake_policies import Reply, ToolCallSpec
from execmem.testing.vehicle_oracle import request_query

SEARCH_TOOLS = ("search_memory", "memory_search")  # protocol B, then key-value
BUILD_ANSWER = "No in-car preferences were mentioned."
UNKNOWN = "I do not know this request."
NOTHING_TO_DO = "I do not know their preference, so I changed nothing."


def search_call(body: dict[str, Any], query: str) -> ToolCallSpec | None:
    """One search of the offered memory tool with the request text, or None when none is offered."""
    tools = {t.get("function", {}).get("name"): t.get("function", {}) for t in body.get("tools") or []}
    for name in SEARCH_TOOLS:
        if name in tools:
            properties = tools[name].get("parameters", {}).get("properties", {})
            argument = "query" if "query" in properties else next(iter(properties), "query")
            return ToolCallSpec(name, {argument: query})
    return None


def kept_setting(call: ToolCall, argument: str) -> Value | None:
    """The value a fresh car has for the field ``call`` sets through ``argument`` (None when that
    field is empty or missing on a fresh car, or no field takes the argument's value)."""
    target = call.args[argument]
    world, _ = run_calls([call])
    for path, value in changed_paths(world).items():
        if value is MISSING or (isinstance(value, bool) and not isinstance(target, bool)):
            continue
        if values_equal(value, target):
            kept = initial_module_flat(path.split(".", 1)[0]).get(path)
            return None if kept == "" else kept
    return None


def read_calls(question: Question, memory_text: str) -> list[ToolCall]:
    """The gold calls, each memory value the memory did not show replaced by the car's own setting;
    a call whose setting has no value on a fresh car is left out."""
    needed = memory_values(question)
    missing = {_key(v) for v in needed} - {_key(v) for v in values_present(needed, memory_text)}
    calls = []
    for call in question.gold_calls:
        args: dict[str, Any] | None = dict(call.args)
        for name, value in call.args.items():
            if args is not None and _is_missing(value, missing):
                kept = kept_setting(call, name)
                args = None if kept is None else {**args, name: kept}
        if args is not None:
            calls.append(ToolCall(call.name, args))
    return calls


def _is_missing(value: Any, missing: set[Value]) -> bool:
    return not isinstance(value, bool) and isinstance(value, str | int | float) and _key(value) in missing


def _key(value: Value) -> Value:
    """Values compare as ``gold_values`` dedups them: strings case-insensitively."""
    return value.lower() if isinstance(value, str) else value


class ReaderPolicy:
    """The reader over a release's questions (a duplicated request text maps to its first question)."""

    def __init__(self, questions: list[Question]) -> None:
        self.by_query: dict[str, Question] = {}
        for question in questions:
            self.by_query.setdefault(question.query, question)

    def __call__(self, body: dict[str, Any]) -> Reply:
        query = request_query(body)
        if query is None:
            return Reply(content=BUILD_ANSWER)
        question = self.by_query.get(query)
        if question is None:
            return Reply(content=UNKNOWN)
        step = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        plan = self.plan(question, body)
        if step < len(plan):
            return Reply(tool_calls=plan[step])
        acted = any(spec.name.startswith("carcontrol_") for specs in plan for spec in specs)
        return Reply(content="Done." if acted else NOTHING_TO_DO)

    def plan(self, question: Question, body: dict[str, Any]) -> list[list[ToolCallSpec]]:
        """The tool calls of each step: the memory search (if a memory tool is offered), the module
        listings, the calls."""
        search = search_call(body, question.query)
        steps = [[search]] if search else []
        calls = read_calls(question, shown_memory(body.get("messages", [])))
        if not calls:
            return steps
        modules = dict.fromkeys(TOOLS[c.name].module for c in calls if c.name in TOOLS)
        listing = [ToolCallSpec(LIST_TOOLS, {"module_name": m}) for m in modules]
        return [*steps, listing, [ToolCallSpec(c.name, json.dumps(c.args)) for c in calls]]


def reader(data: str | None = None) -> ReaderPolicy:
    """Factory for ``--policy``: the reader over the release in ``data`` (default: as every command
    finds it)."""
    return ReaderPolicy(load_questions(resolve_data_dir(Path(data) if data else None)))
