"""Compare vehicle runs on one question set: scores, MemoryScore against a gold run, MemToken.

Runs are scored on the same questions or not at all. Runs over different scenarios, or runs with
episodes missing (infrastructure errors, an interrupted run), are refused with what differs,
unless ``intersect`` asks to pair them on the questions every run finished; the rows then say how
many that is. Every number is recomputed from ``episodes.jsonl`` over the paired questions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execmem.core.files import DamagedFileError, read_json_document
from execmem.runs.episode_log import RunFolderError, checked_lines, schema_problem, unresolved_infra_errors
from execmem.runs.identity import CompareError
from execmem.runs.vehicle.store import CONFIG_FILE, EPISODE_SCHEMA
from execmem.suites.vehicle.aggregate import summarize

_CONFIG_SCHEMA = {"identity.model.model": str, "identity.memory": str, "identity.scenarios": list}


@dataclass(frozen=True)
class RunSummary:
    """A run folder as compare sees it: what it measured and the episodes it finished."""

    folder: Path
    model: str
    memory: str
    scenarios: tuple[int, ...]
    episodes: dict[str, dict[str, Any]]
    expected: int | None
    """Episodes the run set out to finish (from metrics.json; None if the run never finished)."""
    infra_errors: int

    @property
    def missing(self) -> int | None:
        return None if self.expected is None else self.expected - len(self.episodes)


def load_run(folder: Path) -> RunSummary:
    """Read a vehicle run folder; CompareError naming the file (and line) when it cannot be read."""
    path = folder / CONFIG_FILE
    if not path.is_file():
        raise CompareError(f"{folder} is not a vehicle run folder: {CONFIG_FILE} is missing")
    try:
        config = read_json_document(path)
        episodes = {e["id"]: e for e in checked_lines(folder / "episodes.jsonl", EPISODE_SCHEMA)}
        infra = unresolved_infra_errors(folder, episodes)
        metrics_path = folder / "metrics.json"
        metrics = read_json_document(metrics_path) if metrics_path.is_file() else {}
    except (DamagedFileError, RunFolderError) as exc:
        raise CompareError(str(exc)) from None
    problem = schema_problem(config, _CONFIG_SCHEMA) if isinstance(config, dict) else "not an object"
    if problem:
        raise CompareError(f"{path}: not a vehicle run config ({problem})")
    identity = config["identity"]
    expected = metrics.get("episodes", {}).get("expected") if isinstance(metrics, dict) else None
    return RunSummary(
        folder,
        identity["model"]["model"],
        identity["memory"],
        tuple(identity["scenarios"]),
        episodes,
        expected if isinstance(expected, int) else None,
        len(infra),
    )


def paired_questions(runs: list[RunSummary], intersect: bool = False) -> list[str]:
    """The question ids every run is scored on. Without ``intersect``: all of them, refused
    (CompareError naming each difference) unless every run covers the same scenarios completely;
    with it: the questions every run finished."""
    problems = [*_scenario_problems(runs), *(_completeness(run) for run in runs if _completeness(run))]
    if problems and not intersect:
        raise CompareError(
            "runs do not cover the same questions: " + "; ".join(problems) + ". Resume incomplete runs "
            "(re-run their commands), or pass --intersect to pair on the questions all runs finished"
        )
    common = set.intersection(*(set(run.episodes) for run in runs))
    if not common:
        raise CompareError("the runs have no finished question in common")
    first = runs[0].episodes
    return sorted(common, key=lambda key: (first[key]["scenario"], first[key]["index"]))


def _scenario_problems(runs: list[RunSummary]) -> list[str]:
    first = runs[0]
    return [
        f"{run.folder} covers scenarios {_ranges(run.scenarios)}, {first.folder} {_ranges(first.scenarios)}"
        for run in runs[1:]
        if set(run.scenarios) != set(first.scenarios)
    ]


def _completeness(run: RunSummary) -> str | None:
    if run.expected is None:
        return f"{run.folder} never finished (no metrics.json; {len(run.episodes)} episodes)"
    if run.missing:
        errors = f"{run.infra_errors} infra errors"
        return f"{run.folder} misses {run.missing} of {run.expected} episodes ({errors})"
    return None


def _ranges(numbers: tuple[int, ...]) -> str:
    """``(1, 2, 3, 7)`` -> ``1-3,7``."""
    parts: list[str] = []
    for n in sorted(set(numbers)):
        if parts and parts[-1].split("-")[-1] == str(n - 1):
            parts[-1] = f"{parts[-1].split('-')[0]}-{n}"
        else:
            parts.append(str(n))
    return ",".join(parts)


def compare_rows(
    runs: list[RunSummary], gold: RunSummary | None = None, intersect: bool = False
) -> list[dict[str, Any]]:
    """One row per run, scored on the paired questions. MemoryScore = ESM / ESM of the gold run with
    the same model on the same questions (``gold``, else a gold run among ``runs``)."""
    questions = paired_questions([*runs, gold] if gold else runs, intersect)
    golds = [gold] if gold else [r for r in runs if r.memory == "gold"]
    gold_esm = {g.model: _scores(g, questions)["exact_match"] for g in reversed(golds)}
    rows = []
    for run in runs:
        overall = _scores(run, questions)
        reference = gold_esm.get(run.model)
        rows.append(
            {
                "run": str(run.folder),
                "model": run.model,
                "memory": run.memory,
                "n": overall["n"],
                "esm": overall["exact_match"],
                "field_f1": overall["field"]["f1"],
                "value_f1": overall["value"]["f1"],
                "tool_f1": overall["tool"]["f1"],
                "memory_score": overall["exact_match"] / reference if reference else None,
                "memtoken": overall["mean_memory_tokens"],
                "input_tokens": overall["mean_input_tokens"],
                "infra_errors": run.infra_errors,
                "missing": run.missing,
            }
        )
    return rows


def _scores(run: RunSummary, questions: list[str]) -> dict[str, Any]:
    episodes = [run.episodes[key] for key in questions]
    overall = summarize(episodes)["overall"]
    for key in ("memory_tokens", "input_tokens"):
        overall[f"mean_{key}"] = sum(e[key] for e in episodes) / len(episodes)
    return overall
