"""Pair coding runs of one protocol and report the effect of memory, per solver.

A solver's runs are one ``off`` run, one treatment (``record``, ``frozen`` or a memory system's run,
``system``) and any of the controls
(``irrelevant``, ``other-repo``), given in any order. They pair only when every manifest field the
protocol fixes agrees, and the controls must match the treatment's memory policy. The report gives
each condition's resolved rate and cost, and for each comparison the mean target-level difference
with its bootstrap interval and the targets gained and lost. Runs of several solvers (runs whose
``model`` or ``solver`` differ) form one report each, over the same tasks and seeds
(``compare_runs``), and the Layer A tables put them side by side (``layer_a``).
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
from execmem.runs.paired_stats import (
    N_RESAMPLES,
    full_gained_lost,
    gained_lost,
    paired_bootstrap,
    target_rates,
)
from execmem.suites.coding.conditions import CONTROLS, TREATMENTS

RUN_TREATMENTS = (*TREATMENTS, "system")
"""What a run's memory may be measured as against off: a condition's treatment or a memory system."""
ROLES = ("off", *RUN_TREATMENTS, *CONTROLS)
"""Conditions in the order a report lists them."""
_POLICY_NAMING = ("condition", "control_rule", "matches", "corpus_sha256")
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


def by_condition(runs: list[CodingRunData]) -> tuple[dict[str, CodingRunData], list[str]]:
    """A solver's runs by condition, in report order, and why they do not make one comparison."""
    found: dict[str, CodingRunData] = {}
    problems = []
    for run in runs:
        if run.condition in found:
            problems.append(
                f"{found[run.condition].folder} and {run.folder} both have memory {run.condition!r}"
            )
        found[run.condition] = run
    treatments = [c for c in RUN_TREATMENTS if c in found]
    if "off" not in found:
        problems.append("no run with memory 'off' to pair with")
    if len(treatments) != 1:
        kinds = " or ".join(RUN_TREATMENTS)
        problems.append(f"need one treatment run (memory {kinds}), got {len(treatments)}")
    return {role: found[role] for role in ROLES if role in found}, problems


def pairing_problems(runs: list[CodingRunData]) -> list[str]:
    """Why one solver's runs cannot be paired; empty when they can."""
    roles, problems = by_condition(runs)
    first = runs[0]
    for run in runs[1:]:
        for field in FIXED_FIELDS:
            found = differences(first.manifest.get(field), run.manifest.get(field), f"{field}.")
            problems += _described(found, first, run)
    treatment = next((roles[c] for c in RUN_TREATMENTS if c in roles), None)
    for control in (roles[c] for c in CONTROLS if c in roles and treatment is not None):
        problems += _described(
            differences(_policy(treatment), _policy(control), "memory."), treatment, control
        )
        matches = control.manifest["memory"].get("matches", "record")
        if matches != treatment.condition:
            problems.append(f"{control.folder} matches the {matches} text, not {treatment.condition}")
    return problems


def _policy(run: CodingRunData) -> dict[str, Any]:
    """The memory policy without what names the condition itself."""
    return {k: v for k, v in run.manifest["memory"].items() if k not in _POLICY_NAMING}


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
    if run.condition == "system":
        summary["system"] = run.manifest["memory"].get("system")
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
    """The comparison of one solver's runs (off, a treatment, controls); refuses unpairable runs."""
    problems = pairing_problems(runs)
    if problems:
        raise CompareError("runs do not share one protocol: " + "; ".join(problems))
    by_role, _ = by_condition(runs)
    targets, dropped = paired_targets(list(by_role.values()), allow_incomplete)
    seeds = runs[0].manifest["seeds"]
    matrices = {role: outcomes(run, targets, seeds) for role, run in by_role.items()}
    treatment = next(role for role in RUN_TREATMENTS if role in matrices)
    controls = [role for role in CONTROLS if role in matrices]
    comparisons = [(treatment, "off"), *((c, "off") for c in controls), *((treatment, c) for c in controls)]
    return {
        "solver": solver_label(runs[0]),
        "n_targets": len(targets),
        "small_sample": len(targets) < MIN_TARGETS,
        "warnings": _warnings(len(targets)),
        "seeds": seeds,
        "dropped_targets": dropped,
        "treatment": treatment,
        "conditions": {role: condition_summary(run, targets, seeds) for role, run in by_role.items()},
        "effects": [_effect(matrices, on, off, n_resamples, seed) for on, off in comparisons],
        "bootstrap": {"method": "percentile; targets resampled with replacement", "n_resamples": n_resamples,
                      "seed": seed, "confidence": 0.95},
    }  # fmt: skip


def solver_label(run: CodingRunData) -> str:
    """The solver a run measured: its model and prompt version."""
    model, solver = run.manifest.get("model", {}), run.manifest.get("solver", {})
    return f"{model.get('model', '?')} ({solver.get('kind', '?')}, {solver.get('prompt_version', '?')})"


def group_by_solver(runs: list[CodingRunData]) -> list[list[CodingRunData]]:
    """Runs grouped by solver (the model's name and the solver's kind and prompt version), in order of
    first run; any other difference within a group (temperature, budgets) is a pairing problem."""
    groups: dict[str, list[CodingRunData]] = {}
    for run in runs:
        groups.setdefault(solver_label(run), []).append(run)
    return list(groups.values())


def compare_runs(
    runs: list[CodingRunData],
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
    allow_incomplete: bool = False,
) -> list[dict[str, Any]]:
    """One paired report per solver; the solvers must have run the same tasks and seeds."""
    if len(runs) < 2:
        raise CompareError("give at least the off run and a treatment run (record or frozen)")
    groups = group_by_solver(runs)
    first = groups[0][0]
    for group in groups[1:]:
        for field in ("tasks", "seeds"):
            found = differences(first.manifest.get(field), group[0].manifest.get(field), f"{field}.")
            if found:
                raise CompareError(
                    "solvers ran different targets: " + "; ".join(_described(found, first, group[0]))
                )
    return [paired_report(group, n_resamples, seed, allow_incomplete) for group in groups]


def _warnings(n_targets: int) -> list[str]:
    if n_targets >= MIN_TARGETS:
        return []
    return [
        f"the intervals rest on {n_targets} targets (fewer than {MIN_TARGETS}): "
        "the bootstrap understates their width; read them as rough"
    ]


def _effect(matrices: dict[str, np.ndarray], on: str, off: str, n_resamples: int, seed: int) -> dict:
    interval = paired_bootstrap(target_rates(matrices[on]), target_rates(matrices[off]), n_resamples, seed)
    counts = {**gained_lost(matrices[on], matrices[off]), **full_gained_lost(matrices[on], matrices[off])}
    return {"comparison": f"{on} - {off}", **interval.to_dict(), **counts}
