"""Compare vehicle runs: scores, MemoryScore against a gold run, MemToken, cost."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class CompareError(ValueError):
    pass


@dataclass(frozen=True)
class RunSummary:
    folder: Path
    model: str
    memory: str
    metrics: dict[str, Any]

    @property
    def esm(self) -> float:
        return self.metrics["overall"]["exact_match"]


def load_run(folder: Path) -> RunSummary:
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CompareError(f"{folder} is not a finished run folder: {exc.filename} is missing") from None
    identity = config["identity"]
    return RunSummary(folder, identity["model"]["model"], identity["memory"], metrics)


def compare_rows(runs: list[RunSummary], gold: RunSummary | None = None) -> list[dict[str, Any]]:
    """One row per run. MemoryScore = ESM / ESM of the gold run with the same model (if there is one)."""
    golds = [gold] if gold else [r for r in runs if r.memory == "gold"]
    rows = []
    for run in runs:
        reference = next((g for g in golds if g.model == run.model), None)
        overall = run.metrics["overall"]
        rows.append(
            {
                "run": str(run.folder),
                "model": run.model,
                "memory": run.memory,
                "n": overall["n"],
                "esm": run.esm,
                "field_f1": overall["field"]["f1"],
                "value_f1": overall["value"]["f1"],
                "tool_f1": overall["tool"]["f1"],
                "memory_score": run.esm / reference.esm if reference and reference.esm else None,
                "memtoken": overall.get("mean_memory_tokens", 0.0),
                "input_tokens": overall.get("mean_input_tokens", 0.0),
                "infra_errors": run.metrics.get("episodes", {}).get("infra_errors", 0),
            }
        )
    return rows
