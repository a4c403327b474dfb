"""The coding solvers a run can use, behind one small protocol: the built-in bash solver and mini-swe-agent.

A solver opens an episode (its first messages, with the one memory slot), runs it on the
episode's sandbox under the run's budgets, and describes itself for the manifest: its kind and
version (so runs of different solvers never pair) and the tool schemas it offers.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from execmem.agents.coding.bash_tool import BASH_SCHEMA, CommandRunner
from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.prompts import MEMORY_SLOT_RULE, PROMPT_VERSION, SUBMIT_COMMAND
from execmem.agents.coding.solver import SolveResult, StepHook, opening_messages, solve
from execmem.core.protocols import Model

SolverKind = Literal["bash", "miniswe"]


class CodingSolver(Protocol):
    """What a coding episode needs from its solver."""

    def opening_messages(self, statement: str, memory: str | None) -> list[dict[str, Any]]: ...

    async def solve(
        self,
        model: Model,
        runner: CommandRunner,
        statement: str,
        memory: str | None,
        config: SolverConfig,
        on_step: StepHook | None = None,
    ) -> SolveResult: ...

    def describe(self) -> dict[str, Any]: ...

    def tools(self) -> list[dict[str, Any]]: ...


class BashSolver:
    """The built-in solver (``agents.coding.solver``): one ``bash`` tool, sentinel submission."""

    opening_messages = staticmethod(opening_messages)
    solve = staticmethod(solve)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "execmem-bash",
            "prompt_version": PROMPT_VERSION,
            "submit": f"a bash command whose output starts with the line of `{SUBMIT_COMMAND}`",
            "memory_slot": MEMORY_SLOT_RULE,
        }

    def tools(self) -> list[dict[str, Any]]:
        return [BASH_SCHEMA]


def make_solver(kind: SolverKind) -> CodingSolver:
    """The solver ``kind`` names; ``miniswe`` needs the extra (``MissingExtraError`` otherwise)."""
    if kind == "miniswe":
        from execmem.agents.coding.miniswe.solver import MiniSweSolver

        return MiniSweSolver()
    return BashSolver()
