"""``--dry-run``: how much each SIEVE stage will run and ask a model, before anything is spent.

Nothing is run or written. Stage 1 counts the tasks not validated yet. Later counts rest on what is
known now: the screen is computed (it needs no model) over the targets stage 1 passed, or over all
targets when stage 1 has not run (then every count is an upper bound). Episodes already finished in
``out`` are subtracted where their run folders can be named (history and off runs); model calls are
at most ``max_steps`` per episode, and the LLM distiller and judge make at most two calls per pair.
"""

from __future__ import annotations

from typing import Any

from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.coding.sieve.episodes import EpisodeRuns
from execmem.runs.coding.sieve.history_stage import executed_for, history_specs
from execmem.runs.coding.sieve.screen_stage import drop_reason, screen_target
from execmem.runs.coding.sieve.validate_stage import checked, pending_tasks, task_sha, validate_stage
from execmem.runs.coding.sieve.verify_stage import off_spec
from execmem.suites.coding.tasks import CodingTask


def _valid_now(config: SieveConfig, tasks: list[CodingTask]) -> tuple[set[str], bool]:
    """Tasks known valid (all when stage 1 has not finished) and whether that is known."""
    stage = validate_stage(config)
    results = checked(stage)
    if pending_tasks(stage, tasks):
        return {task.instance_id for task in tasks}, False
    return {task.instance_id for task in tasks if results[task_sha(task)]["ok"]}, True


def plan(
    config: SieveConfig, tasks: list[CodingTask], targets: list[CodingTask], runs: EpisodeRuns
) -> list[dict]:
    """One row per stage: what it does, episodes and model calls (at most), what is done already."""
    steps = config.solver.max_steps
    todo = len(pending_tasks(validate_stage(config), tasks))
    valid, known = _valid_now(config, tasks)
    screened = {
        t.instance_id: screen_target(t, tasks, valid, config) for t in targets if t.instance_id in valid
    }
    for result in screened.values():
        result["dropped"] = drop_reason(result, False)
    alive = [r for r in screened.values() if r["dropped"] is None]
    pairs = sum(len(r["shortlist"]) for r in alive)
    history = history_specs(runs, screened, config)
    history_left = runs.pending(history)
    distill_pairs = sum(len(executed_for(r, "shortlist")) for r in alive)
    offs = [off_spec(runs, r["target"], config.seeds) for r in alive]
    off_left = runs.pending(offs)
    candidates = distill_pairs * config.seeds
    calls = 2 if config.distiller == "llm" else 0
    bound = "" if known else " (stage 1 not run yet: upper bounds)"
    return [
        _row("1 source validation", f"{todo} of {len(tasks)} tasks to validate (2 test runs each)", 0, 0),
        _row("2 patch-pattern screen", f"{len(alive)} targets with candidates, {pairs} pairs{bound}", 0,
             2 * pairs if config.judge else 0),
        _row("3 history execution", f"{len(history)} history tasks x {config.history_seeds} seeds",
             history_left, history_left * steps),
        _row("3 distillation", f"{distill_pairs} pairs, {config.distiller} distiller", 0,
             calls * distill_pairs),
        _row("4 verify: off", f"{len(offs)} targets x {config.seeds} seeds", off_left, off_left * steps),
        _row("4 verify: candidates", f"at most {distill_pairs} candidates x {config.seeds} seeds", candidates,
             candidates * steps),
    ]  # fmt: skip


def _row(stage: str, work: str, episodes: int, calls: int) -> dict[str, Any]:
    return {"stage": stage, "work": work, "episodes_at_most": episodes, "model_calls_at_most": calls}
