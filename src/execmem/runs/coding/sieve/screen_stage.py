"""SIEVE stage 2, the patch-pattern screen: each valid target's history pool, scored and shortlisted.

The pool (``history.history_pool``) holds the target's earlier same-repository tasks that passed
stage 1, without any that carry the target's identifiers. The deterministic scorer
(``suites.coding.screen``) shortlists the top-N; with ``judge`` the LLM judge then keeps the
candidates it finds relevant (a pair whose verdict cannot be had is not kept, and counted).
The target's gold patch is read here and by the evaluator, nowhere else. Output: ``screen.json``,
per target its pool, the identifier exclusions, every score with its evidence, the shortlist, the
verdicts and the candidates kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from execmem.agents.coding.sieve.json_reply import JsonReplyError
from execmem.agents.coding.sieve.judge import LLMJudge
from execmem.core.files import read_json_document, write_json_atomic
from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.coding.sieve.episodes import Progress
from execmem.runs.coding.sieve.stages import Stage
from execmem.suites.coding.history import excluded_for_identifiers, history_pool, target_view
from execmem.suites.coding.screen import screen
from execmem.suites.coding.tasks import CodingTask

SCREEN_STAGE_VERSION = "sieve-screen-stage-v1"
OUTPUT = "screen.json"


def screen_stage(
    config: SieveConfig, tasks_sha: str, targets: Sequence[str], valid: Sequence[str], judge: LLMJudge | None
) -> Stage:
    inputs = {
        "tasks_sha256": tasks_sha,
        "targets": list(targets),
        "valid": sorted(valid),
        "policy": config.screen.describe(),
        "judge": judge.describe() if judge else None,
    }
    return Stage("2-screen", SCREEN_STAGE_VERSION, inputs, config.out)


def screen_target(
    target: CodingTask, tasks: Sequence[CodingTask], valid: set[str], config: SieveConfig
) -> dict:
    """The deterministic part for one target (no model)."""
    view = target_view(target)
    pool = history_pool(view, tasks, valid)
    scores, shortlist = screen(target.patch, pool, config.screen)
    return {
        "target": target.instance_id,
        "pool": [task.instance_id for task in pool],
        "excluded_for_identifiers": excluded_for_identifiers(view, tasks),
        "scores": [score.to_dict() for score in scores],
        "shortlist": [score.history_id for score in shortlist],
        "judge": {},
        "kept": [score.history_id for score in shortlist],
    }


def drop_reason(result: dict[str, Any], judged: bool) -> str | None:
    """Why a target leaves at stage 2 (None when it has candidates left)."""
    if not result["pool"]:
        return "no earlier same-repository task"
    if not result["shortlist"]:
        return "no candidate scored above min_score"
    if not result["kept"]:
        return "the judge found no candidate relevant" if judged else "no candidate"
    return None


async def _judge_all(
    results: dict[str, dict],
    by_id: dict[str, CodingTask],
    judge: LLMJudge,
    config: SieveConfig,
    progress: Progress,
) -> None:
    gate = asyncio.Semaphore(config.concurrency)

    async def one(result: dict, score: dict) -> None:
        target, history = by_id[result["target"]], by_id[score["history"]]
        evidence = {k: v for k, v in score.items() if k != "history"}
        async with gate:
            try:
                verdict = await judge.judge(target.problem_statement, history.problem_statement, evidence)
                result["judge"][score["history"]] = verdict.model_dump()
            except JsonReplyError as exc:
                result["judge"][score["history"]] = {"relevant": False, "error": str(exc)}

    pairs = [(r, s) for r in results.values() for s in r["scores"] if s["history"] in r["shortlist"]]
    await asyncio.gather(*(one(result, score) for result, score in pairs))
    for result in results.values():
        result["kept"] = [h for h in result["shortlist"] if result["judge"].get(h, {}).get("relevant")]
    progress(f"screen: judged {len(pairs)} pairs")


async def run_screen(
    stage: Stage,
    tasks: Sequence[CodingTask],
    targets: Sequence[str],
    valid: set[str],
    config: SieveConfig,
    judge: LLMJudge | None,
    progress: Progress,
) -> dict[str, dict]:
    """Every target's screen result (read back when the stage is done)."""
    if stage.finished():
        return read_json_document(stage.path(OUTPUT))
    stage.start()
    by_id = {task.instance_id: task for task in tasks}
    results = {t: screen_target(by_id[t], tasks, valid, config) for t in targets}
    if judge is not None:
        await _judge_all(results, by_id, judge, config, progress)
    for result in results.values():
        result["dropped"] = drop_reason(result, judge is not None)
    write_json_atomic(stage.path(OUTPUT), results)
    stage.finish({"targets": len(results), "kept": sum(r["dropped"] is None for r in results.values())})
    return results
