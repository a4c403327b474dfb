"""A scripted Layer B study with known causes: run folders written directly (no episode is run),
their outcomes the planted solver's (a test double; docs/attribution.md, "Offline checks").

For each planted solver: an ``off``, a ``frozen`` (and an ``irrelevant``) run over the targets, and
one run per scripted memory system whose records have planted forms (``planted_records``): a
transcript system (polluted transcripts, shell trajectories), a fact system (over-general facts,
facts without a fix, symptoms) and a clean system (clean records, another function of the right
file, rank misses). Each episode's outcome is ``PlantedSolver.resolves`` on the record, its
trajectory the planted solver's three steps. Every pair's planted cause is known (``truth``):
``solver_bound`` where the solver's plant gains nothing from any record and loses everything to
any memory, else the cause of its record's form. ``given_run`` writes the run of a given-text file
the same way, so the strip arms and the gate close the loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execmem.core.hashing import file_sha256
from execmem.core.tokens import estimate_tokens
from execmem.suites.coding.conditions import MemorySource, describe_memory
from execmem.suites.coding.everyday import everyday_memory
from execmem.suites.coding.given import load_given
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.records import RecordPolicy
from execmem.suites.coding.tasks import CodingTask, load_tasks
from execmem.testing.planted_coding_solver import Plant, PlantedSolver, draw
from execmem.testing.planted_records import CAUSES, clean, other_record, record
from execmem.testing.planted_runs import write_run

SYSTEM_FORMS: dict[str, tuple[str, ...]] = {
    "transcripts": ("polluted", "polluted", "noisy"),
    "facts": ("general", "no_fix", "symptom"),
    "clean": ("clean", "clean", "wrong_function", "rank_miss"),
}
RANKED = 10


@dataclass(frozen=True)
class SolverPlan:
    """One planted solver: its volume and instruction sensitivity, and the share of targets where
    it is solver-bound (gains nothing from any record, loses every seed to any memory)."""

    name: str
    length_cost: float = 0.2
    instruction_cost: float = 0.0
    bound_share: float = 0.0
    ceiling_share: float = 0.3


@dataclass
class PlantedStudy:
    root: Path
    tasks_file: Path
    tasks: dict[str, CodingTask]
    seeds: int
    solvers: dict[str, PlantedSolver] = field(default_factory=dict)
    runs: dict[tuple[str, str], Path] = field(default_factory=dict)
    """(solver, ``off`` / ``frozen`` / ``irrelevant`` / ``SYSTEM@K``) -> run folder."""
    truth: dict[tuple[str, str, str], str] = field(default_factory=dict)
    """(target, solver, system) -> planted cause (``none``: nothing planted to fail)."""

    def folders(self) -> list[Path]:
        return list(self.runs.values())


def solver_plants(plan: SolverPlan, targets: list[str]) -> dict[str, Plant]:
    plants = {}
    for target in targets:
        if draw("bound", plan.name, target) < plan.bound_share:
            plants[target] = Plant(1.0, 0.0, memory_cost=1.0)
            continue
        u = draw("off", plan.name, target)
        p_off = 1.0 if u < plan.ceiling_share else (0.0, 0.25, 0.5)[int(3 * (u - plan.ceiling_share) / (1 - plan.ceiling_share))]
        plants[target] = Plant(p_off, 1.0)
    return plants


def form_of(system: str, target: str) -> str:
    forms = SYSTEM_FORMS[system]
    return forms[int(draw("form", system, target) * len(forms))]


def planted_study(
    root: Path,
    plans: tuple[SolverPlan, ...] = (SolverPlan("planted-a"), SolverPlan("planted-b", bound_share=0.2)),
    systems: tuple[str, ...] = tuple(SYSTEM_FORMS),
    tasks_file: Path | None = None,
    seeds: int = 4,
    dose: tuple[int, ...] = (1,),
    limit: int | None = None,
) -> PlantedStudy:
    """Write every run of the study under ``root``."""
    tasks_file = tasks_file or builtin_tasks_path()
    every = load_tasks(tasks_file)
    chosen = every[:limit] if limit else every
    study = PlantedStudy(root, tasks_file, {t.instance_id: t for t in every}, seeds)
    targets = [t.instance_id for t in chosen]
    for plan in plans:
        solver = PlantedSolver(every, solver_plants(plan, targets), length_cost=plan.length_cost,
                               instruction_cost=plan.instruction_cost)  # fmt: skip
        study.solvers[plan.name] = solver
        _layer_a_runs(study, plan.name, targets)
        for system in systems:
            for k in dose:
                _system_run(study, plan.name, system, k, targets)
            for target in targets:
                bound = solver.plants[target].memory_cost >= 1
                study.truth[target, plan.name, system] = "solver_bound" if bound else CAUSES[form_of(system, target)]
    return study


def _layer_a_runs(study: PlantedStudy, solver: str, targets: list[str]) -> None:
    frozen = {t: clean(study.tasks[t]) for t in targets}
    entries = {t: {"text": text, "chars": len(text), "sources": [f"hist-{t}"]} for t, text in frozen.items()}
    frozen_block = {"condition": "frozen", "retrieval_trigger": "once, at episode start",
                    "insertion_rule": "the target's frozen record text, whole", "truncation_rule": "none"}  # fmt: skip
    conditions = {
        "off": ({"condition": "off", "injected": "nothing"}, {t: {"text": None, "chars": 0, "sources": []} for t in targets}),
        "frozen": (frozen_block, entries),
        "irrelevant": ({**frozen_block, "condition": "irrelevant", "matches": "frozen"},
                       {t: everyday_memory(t, len(frozen[t])).to_dict() for t in targets}),
    }  # fmt: skip
    for condition, (block, memory) in conditions.items():
        study.runs[solver, condition] = _write(study, solver, condition, block, memory, targets)


def _system_run(study: PlantedStudy, solver: str, system: str, k: int, targets: list[str]) -> None:
    memory = {t: system_entry(study.tasks[t], system, k) for t in targets}
    block = {"condition": "system", "system": system, "describe": {"kind": "planted-record-forms", "forms": SYSTEM_FORMS[system]},
             "write_policy": "one conversation per history item", "retrieval_trigger": "once, before the run",
             "insertion_rule": f"the top {k} records joined in rank order", "truncation_rule": "none",
             "top_k": k, "query": "problem", "history": {"sieve_dir_sha": "planted", "history_stage_key": "planted"}}  # fmt: skip
    study.runs[solver, f"{system}@{k}"] = _write(study, solver, f"{system}-top{k}", block, memory, targets)


def system_entry(task: CodingTask, system: str, k: int) -> dict[str, Any]:
    """A target's memory.json entry: the records ranked (the frozen history's first, or second for a
    rank miss), the top k injected."""
    form = form_of(system, task.instance_id)
    frozen_history = f"hist-{task.instance_id}"
    ranked = [(record(form, task), ["other-hist"] if form == "rank_miss" else [frozen_history])]
    if form == "rank_miss":
        ranked.append((clean(task), [frozen_history]))
    ranked += [(other_record(task, n), [f"filler-{n}"]) for n in range(1, RANKED - len(ranked) + 1)]
    ranking = [{"rank": i + 1, "text": text, "lines": len(text.splitlines()), "tokens": estimate_tokens(text),
                "score": round(1.0 / (i + 1), 4), "history_ids": ids, "injected": i < k}
               for i, (text, ids) in enumerate(ranked)]  # fmt: skip
    text = "\n\n".join(r["text"] for r in ranking[:k])
    sources = [h for r in ranking[:k] for h in r["history_ids"]]
    return {"text": text, "chars": len(text), "lines": len(text.splitlines()), "tokens": estimate_tokens(text),
            "sources": sources, "query": task.problem_statement, "ranking": ranking, "ingested": [frozen_history]}  # fmt: skip


def given_run(study: PlantedStudy, solver: str, given_file: Path, out: Path) -> Path:
    """The run of a given-text file for a planted solver, written as the others."""
    given = load_given(given_file)
    tasks = list(study.tasks.values())
    block = describe_memory("given", MemorySource(tasks, RecordPolicy(), given=given, given_sha256=file_sha256(given_file)))
    targets = [t for t in study.tasks if t in given]
    memory = {t: {"text": given[t].text, "chars": len(given[t].text or ""), "sources": []} for t in targets}
    return _write(study, solver, None, block, memory, targets, out)


def _write(study, solver, name, block, memory, targets, out: Path | None = None) -> Path:
    folder = out or study.root / solver / str(name)
    return write_run(folder, study.solvers[solver], solver, study.tasks_file, block, memory,
                     [study.tasks[t] for t in targets], study.seeds)  # fmt: skip
