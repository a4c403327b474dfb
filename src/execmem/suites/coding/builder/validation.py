"""Re-checking a task end to end: the buggy copy fails as recorded and the gold patch resolves it.

This goes through the same path an agent's episode does (prepare, sandboxed
tests, JUnit parsing), so a task that validates is one the benchmark can score.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from execmem.suites.coding.evaluation.evaluate import Evaluation, evaluate
from execmem.suites.coding.gitrepo import GitError
from execmem.suites.coding.tasks import CodingTask
from execmem.suites.coding.venvs import VenvCache
from execmem.suites.coding.workspace import Episode, prepare_episode


@dataclass(frozen=True)
class TaskCheck:
    """The verdict on one task, with what went wrong and how long each step took."""

    instance_id: str
    ok: bool
    reason: str
    base_sha: str
    fail_to_pass: int
    failing_before: int
    broken_before: int
    gold_resolved: bool
    env_reused: bool
    prepare_s: float
    buggy_s: float
    gold_s: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def unprepared(cls, task: CodingTask, reason: str) -> TaskCheck:
        """The verdict on a task whose episode could not even be prepared."""
        return cls(task.instance_id, False, reason, "", len(task.FAIL_TO_PASS), 0, 0, False, False, 0, 0, 0)


def validate_task(
    task: CodingTask,
    root: Path,
    env_cache: VenvCache,
    *,
    cache_dir: Path | None = None,
    unsafe_local: bool = False,
    timeout_s: float = 600.0,
) -> TaskCheck:
    """Prepare an episode, score it unpatched, apply the gold patch, score it again."""
    episode = prepare_episode(task, root, env_cache, unsafe_local=unsafe_local, cache_dir=cache_dir)
    try:
        buggy = evaluate(task, episode, timeout_s)
        gold = _evaluate_gold(task, episode, timeout_s)
    finally:
        episode.cleanup()
    failing_before = len(buggy.failing(task.FAIL_TO_PASS))
    broken_before = len(buggy.failing(task.PASS_TO_PASS))
    return TaskCheck(
        instance_id=task.instance_id,
        ok=failing_before == len(task.FAIL_TO_PASS) and broken_before == 0 and gold.resolved,
        reason=_reason(task, buggy, gold, failing_before, broken_before),
        base_sha=episode.base_sha,
        fail_to_pass=len(task.FAIL_TO_PASS),
        failing_before=failing_before,
        broken_before=broken_before,
        gold_resolved=gold.resolved,
        env_reused=episode.venv.reused,
        prepare_s=episode.prepare_s,
        buggy_s=buggy.duration_s,
        gold_s=gold.duration_s,
    )


def _evaluate_gold(task: CodingTask, episode: Episode, timeout_s: float) -> Evaluation:
    try:
        episode.apply(task.patch)
    except GitError as exc:
        return Evaluation(False, {}, 0.0, error=f"gold patch does not apply: {exc}")
    return evaluate(task, episode, timeout_s)


def _reason(task: CodingTask, buggy: Evaluation, gold: Evaluation, failing: int, broken: int) -> str:
    if buggy.error:
        return f"unpatched test run: {buggy.error}"
    if failing < len(task.FAIL_TO_PASS):
        passing = [t for t in task.FAIL_TO_PASS if t not in buggy.failing(task.FAIL_TO_PASS)]
        return f"FAIL_TO_PASS passes without the fix: {passing[0]}"
    if broken:
        return f"PASS_TO_PASS fails before the fix: {buggy.failing(task.PASS_TO_PASS)[0]}"
    if gold.error:
        return f"gold test run: {gold.error}"
    if gold.suspect:
        return f"gold test run is suspect: {gold.suspect_reasons[0]}"
    if not gold.resolved:
        return f"gold patch leaves failing: {gold.failing(task.test_ids())[0]}"
    return "ok"
