"""Compressing a solver trajectory into the text a history item carries (a documented, fixed rule).

Input: the lines of ``trajectories/<task>@<seed>.jsonl`` as a coding run writes them (the opening
messages, one line per step, then the end reason and the evaluation). Output, rule
``trajectory-compress-v1``:

* the opening messages (system prompt, issue, memory) and the evaluation are left out: the issue is
  carried apart, and the test results are the harness's, not the solver's;
* per step ``step N:``, then the assistant's text (whitespace collapsed, cut to 300 characters);
* per command ``$ COMMAND`` (cut to 400 characters), ``-> exit CODE`` (``, timed out``), and its
  output's first 6 and last 4 lines (each cut to 160 characters), the lines between counted;
  a refused call as ``! KIND: MESSAGE``; the submission command as ``$ echo EXECMEM_SUBMIT``;
* a last line ``end: REASON``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

COMPRESSION_VERSION = "trajectory-compress-v1"
_TEXT_CHARS, _COMMAND_CHARS, _LINE_CHARS = 300, 400, 160
_HEAD, _TAIL = 6, 4


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _output_lines(output: str) -> list[str]:
    lines = [_cut(line.rstrip(), _LINE_CHARS) for line in output.strip("\n").splitlines()]
    if len(lines) <= _HEAD + _TAIL:
        return lines
    hidden = len(lines) - _HEAD - _TAIL
    return [*lines[:_HEAD], f"[... {hidden} lines ...]", *lines[-_TAIL:]]


def _tool_lines(result: dict[str, Any]) -> list[str]:
    if "error" in result:
        return [f"! {result['error']}: {result.get('message', '')}"]
    lines = [f"$ {_cut(str(result.get('command', '')), _COMMAND_CHARS)}"]
    if result.get("submitted"):
        return lines
    status = f"-> exit {result.get('exit_code')}" + (", timed out" if result.get("timed_out") else "")
    return [*lines, status, *("  " + line for line in _output_lines(str(result.get("output", ""))))]


def _step_lines(step: dict[str, Any]) -> list[str]:
    lines = [f"step {step['step']}:"]
    text = " ".join(str((step.get("assistant") or {}).get("content") or "").split())
    if text:
        lines.append(_cut(text, _TEXT_CHARS))
    for result in step.get("tool_results") or []:
        lines += _tool_lines(result)
    return lines


def compress_trajectory(lines: Iterable[dict[str, Any]]) -> str:
    """The compressed text of one trajectory (see the module docstring for the rule)."""
    out: list[str] = []
    for line in lines:
        if "step" in line:
            out += _step_lines(line)
        elif "end_reason" in line:
            out.append(f"end: {line['end_reason']}")
    return "\n".join(out)
