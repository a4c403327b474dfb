"""SIEVE stage 3a, history execution: the solver runs each history task (memory off) to completion.

Which tasks run: the candidates stage 2 kept (``history_scope`` shortlist) or every task of the
surviving targets' pools (``pool``, for memory systems that ingest all eligible history). Each runs
``history_seeds`` times in its own coding run folder. A run is *completed* when the solver submitted
with a non-empty patch; the lowest completed seed becomes the task's :class:`HistoryItem` (its
problem statement, the trajectory compressed by ``agents.coding.trajectory``, the final patch, the
outcome). The stage's artifact (``history_items``) lists the items and each target's eligible ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execmem.agents.coding.trajectory import COMPRESSION_VERSION, compress_trajectory
from execmem.core.files import complete_records
from execmem.core.text import slug
from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.coding.sieve.episodes import EpisodeRuns, RunSpec
from execmem.runs.coding.sieve.history_items import write_history
from execmem.runs.coding.sieve.stages import Stage, content_key
from execmem.suites.coding.history import HistoryItem, identifier_leaks, target_view
from execmem.suites.coding.tasks import CodingTask

HISTORY_STAGE_VERSION = "sieve-history-v1"


def history_stage(config: SieveConfig, screen_key: str) -> Stage:
    inputs = {
        "screen_stage": screen_key,
        "scope": config.history_scope,
        "history_seeds": config.history_seeds,
        "solver": content_key(config.solver_identity()),
        "compression": COMPRESSION_VERSION,
    }
    return Stage("3-history", HISTORY_STAGE_VERSION, inputs, config.out)


def executed_for(result: dict[str, Any], scope: str) -> list[str]:
    """The history tasks run for one target (in screen order for the shortlist)."""
    return list(result["kept"] if scope == "shortlist" else result["pool"])


def history_specs(runs: EpisodeRuns, screened: dict[str, dict], config: SieveConfig) -> list[RunSpec]:
    survivors = [r for r in screened.values() if r["dropped"] is None]
    ids = dict.fromkeys(h for r in survivors for h in executed_for(r, config.history_scope))
    return [RunSpec(runs.root / "history" / slug(h, limit=120), h, "off", config.history_seeds) for h in ids]


def completed(episode: dict[str, Any]) -> bool:
    return episode["end_reason"] == "submitted" and bool(str(episode.get("model_patch", "")).strip())


def history_item(task: CodingTask, folder: Path, episodes: dict[str, dict[str, Any]]) -> HistoryItem | None:
    """The item of the task's lowest completed seed (None when no seed completed)."""
    done = sorted((e for e in episodes.values() if completed(e)), key=lambda e: e["seed"])
    if not done:
        return None
    episode = done[0]
    lines = complete_records(folder / "trajectories" / f"{slug(episode['id'], keep='@')}.jsonl")
    return HistoryItem(
        instance_id=task.instance_id,
        repo=task.repo,
        created_at=task.created_at,
        problem_statement=task.problem_statement,
        trajectory=compress_trajectory(lines),
        model_patch=episode["model_patch"],
        resolved=bool(episode["resolved"]),
        end_reason=episode["end_reason"],
        seed=int(episode["seed"]),
    )


def eligible_ids(result: dict, items: dict[str, HistoryItem], target: CodingTask, scope: str) -> list[str]:
    """The target's completed history items that carry none of its identifiers."""
    view = target_view(target)
    return [
        h
        for h in executed_for(result, scope)
        if h in items and not identifier_leaks(f"{items[h].problem_statement}\n{items[h].evidence()}", view)
    ]


async def run_history(
    stage: Stage,
    runs: EpisodeRuns,
    screened: dict[str, dict],
    tasks: Sequence[CodingTask],
    config: SieveConfig,
) -> tuple[dict[str, HistoryItem], dict[str, dict]]:
    """The history items and, per surviving target, what ran and what is eligible."""
    stage.start()
    by_id = {task.instance_id: task for task in tasks}
    specs = history_specs(runs, screened, config)
    episodes = await runs.run(specs, "history")
    items: dict[str, HistoryItem] = {}
    for spec in specs:
        item = history_item(by_id[spec.task], spec.folder, episodes[spec.folder])
        if item is not None:
            items[spec.task] = item
    pools = {}
    for target, result in screened.items():
        if result["dropped"] is None:
            eligible = eligible_ids(result, items, by_id[target], config.history_scope)
            pools[target] = {
                "pool": result["pool"],
                "kept": result["kept"],
                "executed": executed_for(result, config.history_scope),
                "eligible": eligible,
            }
    write_history(stage.folder, items, pools, {s.task: str(s.folder) for s in specs})
    stage.finish({"history_tasks": len(specs), "completed": len(items), "targets": len(pools)})
    return items, pools
