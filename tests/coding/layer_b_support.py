"""Layer B test support: a SIEVE output folder written by hand (only its history stage; each target's
pool is its earlier same-repository tasks, each item as if the solver had fixed the task with its gold
patch), and a Layer B run in-process."""

from __future__ import annotations

import asyncio
from pathlib import Path

from execmem.agents.coding.config import SolverConfig
from execmem.core.files import write_json_atomic
from execmem.llm.config import ModelConfig
from execmem.runs.coding.config import CodingRunConfig
from execmem.runs.coding.layer_b.config import SystemMemoryConfig
from execmem.runs.coding.run import CodingRun
from execmem.runs.coding.sieve.history_items import SIEVE_DOCUMENT, write_history
from execmem.suites.coding.gitrepo import changed_paths
from execmem.suites.coding.history import HistoryItem, history_pool, target_view
from execmem.suites.coding.records import touched_functions
from execmem.suites.coding.tasks import CodingTask

STAGE = "stages/3-history/handmade"


def history_item(task: CodingTask) -> HistoryItem:
    """The task as a completed history item: a grep, the gold patch applied, the submission."""
    path = changed_paths(task.patch)[0]
    function = (touched_functions(task.patch) or ["x"])[0]
    trajectory = "\n".join([
        "step 1:", f"$ grep -n 'def {function}' {path}", "-> exit 0", f"  1:def {function}(x):",
        "step 2:", "$ git apply fix.diff", "-> exit 0",
        "step 3:", "$ echo EXECMEM_SUBMIT", "end: submitted",
    ])  # fmt: skip
    return HistoryItem(
        instance_id=task.instance_id, repo=task.repo, created_at=task.created_at,
        problem_statement=task.problem_statement, trajectory=trajectory, model_patch=task.patch,
        resolved=True, end_reason="submitted", seed=0,
    )  # fmt: skip


def write_sieve_history(out: Path, tasks: list[CodingTask]) -> Path:
    """``out`` as a SIEVE folder whose history stage holds every task, each target's pool eligible."""
    items = {task.instance_id: history_item(task) for task in tasks}
    pools = {}
    for task in tasks:
        pool = [t.instance_id for t in history_pool(target_view(task), tasks)]
        pools[task.instance_id] = {"pool": pool, "kept": pool, "executed": pool, "eligible": pool}
    (out / STAGE).mkdir(parents=True)
    write_history(out / STAGE, items, pools, {})
    write_json_atomic(out / SIEVE_DOCUMENT, {"stages": {"3-history": STAGE}})
    return out


def run_system(
    folder: Path, tasks_file: Path, base_url: str, name: str, history_dir: Path, seeds: int = 4, **options
) -> CodingRun:
    """Run (or resume) a Layer B run in-process; the run object (its ``memories.system`` is the system)."""
    run = system_run(folder, tasks_file, base_url, name, history_dir, seeds, **options)
    asyncio.run(run.run())
    return run


def system_run(
    folder: Path, tasks_file: Path, base_url: str, name: str, history_dir: Path, seeds: int = 4, **options
) -> CodingRun:
    """A Layer B run opened on its folder, not yet run."""
    system = SystemMemoryConfig(name=name, history_dir=history_dir, **options.pop("system", {}))
    model = ModelConfig(
        model=options.pop("model", "planted"), base_url=base_url, backoff_base_s=0.01, timeout_s=10.0
    )
    config = CodingRunConfig(model=model, tasks_file=tasks_file, memory="system", system=system, seeds=seeds,
                             solver=SolverConfig(max_steps=4), **options)  # fmt: skip
    return CodingRun(config, folder)
