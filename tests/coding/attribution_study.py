"""A planted Layer B study for the attribution, ablation and headroom checks, run through the real CLI.

Three packages (``alpha``, ``beta``, ``gamma``; ``paired_support``'s repositories), one target per
function (``double``, ``inc``, ``neg``): nine targets. Each target's SIEVE history (written by hand)
holds two items: its *twin* (an earlier fix of the same bug, the same gold patch: the frozen
experience's history) and a *decoy* (the fix of the package's next function). The frozen file holds
one clean experience per target, from the twin. The memory is the planted-record memory
(``--memory planted-records``), each target's form fixed by a plan (``FORMS`` in turn, the last
target's record ``misleading``: clean and anchored, naming the wrong function); the solvers
are planted (``execmem.testing.planted_coding_solver``), served by the fake OpenAI server:

* ``volume`` (solver A): any record naming the fix's file and function adds 2 to the resolve
  probability, every 1,000 characters take ``length_cost`` off; ``length_cost`` is set so that a
  polluted record (about 2,000 characters) brings the probability back to about the memory-off one,
  and both strip arms recover seeds;
* ``bound`` (solver B): no cost of length; a record naming the fix resolves; two targets at ceiling
  (off 4/4) lose every seed to any memory and gain nothing from any (the planted solver-bound cause
  and the planted ceiling losses).
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from execmem.cli.main import app
from execmem.core.files import write_json_atomic
from execmem.runs.coding.layer_b.ingest import user_space
from execmem.runs.coding.sieve.history_items import SIEVE_DOCUMENT, write_history
from execmem.suites.coding.experience import Experience
from execmem.suites.coding.frozen import dump_frozen, frozen_record
from execmem.suites.coding.history import HistoryItem
from execmem.suites.coding.tasks import CodingTask, dump_tasks
from execmem.testing.planted_coding_solver import Plant
from tests.coding.paired_support import BUGS, make_repo, make_task

PACKAGES = ("alpha", "beta", "gamma")
FUNCTIONS = tuple(BUGS)
FORMS = ("clean", "polluted", "over-general", "symptom", "fix-missing", "ranking-miss")
LAST_FORM = "misleading"
"""The last target's form (``FORMS`` in turn would give it ``over-general`` a second time)."""
CAUSES = {
    "polluted": ("form_degradation", "instruction_pollution"),
    "over-general": ("form_degradation", "over_generalised_fix"),
    "symptom": ("form_degradation", "fix_replaced_by_symptom"),
    "fix-missing": ("form_degradation", "fix_missing"),
    "ranking-miss": ("ranking_miss", None),
    "misleading": ("use_failure", None),
}
"""The planted cause of a failed pair by its record's form (a clean record is planted not to fail)."""
STAGE = "stages/3-history/handmade"
SEEDS = 4


def targets() -> list[str]:
    return [f"{pkg}__{fn}" for pkg in PACKAGES for fn in FUNCTIONS]


def form_plan() -> dict[str, str]:
    """Each target's planted form (``FORMS`` in turn, the last one ``LAST_FORM``), by target."""
    every = targets()
    return {
        target: FORMS[i % len(FORMS)] if i < len(every) - 1 else LAST_FORM for i, target in enumerate(every)
    }


def make_study_tasks(root: Path) -> list[CodingTask]:
    tasks = []
    for pkg in PACKAGES:
        source = make_repo(root / "upstream", pkg)
        tasks += [make_task(source, pkg, 5, fn) for fn in FUNCTIONS]
    dump_tasks(tasks, root / "tasks.jsonl")
    return tasks


def history_of(task: CodingTask, instance_id: str, day: int) -> HistoryItem:
    """A completed earlier fix with the task's gold patch."""
    pkg, function = task.repo.split("/")[1], task.instance_id.split("__")[1]
    trajectory = "\n".join([
        "step 1:", f"$ grep -n 'def {function}' {pkg}/core.py", "-> exit 0", f"  1:def {function}(x):",
        "step 2:", "$ git apply fix.diff", "-> exit 0", "step 3:", "$ echo EXECMEM_SUBMIT", "end: submitted",
    ])  # fmt: skip
    return HistoryItem(
        instance_id=instance_id, repo=task.repo, created_at=f"2024-01-0{day}T00:00:00Z",
        problem_statement=f"In {pkg}, {function}(2) gave a wrong result after an edit.",
        trajectory=trajectory, model_patch=task.patch, resolved=True, end_reason="submitted", seed=0,
    )  # fmt: skip


