"""The agent loops alone, against the in-process ScriptedModel (no server, no client): fast checks of
what each loop does with replies. The same loops run through HTTP in tests/runs and tests/coding."""

from __future__ import annotations

import asyncio

from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.prompts import MEMORY_OPEN, SUBMIT_COMMAND
from execmem.agents.coding.solver import solve as solve_coding
from execmem.agents.vehicle.agent import solve as solve_vehicle
from execmem.agents.vehicle.conditions.base import PromptMemory
from execmem.suites.coding.sandbox.process import CommandResult
from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.dataset import Question
from execmem.testing.scripted_model import ScriptedModel, calls, text

HEATING = ToolCall("carcontrol_seat_set_heating_level", {"seat": "driver", "level": 3})
QUESTION = Question(1, 0, "state_shift", "Warm my seat.", "[April 1, 2025] At 9:00 AM, ...", (), (HEATING,))


def test_vehicle_loop_lists_a_module_then_acts_on_the_car():
    model = ScriptedModel(
        [
            calls(("list_module_tools", {"module_name": "seat"})),
            calls((HEATING.name, HEATING.args), (HEATING.name, "{broken")),
            text("Done."),
        ]
    )
    memory = PromptMemory(text="Gary likes his seat warm (level 3).")
    episode = asyncio.run(solve_vehicle(QUESTION, memory, model, max_steps=5))
    assert episode.environment.calls == [HEATING]
    assert episode.environment.world.module("seat").state["driver"]["heating_level"] == 3
    assert (episode.loop.steps, episode.loop.end_reason) == (3, "answered")
    assert episode.loop.errors == {"malformed_arguments": 1}
    assert "Gary likes his seat warm" in model.requests[0]["messages"][1]["content"]
    offered = [tool["function"]["name"] for tool in model.requests[1]["tools"]]
    assert HEATING.name in offered and HEATING.name not in [
        t["function"]["name"] for t in model.requests[0]["tools"]
    ]


def test_vehicle_loop_stops_at_max_steps():
    model = ScriptedModel([calls(("list_module_tools", {"module_name": "seat"}))] * 2)
    episode = asyncio.run(solve_vehicle(QUESTION, PromptMemory(), model, max_steps=2))
    assert (episode.loop.steps, episode.loop.end_reason, episode.environment.calls) == (2, "max_steps", [])


class Shell:
    """Where the solver's commands go: records them; the submit command prints the sentinel."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def run(self, command: str, timeout_s: float) -> CommandResult:
        self.commands.append(command)
        output = "EXECMEM_SUBMIT\n" if command == SUBMIT_COMMAND else f"ran {command}\n"
        return CommandResult(0, output, "", False, 0.01)


def test_coding_solver_runs_commands_until_submission():
    model = ScriptedModel(
        [
            calls(("bash", {"command": "ls"})),
            text("I think I am done."),  # no tool call: a format error and a reminder
            calls(("bash", {"command": SUBMIT_COMMAND}), ("bash", {"command": "rm -rf ."})),
        ]
    )
    shell = Shell()
    config = SolverConfig(tokenizer="chars")
    result = asyncio.run(solve_coding(model, shell, "add() is wrong", "an earlier fix", config))
    assert shell.commands == ["ls", SUBMIT_COMMAND]  # nothing runs after the submission
    assert (result.end_reason, result.steps, result.commands) == ("submitted", 3, 2)
    assert result.errors == {"no_tool_call": 1}
    assert MEMORY_OPEN in model.requests[0]["messages"][1]["content"]
    assert model.requests[2]["messages"][-1]["content"].startswith("Call the `bash` tool")


def test_coding_solver_stops_at_its_step_budget():
    model = ScriptedModel([calls(("bash", {"command": "true"}))] * 2)
    result = asyncio.run(
        solve_coding(model, Shell(), "bug", None, SolverConfig(max_steps=2, tokenizer="chars"))
    )
    assert (result.end_reason, result.steps, result.commands) == ("max_steps", 2, 2)
    assert MEMORY_OPEN not in model.requests[0]["messages"][1]["content"]
