"""The vehicle runs as the leaderboard shows them: each run's own scores (its metrics.json, or the
same numbers computed from episodes.jsonl while the run is still going), ESM with a bootstrap
interval over questions, and whether the run is complete."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from execmem.report.run_state import SAVED, RunState, computed_because, saved_metrics
from execmem.runs.episode_log import in_use
from execmem.runs.paired_stats import N_RESAMPLES, percentile_interval
from execmem.runs.prices import PriceTable
from execmem.runs.vehicle.compare import RunSummary, load_run
from execmem.runs.vehicle.diagnosis_sources import RunSources, read_run
from execmem.runs.vehicle.metrics import compute_metrics
from execmem.runs.vehicle.paired import trial_outcomes
from execmem.suites.vehicle.dataset import load_questions


@dataclass
class VehicleRun(RunState):
    """One vehicle run folder, read for the report."""

    summary: RunSummary | None = None
    sources: RunSources | None = None

    @property
    def folder(self) -> Path:
        return self.summary.folder


def load_vehicle_run(folder: Path, label: str, data_dir: Path | None) -> VehicleRun:
    """The run in ``folder`` (CompareError naming the file when it cannot be read)."""
    summary, sources = load_run(folder), read_run(folder)
    writing = in_use(folder)
    saved = saved_metrics(folder, len(summary.by_question_episodes()), writing)
    if saved is not None:
        return VehicleRun(label, saved, SAVED, writing, summary, sources)
    metrics = _computed_metrics(summary, sources, data_dir)
    return VehicleRun(label, metrics, computed_because(writing), writing, summary, sources)


def _computed_metrics(summary: RunSummary, sources: RunSources, data_dir: Path | None) -> dict[str, Any]:
    """What the run's metrics.json will say once it ends, over the episodes finished so far."""
    questions = load_questions(sources.data_dir(data_dir), sources.config["identity"]["scenarios"])
    expected = len(questions) * summary.trials
    price = _price(sources.config, summary.model)
    episodes = summary.by_question_episodes()
    return compute_metrics(episodes, sources.infra, sources.memories, expected, summary.trials, price)


def _price(config: dict[str, Any], model: str) -> Any:
    prices = config.get("invocation", {}).get("prices")
    try:
        return PriceTable.model_validate(prices).price_for(model) if prices else None
    except ValueError:  # a hand-edited config: no cost rather than a wrong one
        return None


def question_rates(summary: RunSummary) -> np.ndarray:
    """Each finished question's exact-match rate over its trials."""
    return np.array([np.mean(trial_outcomes(found)) for found in summary.by_question().values()])


def leaderboard_row(run: VehicleRun, n_resamples: int = N_RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """The run's own numbers (as its metrics.json has them) and ESM's 95% interval."""
    overall, cost = run.metrics["overall"], run.metrics.get("cost") or {}
    rates = question_rates(run.summary)
    low, high = percentile_interval(rates, n_resamples, seed) if rates.size else (None, None)
    return {
        "label": run.label,
        "run": str(run.folder),
        "model": run.summary.model,
        "memory": run.summary.memory,
        "n": overall["n"],
        "questions": int(rates.size),
        "esm": overall["exact_match"],
        "esm_low": low,
        "esm_high": high,
        "field_f1": overall["field"]["f1"],
        "value_f1": overall["value"]["f1"],
        "tool_f1": overall["tool"]["f1"],
        "memtoken": overall.get("mean_memory_tokens", 0.0),
        "tokens": sum(cost.get(key, 0) for key in _TOKEN_KEYS),
        "cost": cost.get("total"),
        "infra_errors": run.metrics["episodes"]["infra_errors"],
        "status": run.status(),
        "metrics_source": run.metrics_source,
    }


_TOKEN_KEYS = ("answer_input_tokens", "answer_output_tokens", "build_input_tokens", "build_output_tokens")