def twin_id(target: str) -> str:
    return f"{target}-earlier"


def write_study_sieve(out: Path, tasks: list[CodingTask]) -> Path:
    """The SIEVE folder (history stage only) and its frozen file: per target, its twin and a decoy."""
    by_id = {task.instance_id: task for task in tasks}
    items = {twin_id(t): history_of(by_id[t], twin_id(t), 1 + i % 3) for i, t in enumerate(by_id)}
    pools = {}
    for target in by_id:
        pkg, function = target.split("__")
        decoy = f"{pkg}__{FUNCTIONS[(FUNCTIONS.index(function) + 1) % len(FUNCTIONS)]}"
        pool = [twin_id(target), twin_id(decoy)]
        pools[target] = {"pool": pool, "kept": pool, "executed": pool, "eligible": pool}
    (out / STAGE).mkdir(parents=True)
    write_history(out / STAGE, items, pools, {})
    write_json_atomic(out / SIEVE_DOCUMENT, {"stages": {"3-history": STAGE}})
    dump_frozen([frozen_of(by_id[t]) for t in by_id], out / "frozen.jsonl")
    return out


def frozen_of(task: CodingTask):
    pkg, function = task.repo.split("/")[1], task.instance_id.split("__")[1]
    experience = Experience(
        bug_class="wrong constant or operator",
        root_cause=f"`{function}` in {pkg}/core.py computed its result with the wrong expression",
        fix_pattern=f"restore the original expression in `{function}` ({pkg}/core.py)",
        reusable_lesson=f"when `{function}` gives wrong results, read {pkg}/core.py first",
    )
    return frozen_record(
        task.instance_id, task.repo, experience, {"history_ids": [twin_id(task.instance_id)]}
    )


def volume_plants(tasks: list[CodingTask]) -> dict[str, Plant]:
    """Solver A: off rates 0, 1/4, 2/4 in turn (one target at ceiling); any named fix adds 2."""
    rates = (0.0, 0.25, 0.5, 0.0, 0.25, 0.0, 0.5, 1.0, 0.0)
    return {task.instance_id: Plant(p, 2.0) for task, p in zip(tasks, rates, strict=True)}


BOUND = ("alpha__inc", "gamma__double")


def bound_plants(tasks: list[CodingTask]) -> dict[str, Plant]:
    """Solver B: off rates 0, 1/4 in turn; the ``BOUND`` targets at ceiling, lost to any memory."""
    plants = {}
    for i, task in enumerate(tasks):
        bound = task.instance_id in BOUND
        plants[task.instance_id] = (
            Plant(1.0, 0.0, memory_cost=1.0) if bound else Plant((0.0, 0.25)[i % 2], 1.0)
        )
    return plants


def cli(*args: str) -> str:
    """Invoke the real CLI; its output (fails the test with it on a non-zero exit)."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (args, result.output)
    return result.output


def coding_run(root: Path, base_url: str, model: str, out: Path, *memory: str) -> Path:
    """``execmem coding run`` of the study (its frozen targets, 4 seeds, the planted solver's budget)."""
    cli("coding", "run", "--tasks", root / "tasks.jsonl", "--frozen", root / "sieve" / "frozen.jsonl",
        "--model", model, "--base-url", base_url, "--out", out, "--seeds", SEEDS, "--max-steps", 4,
        "--quiet", "--no-probe", "--reuse-evaluations", "--cache-dir", root / "cache", *memory)  # fmt: skip
    return out


def planted_memory_args(root: Path, **options: object) -> list[str]:
    args = ["--memory", "planted-records", "--history", str(root / "sieve")]
    for key, value in options.items():
        args += ["--memory-option", f"{key}={json.dumps(value) if not isinstance(value, str) else value}"]
    return args


def space_plan() -> dict[str, str]:
    """``form_plan`` by user space, as the planted memory's ``plan`` option takes it."""
    return {user_space(target): form for target, form in form_plan().items()}
