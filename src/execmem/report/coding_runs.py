"""Coding runs as the report shows them: resolved rate per run with a bootstrap interval over
targets, the paired comparison of ``execmem coding compare`` where the runs pair, and every
episode's trajectory (commands, outputs cut, memory injected, test outcomes)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from execmem.core.files import DamagedFileError, complete_records, read_json_document
from execmem.report.run_state import SAVED, RunState, computed_because, saved_metrics
from execmem.runs.coding.compare import ROLES, CodingRunData, load_coding_run, paired_report
from execmem.runs.coding.metrics import compute_metrics, counts_as_resolved
from execmem.runs.coding.store import episode_id, trajectory_path
from execmem.runs.episode_log import in_use, unresolved_infra_errors
from execmem.runs.identity import CompareError
from execmem.runs.paired_stats import N_RESAMPLES, percentile_interval
from execmem.suites.coding.conditions import CONTROLS, TREATMENTS


@dataclass
class CodingRun(RunState):
    data: CodingRunData | None = None

    @property
    def folder(self) -> Path:
        return self.data.folder


def load_coding(folder: Path, label: str) -> CodingRun:
    """A coding run folder (CompareError naming the file when it cannot be read)."""
    data, writing = load_coding_run(folder), in_use(folder)
    saved = saved_metrics(folder, len(data.episodes), writing)
    if saved is not None:
        return CodingRun(label, saved, SAVED, writing, data)
    expected = len(data.manifest["tasks"]["order"]) * len(data.manifest["seeds"])
    infra = unresolved_infra_errors(folder, data.episodes)
    metrics = compute_metrics(list(data.episodes.values()), infra, expected)
    return CodingRun(label, metrics, computed_because(writing), writing, data)


def target_rates(data: CodingRunData) -> np.ndarray:
    """Each target's resolved rate over its finished seeds (targets with none left out)."""
    rates = []
    for target in data.manifest["tasks"]["order"]:
        found = [data.episodes.get(episode_id(target, seed)) for seed in data.manifest["seeds"]]
        done = [counts_as_resolved(e) for e in found if e is not None]
        if done:
            rates.append(float(np.mean(done)))
    return np.array(rates)


def resolved_row(run: CodingRun, n_resamples: int = N_RESAMPLES, seed: int = 0) -> dict[str, Any]:
    rates = target_rates(run.data)
    low, high = percentile_interval(rates, n_resamples, seed) if rates.size else (None, None)
    m = run.metrics
    return {
        "label": run.label,
        "run": str(run.folder),
        "condition": run.data.condition,
        "model": run.data.manifest.get("model", {}).get("model"),
        "n": m["n"],
        "targets": int(rates.size),
        "resolved": m["resolved"],
        "rate": m["resolved_rate"],
        "low": low,
        "high": high,
        "suspect": m.get("evaluation_suspect", 0),
        "submitted": m["submitted_rate"],
        **{key: m[f"mean_{key}"] for key in ("steps", "input_tokens", "output_tokens")},
        "status": run.status(),
    }


def paired(runs: list[CodingRun], n_resamples: int = N_RESAMPLES, seed: int = 0) -> tuple[dict | None, str]:
    """``coding compare``'s report over one off run, one treatment (record or frozen) and at most one
    run of each control, with the targets every run finished; None and why when they cannot be paired."""
    by_condition = {role: [r for r in runs if r.data.condition == role] for role in ROLES}
    treatments = sum(len(by_condition[role]) for role in TREATMENTS)
    if len(by_condition["off"]) != 1 or treatments != 1 or any(len(by_condition[c]) > 1 for c in CONTROLS):
        return (
            None,
            "no paired comparison: it needs one off run, one record or frozen run and at most one run "
            "of each control (irrelevant, other-repo)",
        )
    ordered = [by_condition[role][0].data for role in ROLES if by_condition[role]]
    try:
        return paired_report(ordered, n_resamples, seed, allow_incomplete=True), ""
    except CompareError as exc:
        return None, f"no paired comparison: {exc}"


def trajectories(run: CodingRun, output_chars: int) -> list[dict[str, Any]]:
    """Every finished episode's steps (each output cut to ``output_chars``), memory and tests."""
    memory = _memory(run.folder)
    return [
        _trajectory(run.folder, episode, memory.get(episode.get("instance_id"), {}), output_chars)
        for episode in run.data.episodes.values()
    ]


def _memory(folder: Path) -> dict[str, Any]:
    try:
        found = read_json_document(folder / "memory.json") if (folder / "memory.json").is_file() else {}
    except DamagedFileError:
        return {}
    return found if isinstance(found, dict) else {}


def _trajectory(folder: Path, episode: dict[str, Any], memory: Any, limit: int) -> dict[str, Any]:
    path = trajectory_path(folder, episode["id"])
    lines = complete_records(path) if path.is_file() else []
    steps = [_step(line, limit) for line in lines if "step" in line]
    return {
        "id": episode["id"],
        "task": episode.get("instance_id", episode["id"]),
        "seed": episode.get("seed"),
        "resolved": counts_as_resolved(episode),
        "suspect": bool(episode.get("evaluation_suspect")),
        "end": episode.get("end_reason"),
        "memory": memory.get("text") if isinstance(memory, dict) else None,
        "steps": steps,
        "outcomes": episode.get("outcomes") or {},
        "patch": cut(episode.get("model_patch") or "", limit),
        "tokens": [episode.get("input_tokens"), episode.get("output_tokens")],
    }


def _step(line: dict[str, Any], limit: int) -> dict[str, Any]:
    said = (line.get("assistant") or {}).get("content") or ""
    results = []
    for result in line.get("tool_results") or []:
        if "command" in result:
            results.append(
                {
                    "command": cut(result["command"], limit),
                    "exit": result.get("exit_code"),
                    "timed_out": result.get("timed_out"),
                    "output": cut(result.get("output") or "", limit),
                }
            )
        else:
            results.append({"error": result.get("error"), "output": result.get("message", "")})
    return {"step": line["step"], "said": cut(said, limit), "results": results}  # fmt: skip


def cut(text: str, limit: int) -> str:
    """Head and tail of a long text, with what was left out said in the middle."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-(limit // 3) :]
    return f"{head}\n[... {len(text) - len(head) - len(tail):,} characters cut ...]\n{tail}"
