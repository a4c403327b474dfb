"""Pair coding runs of one protocol (off / record / irrelevant) and report the effect of memory.

Runs pair only when every manifest field the protocol fixes agrees (the record and
irrelevant runs must also share their memory policy). The report gives each
condition's resolved rate and cost, and for each comparison the mean target-level
difference with its bootstrap interval and the targets gained and lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from execmem.core.files import DamagedFileError, read_json_document
from execmem.runs.coding.config import FIXED_FIELDS
from execmem.runs.coding.metrics import counts_as_resolved, is_suspect
from execmem.runs.coding.store import EPISODE_SCHEMA, episode_id
from execmem.runs.episode_log import RunFolderError, checked_lines, schema_problem
from execmem.runs.identity import CompareError
from execmem.runs.paired_stats import N_RESAMPLES, gained_lost, paired_bootstrap, target_rates

ROLES = ("off", "record", "irrelevant")
MIN_TARGETS = 20
"""Below this many paired targets the bootstrap interval is too rough to lean on (the report warns)."""
_COST = ("input_tokens", "output_tokens", "steps")
_MANIFEST_SCHEMA = {"memory.condition": str, "seeds": list, "tasks.order": list}


@dataclass(frozen=True)
class CodingRunData:
    folder: Path
    manifest: dict[str, Any]
    episodes: dict[str, dict[str, Any]]

    @property
    def condition(self) -> str:
        return self.manifest["memory"]["condition"]


def load_coding_run(folder: Path) -> CodingRunData:
    """A coding run folder; CompareError naming the file (and line) when it cannot be read."""
    path = folder / "manifest.json"
    if not path.is_file():
        raise CompareError(f"{folder} is not a coding run folder: manifest.json is missing")
    try:
        manifest = read_json_document(path)
        episodes = {e["id"]: e for e in checked_lines(folder / "episodes.jsonl", EPISODE_SCHEMA)}
    except (DamagedFileError, RunFolderError) as exc:
        raise CompareError(str(exc)) from None
    problem = schema_problem(manifest, _MANIFEST_SCHEMA) if isinstance(manifest, dict) else "not an object"
    if problem:
        raise CompareError(f"{path}: not a coding run manifest ({problem})")
    return CodingRunData(folder, manifest, episodes)


def differences(a: Any, b: Any, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """Paths (dotted) where two JSON values differ, with both values."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in sorted(a.keys() | b.keys()):
            found += differences(a.get(key), b.get(key), f"{prefix}{key}.")
        return found
    return [] if a == b else [(prefix.rstrip("."), a, b)]


def pairing_problems(runs: list[CodingRunData]) -> list[str]:
    """Why these runs (off, record[, irrelevant]) cannot be paired; empty when they can."""
    problems = [
        f"{run.folder} has memory {run.condition!r}, expected {role!r} in this position"
        for role, run in zip(ROLES, runs, strict=False)
        if run.condition != role
    ]
    first = runs[0]
    for run in runs[1:]:
        for field in FIXED_FIELDS:
            found = differences(first.manifest.get(field), run.manifest.get(field), f"{field}.")
            problems += _described(found, first, run)
    if len(runs) == 3:
        problems += _described(differences(_policy(runs[1]), _policy(runs[2]), "memory."), runs[1], runs[2])
    return problems


def _policy(run: CodingRunData) -> dict[str, Any]:
    """The memory policy without what names the condition itself."""
    return {k: v for k, v in run.manifest["memory"].items() if k not in ("condition", "control_rule")}


def _described(found: list[tuple[str, Any, Any]], a: CodingRunData, b: CodingRunData) -> list[str]:
    return [f"{path}: {a.folder} has {mine!r}, {b.folder} has {theirs!r}" for path, mine, theirs in found]


def paired_targets(runs: list[CodingRunData], allow_incomplete: bool) -> tuple[list[str], list[str]]:
    """(targets every run finished for every seed, targets left out); incomplete runs are refused."""
    manifest = runs[0].manifest
    seeds, order = manifest["seeds"], manifest["tasks"]["order"]
    kept, dropped = [], []
    for target in order:
        ids = [episode_id(target, seed) for seed in seeds]
        (kept if all(i in run.episodes for run in runs for i in ids) else dropped).append(target)
    if dropped and not allow_incomplete:
        raise CompareError(
            f"{len(dropped)} targets lack finished episodes in some run (e.g. {dropped[0]}); "
            "resume those runs, or pass --allow-incomplete to pair only complete targets"
        )
    if not kept:
        raise CompareError("no target has finished episodes for every seed in every run")
    return kept, dropped


def outcomes(run: CodingRunData, targets: list[str], seeds: list[int]) -> np.ndarray:
    """(targets x seeds) array of resolved (1) / not (0)."""
    return np.array(
        [[float(counts_as_resolved(run.episodes[episode_id(t, s)])) for s in seeds] for t in targets]
    )


def condition_summary(run: CodingRunData, targets: list[str], seeds: list[int]) -> dict[str, Any]:
    episodes = [run.episodes[episode_id(t, s)] for t in targets for s in seeds]
    summary: dict[str, Any] = {"run": str(run.folder), "episodes": len(episodes)}
    summary["resolved_rate"] = float(target_rates(outcomes(run, targets, seeds)).mean())
    summary["evaluation_suspect"] = sum(map(is_suspect, episodes))
    for key in _COST:
        summary[f"mean_{key}"] = sum(e[key] for e in episodes) / len(episodes)
    return summary


def paired_report(
    runs: list[CodingRunData],
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    allow_incomplete: bool = False,
) -> dict[str, Any]:
    """The comparison of off, record and (optionally) irrelevant runs; refuses unpairable runs."""
    if len(runs) not in (2, 3):
        raise CompareError("give the off run, the record run and optionally the irrelevant run")
    problems = pairing_problems(runs)
    if problems:
        raise CompareError("runs do not share one protocol: " + "; ".join(problems))
    targets, dropped = paired_targets(runs, allow_incomplete)
    seeds = runs[0].manifest["seeds"]
    by_role = dict(zip(ROLES, runs, strict=False))
    matrices = {role: outcomes(run, targets, seeds) for role, run in by_role.items()}
    comparisons = [("record", "off"), ("irrelevant", "off"), ("record", "irrelevant")]
    effects = [
        _effect(matrices, on, off, n_resamples, seed)
        for on, off in comparisons
        if on in matrices and off in matrices
    ]
    return {
        "n_targets": len(targets),
        "small_sample": len(targets) < MIN_TARGETS,
        "warnings": _warnings(len(targets)),
        "seeds": seeds,
        "dropped_targets": dropped,
        "conditions": {role: condition_summary(run, targets, seeds) for role, run in by_role.items()},
        "effects": effects,
        "bootstrap": {"method": "percentile; targets resampled with replacement", "n_resamples": n_resamples,
                      "seed": seed, "confidence": 0.95},
    }  # fmt: skip


def _warnings(n_targets: int) -> list[str]:
    if n_targets >= MIN_TARGETS:
        return []
    return [
        f"the intervals rest on {n_targets} targets (fewer than {MIN_TARGETS}): "
        "the bootstrap understates their width; read them as rough"
    ]


def _effect(matrices: dict[str, np.ndarray], on: str, off: str, n_resamples: int, seed: int) -> dict:
    interval = paired_bootstrap(target_rates(matrices[on]), target_rates(matrices[off]), n_resamples, seed)
    return {"comparison": f"{on} - {off}", **interval.to_dict(), **gained_lost(matrices[on], matrices[off])}
