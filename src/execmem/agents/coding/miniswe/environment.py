"""mini-swe-agent's ``Environment`` over an episode's sandbox: each action is one command, run exactly
as the built-in solver runs it (``bash_tool.run_bash``: the same sandbox, at most
``command_timeout_s`` and never past the episode's time, output cut to ``output_chars`` head and
tail). Submission is mini-swe-agent's rule: the output's first line is
``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` and the command exits 0.
"""

from __future__ import annotations

import platform
from typing import Any

from execmem.agents.coding.bash_tool import CommandRunner, run_bash
from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.miniswe.library import exit_message, library
from execmem.agents.coding.miniswe.steps import StepLog
from execmem.agents.coding.solver import Clock, SolveResult

SUBMIT_LINE = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
SUBMIT_RULE = f"a command whose output starts with the line {SUBMIT_LINE} and that exits 0"
NOT_RUN = "not run: the episode's time limit is reached"


def system_vars() -> dict[str, str]:
    """What mini-swe-agent's prompt shows of the machine (``{{system}} {{release}} ...``)."""
    return platform.uname()._asdict()


class SandboxEnvironment:
    """Runs mini-swe-agent's actions through ``runner`` (an ``Episode``)."""

    def __init__(
        self, runner: CommandRunner, config: SolverConfig, clock: Clock, result: SolveResult, log: StepLog
    ) -> None:
        self.runner, self.settings, self.clock, self.result, self.log = runner, config, clock, result, log
        self.config = {"command_timeout_s": config.command_timeout_s, "output_chars": config.output_chars}

    def execute(self, action: dict[str, Any], cwd: str = "", **_: Any) -> dict[str, Any]:
        command, call_id = action.get("command"), action.get("tool_call_id")
        if not isinstance(command, str):  # mini-swe-agent checks only that the argument is there
            self.result.errors["malformed_arguments"] += 1
            return self._refused(call_id, "malformed_arguments", "the command must be a string")
        time_left = self.clock.left()
        if time_left <= 0:
            return self._refused(call_id, "time_limit", NOT_RUN)
        timeout_s = min(self.settings.command_timeout_s, time_left)
        observation = run_bash(self.runner, command, timeout_s, self.settings.output_chars)
        self.result.commands += 1
        lines = observation.output.lstrip().splitlines(keepends=True)
        submitted = bool(lines) and lines[0].strip() == SUBMIT_LINE and observation.exit_code == 0
        self.log.result({"tool_call_id": call_id, **observation.to_dict(), "submitted": submitted})
        if submitted:
            self.result.end_reason = "submitted"
            raise library().Submitted(exit_message("Submitted", "".join(lines[1:])))
        killed = f"the command was killed: its time limit ({timeout_s:.0f} s) was reached"
        return {
            "output": observation.output,
            "returncode": observation.exit_code,
            "exception_info": killed if observation.timed_out else "",
        }

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {**self.config, **system_vars(), **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"config": {"environment": self.config, "environment_type": "execmem sandbox"}}}

    def _refused(self, call_id: str | None, kind: str, message: str) -> dict[str, Any]:
        self.log.result({"tool_call_id": call_id, "error": kind, "message": message})
        return {"output": "", "returncode": -1, "exception_info": message}
