"""The solver's only tool: ``bash``, one shell command in the episode's sandbox.

A command whose output starts with the line ``EXECMEM_SUBMIT`` ends the
episode (the agent runs ``echo EXECMEM_SUBMIT``). Output is shown head and
tail, cut to ``output_chars`` characters, so one command cannot flood the context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from execmem.agents.coding.prompts import SUBMIT_COMMAND, SUBMIT_SENTINEL
from execmem.suites.coding.sandbox.process import CommandResult

BASH_SCHEMA: dict[str, Any] = {
    "name": "bash",
    "description": (
        "Run one bash command in the repository's root folder and return its exit code and output. "
        f"Run `{SUBMIT_COMMAND}` to submit your changes and finish."
    ),
    "parameters": {
        "type": "object",
        "properties": {"command": {"type": "string", "description": "The command to run."}},
        "required": ["command"],
    },
}


class CommandRunner(Protocol):
    """Where commands run (an ``Episode`` matches this)."""

    def run(self, command: str, timeout_s: float) -> CommandResult: ...


@dataclass(frozen=True)
class Observation:
    """What one bash call returned, as shown to the model and kept in the trajectory."""

    command: str
    exit_code: int
    output: str
    timed_out: bool
    duration_s: float
    submitted: bool

    def to_model(self) -> str:
        status = f"exit code {self.exit_code}" + (" (killed: time limit reached)" if self.timed_out else "")
        return f"[{status}]\n{self.output}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "duration_s": round(self.duration_s, 3),
            "submitted": self.submitted,
            "output": self.output,
        }


def run_bash(runner: CommandRunner, command: str, timeout_s: float, output_chars: int) -> Observation:
    """Run ``command`` and shape its result for the model."""
    result = runner.run(command, timeout_s)
    combined = result.stdout + (f"\n[stderr]\n{result.stderr}" if result.stderr else "")
    return Observation(
        command=command,
        exit_code=result.exit_code,
        output=truncate_middle(combined, output_chars),
        timed_out=result.timed_out,
        duration_s=result.duration_s,
        submitted=is_submission(result),
    )


def is_submission(result: CommandResult) -> bool:
    """The first line of the command's output is the sentinel."""
    lines = result.stdout.lstrip().splitlines()
    return bool(lines) and lines[0].strip() == SUBMIT_SENTINEL


def truncate_middle(text: str, limit: int) -> str:
    """``text`` if it fits, else its head and tail with a note of how much was cut."""
    if len(text) <= limit:
        return text
    note = f"\n[... {len(text) - limit} characters cut ...]\n"
    head = (limit - len(note)) // 2
    tail = limit - len(note) - head
    return text[:head] + note + text[len(text) - tail :]
