"""SIEVE stage 3b, distillation: each (target, eligible kept history) pair becomes an experience.

The distiller gets ``TargetView`` and ``HistoryItem`` only. Each experience is then checked:
its claims against the history's trajectory and patch (``anchoring``: unanchored claims are flagged
and counted; dropped only with ``drop_unanchored``), and its text for the target's identifiers
(instance id, issue number: such an experience is dropped). The candidates of a target are its
usable experiences in screen order; candidate k is the k-th. Output ``experiences.jsonl``, one line
per pair: target, history, rank, status (``ok``, ``unanchored``, ``leak``, ``failed``), the
experience and its record text, the anchoring, the leaks, the distiller.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from execmem.agents.coding.sieve.distiller import Distiller, DistillError
from execmem.core.files import JsonlAppender, complete_records
from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.coding.sieve.stages import Stage
from execmem.suites.coding.anchoring import check_anchoring
from execmem.suites.coding.history import HistoryItem, identifier_leaks, target_view
from execmem.suites.coding.tasks import CodingTask

DISTILL_STAGE_VERSION = "sieve-distill-stage-v1"
OUTPUT = "experiences.jsonl"


def distill_stage(config: SieveConfig, history_key: str, distiller: Distiller) -> Stage:
    inputs = {
        "history_stage": history_key,
        "distiller": distiller.describe(),
        "drop_unanchored": config.drop_unanchored,
    }
    return Stage("3-distill", DISTILL_STAGE_VERSION, inputs, config.out)


async def distill_pair(
    target: CodingTask, item: HistoryItem, distiller: Distiller, drop_unanchored: bool
) -> dict:
    """One pair's line (without its rank)."""
    view = target_view(target)
    line: dict[str, Any] = {
        "target": target.instance_id,
        "history": item.instance_id,
        "distiller": distiller.describe(),
    }
    try:
        experience = await distiller.distill(view, item)
    except DistillError as exc:
        return {**line, "status": "failed", "reason": str(exc)}
    anchoring = check_anchoring(experience, item.evidence())
    leaks = identifier_leaks(experience.render(), view)
    status = "leak" if leaks else "unanchored" if drop_unanchored and not anchoring.anchored else "ok"
    return {
        **line,
        "status": status,
        "experience": experience.model_dump(),
        "text": experience.render(),
        "anchoring": anchoring.to_dict(),
        "leaks": leaks,
    }


async def run_distill(
    stage: Stage,
    pools: dict[str, dict],
    items: dict[str, HistoryItem],
    tasks: Sequence[CodingTask],
    distiller: Distiller,
    config: SieveConfig,
) -> dict[str, list[dict]]:
    """Every surviving target's distilled lines in screen order (pairs done earlier are kept)."""
    stage.start()
    by_id = {task.instance_id: task for task in tasks}
    done = {(r["target"], r["history"]): r for r in complete_records(stage.path(OUTPUT))}
    pairs = [(t, h) for t, pool in pools.items() for h in pool["kept"] if h in pool["eligible"]]
    gate = asyncio.Semaphore(config.concurrency)
    sink = JsonlAppender(stage.path(OUTPUT))

    async def one(target: str, history: str) -> None:
        async with gate:
            line = await distill_pair(by_id[target], items[history], distiller, config.drop_unanchored)
        sink.append(line)
        done[(target, history)] = line

    try:
        await asyncio.gather(*(one(t, h) for t, h in pairs if (t, h) not in done))
    finally:
        sink.close()
    lines = {t: [done[(t, h)] for h in pool["kept"] if (t, h) in done] for t, pool in pools.items()}
    for target_lines in lines.values():
        usable = [line for line in target_lines if line["status"] == "ok"]
        for rank, line in enumerate(usable, start=1):
            line["rank"] = rank
    stage.finish(_summary(lines))
    return lines


def _summary(lines: dict[str, list[dict]]) -> dict[str, Any]:
    every = [line for target_lines in lines.values() for line in target_lines]
    return {
        "pairs": len(every),
        "ok": sum(line["status"] == "ok" for line in every),
        "failed": sum(line["status"] == "failed" for line in every),
        "leaks": sum(line["status"] == "leak" for line in every),
        "unanchored_experiences": sum(bool(line.get("anchoring", {}).get("unanchored")) for line in every),
        "unanchored_claims": sum(len(line.get("anchoring", {}).get("unanchored", [])) for line in every),
    }


def drop_reason(pool: dict, target_lines: list[dict]) -> str | None:
    """Why a target leaves at stage 3 (None when it has a candidate)."""
    if not [h for h in pool["kept"] if h in pool["eligible"]]:
        return "no shortlisted history completed"
    if not any(line["status"] == "ok" for line in target_lines):
        return "no usable experience (distillation failed, leaked or unanchored)"
    return None
