"""The VehicleMemBench release as typed records.

``qa_data/qa_N.json`` holds the 10 questions of scenario N under the key
``related_to_vehicle_preference``; ``history/history_N.txt`` holds its dialogue,
one ``[YYYY-MM-DD HH:MM] Speaker: text`` line per turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from execmem.core.jsonl import JsonlError, decode_utf8, loads
from execmem.suites.vehicle.calls import CallSyntaxError, ToolCall, parse_call_string

SCENARIOS = range(1, 51)
QUESTION_KEY = "related_to_vehicle_preference"
REASONING_TYPES = (
    "preference_conflict",
    "conditional_constraint",
    "coreference_resolution",
    "state_shift",
    "error_correction",
)
_LINE = re.compile(r"^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\] (.*)$")
_SPEAKER = re.compile(r"^([^:\[\]]+?): (.*)$", re.DOTALL)


class DatasetError(ValueError):
    """A malformed release file; the message names the file, the line or item, and the field."""


@dataclass(frozen=True)
class Question:
    scenario: int
    index: int
    reasoning_type: str
    query: str
    gold_memory: str
    answers: tuple[str, ...]
    gold_calls: tuple[ToolCall, ...]

    @property
    def id(self) -> str:
        return f"{self.scenario}-{self.index}"


@dataclass(frozen=True)
class HistoryLine:
    scenario: int
    line_no: int
    timestamp: datetime
    speaker: str
    text: str


def qa_path(data_dir: Path, scenario: int) -> Path:
    return data_dir / "qa_data" / f"qa_{scenario}.json"


def history_path(data_dir: Path, scenario: int) -> Path:
    return data_dir / "history" / f"history_{scenario}.txt"


def load_questions(data_dir: Path, scenarios: Any = SCENARIOS) -> list[Question]:
    """All questions of the given scenarios, in file order (scenario, then index)."""
    return [q for n in scenarios for q in _load_scenario_questions(Path(data_dir).resolve(), n)]


def _load_scenario_questions(data_dir: Path, scenario: int) -> tuple[Question, ...]:
    path = qa_path(data_dir, scenario)
    try:
        payload = loads(_read_text(path), str(path))
    except JsonlError as exc:
        raise DatasetError(str(exc)) from None
    items = payload.get(QUESTION_KEY) if isinstance(payload, dict) else None
    if not isinstance(items, list):
        raise DatasetError(f"{path}: field {QUESTION_KEY!r}: expected a list of questions")
    return tuple(_question(path, scenario, i, item) for i, item in enumerate(items))


def _question(path: Path, scenario: int, index: int, item: Any) -> Question:
    where = f"{path}: item {index}"
    if not isinstance(item, dict):
        raise DatasetError(f"{where}: expected an object")
    text = {key: _string_field(where, item, key) for key in ("query", "gold_memory", "reasoning_type")}
    answers = item.get("new_answer")
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        raise DatasetError(f"{where}: field 'new_answer': expected a list of call strings")
    calls = []
    for j, answer in enumerate(answers):
        try:
            calls.append(parse_call_string(answer))
        except CallSyntaxError as exc:
            raise DatasetError(f"{where}: field 'new_answer[{j}]': {exc}") from None
    return Question(scenario, index, answers=tuple(answers), gold_calls=tuple(calls), **text)


def _string_field(where: str, item: dict[str, Any], key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        raise DatasetError(f"{where}: field {key!r}: expected a string, got {type(value).__name__}")
    return value


def load_history(data_dir: Path, scenario: int) -> list[HistoryLine]:
    """The dialogue of one scenario, one record per non-blank line."""
    path = history_path(Path(data_dir), scenario)
    raw = _read_text(path)
    lines = []
    for line_no, line in enumerate(raw.splitlines(), start=1):
        if line.strip():
            lines.append(_history_line(path, scenario, line_no, line))
    return lines


def _read_text(path: Path) -> str:
    """A release file as text; DatasetError naming the file when it is missing, unreadable or not UTF-8."""
    try:
        return decode_utf8(path.read_bytes(), str(path))
    except FileNotFoundError:
        raise DatasetError(f"{path}: file not found") from None
    except JsonlError as exc:
        raise DatasetError(str(exc)) from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc.strerror})") from None


def _history_line(path: Path, scenario: int, line_no: int, line: str) -> HistoryLine:
    match = _LINE.match(line)
    if not match:
        raise DatasetError(
            f"{path}: line {line_no}: field 'timestamp': expected '[YYYY-MM-DD HH:MM] ' prefix"
        )
    stamp, rest = match.groups()
    # One release line repeats its timestamp prefix; read it as a single stamp.
    rest = rest.removeprefix(f"[{stamp}] ")
    try:
        timestamp = datetime.strptime(stamp, "%Y-%m-%d %H:%M")
    except ValueError:
        raise DatasetError(f"{path}: line {line_no}: field 'timestamp': invalid date {stamp!r}") from None
    speaker = _SPEAKER.match(rest)
    if not speaker:
        raise DatasetError(f"{path}: line {line_no}: field 'speaker': expected 'Name: text'")
    return HistoryLine(scenario, line_no, timestamp, speaker.group(1).strip(), speaker.group(2))
