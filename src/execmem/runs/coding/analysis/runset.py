"""The run folders an analysis reads, by solver and role: off, frozen, the controls, Layer B runs
(``memory.condition`` = ``system``) and given-text runs (strip arms, gates), checked to share one
protocol within each solver."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execmem.core.files import DamagedFileError, read_json_document
from execmem.runs.coding.compare import CodingRunData, differences, load_coding_run, solver_label
from execmem.runs.coding.config import FIXED_FIELDS
from execmem.runs.identity import CompareError

LAYER_A_ROLES = ("off", "frozen", "record", "irrelevant", "other-repo")
_SAME_FOR_A_SOLVER = (*(f for f in FIXED_FIELDS if f != "tasks"), "tasks.file_sha256")


@dataclass(frozen=True)
class AnalysisRun:
    data: CodingRunData
    memory: dict[str, Any]
    """The run's memory.json: per target, the injected text (and, for Layer B, the ranking)."""

    @property
    def folder(self) -> Path:
        return self.data.folder

    @property
    def condition(self) -> str:
        return self.data.condition

    @property
    def block(self) -> dict[str, Any]:
        return self.data.manifest["memory"]

    @property
    def solver(self) -> str:
        return solver_label(self.data)

    @property
    def seeds(self) -> list[int]:
        return list(self.data.manifest["seeds"])

    @property
    def top_k(self) -> int:
        return int(self.block.get("top_k") or 1)

    @property
    def system(self) -> str:
        """A Layer B run's system with its --memory-option settings and query, without top_k
        (``bm25``, ``mem0 [query: title]``, ``planted-records [form=polluted]``); a setting that is
        no scalar shows as the start of its JSON's sha256."""
        name = str(self.block.get("system", "?"))
        settings = [
            f"{key}={_short(value)}" for key, value in sorted((self.block.get("options") or {}).items())
        ]
        query = self.block.get("query")
        if query not in (None, "problem"):
            settings.append(f"query: {query}")
        return f"{name} [{', '.join(settings)}]" if settings else name

    @property
    def given_kind(self) -> str:
        return str(self.block.get("derived_from", {}).get("kind", "given"))

    def text(self, target: str) -> str | None:
        entry = self.memory.get(target)
        return entry.get("text") if isinstance(entry, dict) else None

    def entry(self, target: str) -> dict[str, Any]:
        entry = self.memory.get(target)
        return entry if isinstance(entry, dict) else {}


def _short(value: Any) -> str:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return str(value)
    return "#" + hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:8]


@dataclass
class SolverRuns:
    """One solver's runs by role."""

    solver: str
    layer_a: dict[str, AnalysisRun] = field(default_factory=dict)
    systems: list[AnalysisRun] = field(default_factory=list)
    given: list[AnalysisRun] = field(default_factory=list)

    @property
    def off(self) -> AnalysisRun | None:
        return self.layer_a.get("off")

    @property
    def frozen(self) -> AnalysisRun | None:
        return self.layer_a.get("frozen")

    def primary_systems(self) -> list[AnalysisRun]:
        """Each system's run at its smallest top_k (the attribution's; the others feed the dose curve)."""
        best: dict[str, AnalysisRun] = {}
        for run in self.systems:
            if run.system not in best or run.top_k < best[run.system].top_k:
                best[run.system] = run
        return list(best.values())


def load_analysis_run(folder: Path) -> AnalysisRun:
    data = load_coding_run(folder)
    path = folder / "memory.json"
    try:
        memory = read_json_document(path) if path.is_file() else {}
    except DamagedFileError as exc:
        raise CompareError(str(exc)) from None
    if not isinstance(memory, dict):
        raise CompareError(f"{path}: expected an object of targets")
    return AnalysisRun(data, memory)


def group_runs(runs: list[AnalysisRun]) -> list[SolverRuns]:
    """Runs by solver (in order of first run), by role; CompareError naming every problem."""
    groups: dict[str, SolverRuns] = {}
    problems: list[str] = []
    for run in runs:
        group = groups.setdefault(run.solver, SolverRuns(run.solver))
        if run.condition == "system":
            group.systems.append(run)
        elif run.condition == "given":
            group.given.append(run)
        elif run.condition in group.layer_a:
            other = group.layer_a[run.condition].folder
            problems.append(f"{other} and {run.folder} both have memory {run.condition!r}")
        else:
            group.layer_a[run.condition] = run
    for group in groups.values():
        problems += protocol_problems(group)
    if problems:
        raise CompareError("runs do not share one protocol: " + "; ".join(problems))
    return list(groups.values())


def protocol_problems(group: SolverRuns) -> list[str]:
    """Differences, within a solver, in any field the pairing fixes (targets may differ)."""
    runs = [*group.layer_a.values(), *group.systems, *group.given]
    first, problems = runs[0], []
    for run in runs[1:]:
        for name in _SAME_FOR_A_SOLVER:
            head, _, sub = name.partition(".")
            mine, theirs = first.data.manifest.get(head), run.data.manifest.get(head)
            if sub:
                mine, theirs = (mine or {}).get(sub), (theirs or {}).get(sub)
            problems += [
                f"{path}: {first.folder} has {a!r}, {run.folder} has {b!r}"
                for path, a, b in differences(mine, theirs, f"{name}.")
            ]
    return problems
