"""Synthetic vehicle run folders for the report's size test: every question of the release, scored
for real (``Scorebook``), with a bm25-sized memory search in each trajectory (five history hours,
about 15,000 characters) so the episode browser carries what a real retrieval run gives it.

No model is involved: exact episodes make the gold calls, the others none or a changed value.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from execmem.runs.vehicle.metrics import compute_metrics
from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.dataset import Question, load_history, load_questions
from execmem.suites.vehicle.scorebook import Scorebook

HOURS = 5


def synthetic_run(folder: Path, data_dir: Path, memory: str, seed: int) -> None:
    """A finished run folder of ``memory`` over all 500 questions."""
    rng = random.Random(seed)
    questions = load_questions(data_dir)
    book = Scorebook(questions)
    hours = {s: _hours(data_dir, s) for s in sorted({q.scenario for q in questions})}
    folder.mkdir(parents=True)
    episodes, trajectories = [], []
    for question in questions:
        calls = _calls(question, rng)
        found = rng.sample(hours[question.scenario], min(HOURS, len(hours[question.scenario])))
        result = "\n".join(f"({n}) {text}" for n, text in enumerate(found, start=1))
        episodes.append(_episode(book, question, calls, memory, len(result) // 4))
        trajectories.append({"id": question.id, "messages": _messages(question, result, calls)})
    config = {
        "identity": {"model": {"model": "synthetic"}, "memory": memory, "scenarios": sorted(hours)},
        "invocation": {"data_dir": str(data_dir), "trials": 1},
    }
    (folder / "config.json").write_text(json.dumps(config))
    _lines(folder / "episodes.jsonl", episodes)
    _lines(folder / "trajectories.jsonl", trajectories)
    (folder / "infra_errors.jsonl").write_text("")
    metrics = compute_metrics(episodes, [], {}, len(questions))
    (folder / "metrics.json").write_text(json.dumps(metrics))


def _hours(data_dir: Path, scenario: int) -> list[str]:
    """The scenario's history, one text per clock hour, as a bm25 hour unit reads."""
    grouped: dict[str, list[str]] = {}
    for line in load_history(data_dir, scenario):
        grouped.setdefault(f"{line.timestamp:%Y-%m-%d %H}", []).append(
            f"[{line.timestamp:%Y-%m-%d %H:%M}] {line.speaker}: {line.text}"
        )
    return ["\n".join(lines) for lines in grouped.values()]


def _calls(question: Question, rng: random.Random) -> list[ToolCall]:
    draw = rng.random()
    if draw < 0.5:
        return list(question.gold_calls)
    if draw < 0.75 or not question.gold_calls:
        return []
    first = question.gold_calls[0]
    return [ToolCall(first.name, {key: _other(value) for key, value in first.args.items()})]


def _other(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    return f"{value}x" if isinstance(value, str) else value


def _episode(book: Scorebook, question: Question, calls: list[ToolCall], memory: str, tokens: int) -> dict:
    return {
        **book.score_row(question, calls),
        "id": question.id,
        "trial": 1,
        "memory": memory,
        "calls": [c.to_json() for c in calls],
        "n_calls": len(calls),
        "steps": 3,
        "end_reason": "answered",
        "input_tokens": 6000 + tokens,
        "output_tokens": 120,
        "memory_tokens": tokens,
        "model_errors": {},
    }


def _messages(question: Question, result: str, calls: list[ToolCall]) -> list[dict]:
    asked = json.dumps({"query": question.query})
    search = {"id": "s1", "type": "function", "function": {"name": "search_memory", "arguments": asked}}
    acts = [
        {"id": f"c{n}", "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.args)}}
        for n, c in enumerate(calls)
    ]
    return [
        {"role": "system", "content": "You are the in-car assistant."},
        {"role": "user", "content": f"Request: {question.query}"},
        {"role": "assistant", "content": "", "tool_calls": [search]},
        {"role": "tool", "tool_call_id": "s1", "content": result},
        {"role": "assistant", "content": "", "tool_calls": acts}
        if acts
        else {"role": "assistant", "content": "Done."},
        *({"role": "tool", "tool_call_id": a["id"], "content": "ok"} for a in acts),
    ]


def _lines(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
