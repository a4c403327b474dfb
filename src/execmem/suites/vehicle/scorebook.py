"""Score predictions for benchmark questions, reusing each question's reference."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from execmem.suites.vehicle.calls import CallSyntaxError, ToolCall, parse_calls
from execmem.suites.vehicle.dataset import Question, load_questions
from execmem.suites.vehicle.scoring import Score, reference_changes, score_prediction


class InputError(ValueError):
    """A malformed input line; the message names the source, line and field."""


class Scorebook:
    """The questions of a release, with each gold reference computed once."""

    def __init__(self, questions: Iterable[Question]) -> None:
        self.questions = {(q.scenario, q.index): q for q in questions}
        self._refs: dict[tuple[int, int], dict[str, Any]] = {}

    @classmethod
    def from_release(cls, data_dir: Path) -> Scorebook:
        return cls(load_questions(data_dir))

    def question(self, scenario: Any, index: Any) -> Question:
        found = self.questions.get((scenario, index))
        if found is None:
            raise KeyError(f"no question {index!r} in scenario {scenario!r}")
        return found

    def score(self, question: Question, predicted: list[ToolCall]) -> Score:
        key = (question.scenario, question.index)
        if key not in self._refs:
            self._refs[key] = reference_changes(question.gold_calls)
        return score_prediction(question.gold_calls, predicted, self._refs[key])

    def score_row(self, question: Question, predicted: list[ToolCall], row_id: Any = None) -> dict[str, Any]:
        """One output line: identity, reasoning type and all scores."""
        score = self.score(question, predicted)
        return {
            "id": row_id if row_id is not None else question.id,
            "scenario": question.scenario,
            "index": question.index,
            "reasoning_type": question.reasoning_type,
            **score.to_json(),
        }


def read_predictions(
    book: Scorebook, records: Iterable[tuple[str, Any]]
) -> Iterator[tuple[Any, Question, list[ToolCall]]]:
    """Validate ``(where, record)`` pairs: each record names a question and its predicted calls."""
    for where, record in records:
        if not isinstance(record, dict):
            raise InputError(f"{where}: expected a JSON object")
        for key in ("scenario", "index"):
            _require_integer(where, key, record.get(key))
        try:
            question = book.question(record.get("scenario"), record.get("index"))
        except KeyError as exc:
            raise InputError(f"{where}: fields 'scenario'/'index': {exc.args[0]}") from None
        try:
            calls = parse_calls(record.get("calls"), "calls")
        except CallSyntaxError as exc:
            raise InputError(f"{where}: field {exc}") from None
        yield record.get("id"), question, calls


def _require_integer(where: str, key: str, value: Any) -> None:
    """Question numbers are JSON integers: ``true`` or ``1.0`` would silently equal 1 in a lookup."""
    if type(value) is not int:
        shown = "missing" if value is None else f"{json.dumps(value)[:40]} ({_json_type(value)})"
        raise InputError(f"{where}: field {key!r}: expected an integer, got {shown}")


def _json_type(value: Any) -> str:
    names = {
        bool: "a boolean",
        float: "a decimal number",
        str: "a string",
        list: "an array",
        dict: "an object",
    }
    return names.get(type(value), type(value).__name__)
