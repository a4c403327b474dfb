"""Compare vehicle runs on one question set: scores, MemoryScore against a gold run, MemToken, and
each run paired question by question with the first (``paired``).

Runs are scored on the same questions or not at all. Runs over different scenarios, or runs with
episodes missing (infrastructure errors, an interrupted run), are refused with what differs,
unless ``intersect`` asks to pair them on the questions every run finished (every trial of it);
the rows then say how many that is. Every number is recomputed from ``episodes.jsonl`` over the
paired questions, every trial of a run counting (a question's trials stay together).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execmem.core.files import DamagedFileError, read_json_document
from execmem.runs.episode_log import RunFolderError, checked_lines, unresolved_infra_errors
from execmem.runs.identity import CompareError
from execmem.runs.paired_stats import N_RESAMPLES
from execmem.runs.prices import Price, PriceTable, token_costs
from execmem.runs.vehicle.paired import noise_floor, paired_against, rates, trial_esms
from execmem.runs.vehicle.store import EPISODE_SCHEMA, read_config
from execmem.runs.vehicle.trials import split_episode_id
from execmem.suites.vehicle.aggregate import summarize


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
    trials: int = 1
    memory_build: dict[str, Any] = field(default_factory=dict)
    """What building the memory cost (metrics.json ``memory_build``)."""

    @property
    def missing(self) -> int | None:
        return None if self.expected is None else self.expected - len(self.by_question_episodes())

    def by_question_episodes(self) -> list[dict[str, Any]]:
        """The episodes of the run's trials (a larger --trials of an earlier command aside)."""
        return [e for key, e in self.episodes.items() if split_episode_id(key)[1] <= self.trials]

    def by_question(self) -> dict[str, list[dict[str, Any]]]:
        """question id -> its episodes, one per finished trial."""
        found: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for episode in self.by_question_episodes():
            found[split_episode_id(episode["id"])[0]].append(episode)
        return dict(found)

    def finished_questions(self) -> set[str]:
        """The questions every trial of which finished."""
        return {q for q, found in self.by_question().items() if len(found) >= self.trials}


def load_run(folder: Path) -> RunSummary:
    """Read a vehicle run folder; CompareError naming the file (and line) when it cannot be read."""
    config = read_config(folder)
    try:
        episodes = {e["id"]: e for e in checked_lines(folder / "episodes.jsonl", EPISODE_SCHEMA)}
        infra = unresolved_infra_errors(folder, episodes)
        metrics_path = folder / "metrics.json"
        metrics = read_json_document(metrics_path) if metrics_path.is_file() else {}
    except (DamagedFileError, RunFolderError) as exc:
        raise CompareError(str(exc)) from None
    identity = config["identity"]
    metrics = metrics if isinstance(metrics, dict) else {}
    expected = metrics.get("episodes", {}).get("expected")
    trials = config.get("invocation", {}).get("trials", 1)
    build = metrics.get("memory_build")
    return RunSummary(
        folder,
        identity["model"]["model"],
        identity["memory"],
        tuple(identity["scenarios"]),
        episodes,
        expected if isinstance(expected, int) else None,
        len(infra),
        trials if isinstance(trials, int) and trials >= 1 else 1,
        build if isinstance(build, dict) else {},
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
    common = set.intersection(*(run.finished_questions() for run in runs))
    if not common:
        raise CompareError("the runs have no finished question in common")
    first = {q: found[0] for q, found in runs[0].by_question().items()}
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
    runs: list[RunSummary],
    gold: RunSummary | None = None,
    intersect: bool = False,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    prices: PriceTable | None = None,
) -> list[dict[str, Any]]:
    """One row per run, scored on the paired questions. MemoryScore = ESM / ESM of the gold run with
    the same model on the same questions (``gold``, else a gold run among ``runs``). Every run after
    the first is paired with the first (``paired.paired_against``); ``prices`` give each row its
    memory build, answer and total cost."""
    questions = paired_questions([*runs, gold] if gold else runs, intersect)
    golds = [gold] if gold else [r for r in runs if r.memory == "gold"]
    gold_esm = {g.model: _scores(g, questions)["exact_match"] for g in reversed(golds)}
    grouped = [run.by_question() for run in runs]
    floor = noise_floor([trial_esms(found, questions) for found in grouped])
    baseline = rates(grouped[0], questions)
    rows = []
    for run, found in zip(runs, grouped, strict=True):
        row = _row(run, questions, gold_esm.get(run.model))
        row.update(_costs(row, prices.price_for(run.model) if prices else None))
        row["trial_esm"] = [round(esm, 4) for esm in trial_esms(found, questions)]
        row["noise_floor"] = None if floor is None else round(floor, 4)
        row["baseline"] = str(runs[0].folder)
        paired = paired_against(rates(found, questions), baseline, floor, n_resamples, seed)
        rows.append({**row, **(paired if run is not runs[0] else dict.fromkeys(paired))})
    return rows


def _row(run: RunSummary, questions: list[str], gold_esm: float | None) -> dict[str, Any]:
    overall = _scores(run, questions)
    return {
        "run": str(run.folder),
        "model": run.model,
        "memory": run.memory,
        "n": len(questions),
        "trials": run.trials,
        "episodes": overall["n"],
        "esm": overall["exact_match"],
        "field_f1": overall["field"]["f1"],
        "value_f1": overall["value"]["f1"],
        "tool_f1": overall["tool"]["f1"],
        "memory_score": overall["exact_match"] / gold_esm if gold_esm else None,
        "memtoken": overall["mean_memory_tokens"],
        "input_tokens": overall["mean_input_tokens"],
        "answer_input_tokens": overall["total_input_tokens"],
        "answer_output_tokens": overall["total_output_tokens"],
        "build_input_tokens": run.memory_build.get("input_tokens", 0),
        "build_output_tokens": run.memory_build.get("output_tokens", 0),
        "infra_errors": run.infra_errors,
        "missing": run.missing,
    }


def _costs(row: dict[str, Any], price: Price | None) -> dict[str, Any]:
    answer = (row["answer_input_tokens"], row["answer_output_tokens"])
    build = (row["build_input_tokens"], row["build_output_tokens"])
    costs = token_costs(price, answer, build)
    return {f"cost_{key}": value for key, value in costs.items()}


def _scores(run: RunSummary, questions: list[str]) -> dict[str, Any]:
    grouped = run.by_question()
    episodes = [episode for key in questions for episode in grouped[key]]
    overall = summarize(episodes)["overall"]
    for key in ("memory_tokens", "input_tokens"):
        overall[f"mean_{key}"] = sum(e[key] for e in episodes) / len(episodes)
    for key in ("input_tokens", "output_tokens"):
        overall[f"total_{key}"] = sum(e.get(key, 0) for e in episodes)
    return overall
