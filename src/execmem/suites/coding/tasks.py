"""Coding tasks in the SWE-bench / SWE-rebench record format, read and written as JSON lines.

SWE-bench stores ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` as JSON strings; both that
and real lists are accepted. Every loading error names the file, the line and
the field, taken from pydantic's error locations.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from execmem.core.files import atomic_write
from execmem.core.jsonl import JsonlError, loads, read_jsonl
from execmem.core.pydantic_errors import first_error

JUNIT_PLACEHOLDER = "{junit}"
REPO_PLACEHOLDER = "{repo}"


class TaskFileError(ValueError):
    """A malformed task file; the message names the file, the line and the field."""


class CodingTask(BaseModel):
    """One repository, one bug, the tests that show it and the patch that fixes it."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    instance_id: str = Field(min_length=1)
    repo: str = Field(min_length=1)
    base_commit: str = ""
    problem_statement: str = Field(min_length=1)
    patch: str = ""
    test_patch: str = ""
    FAIL_TO_PASS: list[str] = Field(min_length=1)
    PASS_TO_PASS: list[str] = Field(default_factory=list)
    created_at: datetime
    version: str = Field(min_length=1)
    install: list[str] = Field(default_factory=list)
    test_cmd: str = Field(min_length=1)
    source: dict[str, Any] = Field(default_factory=dict)
    env: dict[str, str] = Field(default_factory=dict)
    """Environment variables for agent commands and tests; ``{repo}`` becomes the repository folder."""
    image_name: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)
    """How the task was made (e.g. the mutation operator); for analysis, never shown to the agent."""

    @field_validator("FAIL_TO_PASS", "PASS_TO_PASS", "install", mode="before")
    @classmethod
    def _json_string_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return loads(value, "not a JSON list")
            except JsonlError as exc:
                raise ValueError(str(exc)) from None
        return value

    @field_validator("test_cmd")
    @classmethod
    def _has_report_placeholder(cls, value: str) -> str:
        if JUNIT_PLACEHOLDER not in value:
            raise ValueError(f"must contain the {JUNIT_PLACEHOLDER} placeholder for the JUnit report path")
        return value

    def test_command(self, junit_path: str) -> str:
        """``test_cmd`` with the report path filled in (shell-quoted)."""
        return self.test_cmd.replace(JUNIT_PLACEHOLDER, shlex.quote(junit_path))

    def test_ids(self) -> list[str]:
        return [*self.FAIL_TO_PASS, *self.PASS_TO_PASS]


def load_tasks(path: Path) -> list[CodingTask]:
    """Every task of a JSON-lines file; blank lines are skipped."""
    tasks: dict[str, CodingTask] = {}
    try:
        for where, record in read_jsonl(path):
            task = _parse_record(record, where)
            if task.instance_id in tasks:
                raise TaskFileError(f"{where}: field instance_id: duplicate {task.instance_id!r}")
            tasks[task.instance_id] = task
    except JsonlError as exc:
        raise TaskFileError(str(exc)) from None
    except OSError as exc:
        raise TaskFileError(f"{path}: cannot read ({exc.strerror})") from None
    if not tasks:
        raise TaskFileError(f"{path}: holds no task (every line is blank)")
    return list(tasks.values())


def select_tasks(tasks: list[CodingTask], only: list[str], limit: int | None) -> list[CodingTask]:
    """The tasks named in ``only`` (all when empty), in file order, then the first ``limit``."""
    known = {task.instance_id for task in tasks}
    unknown = [name for name in only if name not in known]
    if unknown:
        raise TaskFileError(f"unknown task id(s) {', '.join(unknown)} (not in the task file)")
    chosen = [task for task in tasks if not only or task.instance_id in only]
    return chosen[:limit] if limit is not None else chosen


def _parse_record(record: Any, where: str) -> CodingTask:
    if not isinstance(record, dict):
        raise TaskFileError(f"{where}: expected a JSON object, got {type(record).__name__}")
    try:
        return CodingTask.model_validate(record)
    except ValidationError as exc:
        raise TaskFileError(f"{where}: {first_error(exc)}") from None


def dump_tasks(tasks: Iterable[CodingTask], path: Path) -> None:
    """Write tasks as JSON lines (lists stay lists; ``created_at`` in ISO format)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        for task in tasks:
            handle.write(task.model_dump_json(exclude_none=True) + "\n")
