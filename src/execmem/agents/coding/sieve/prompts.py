"""The versioned prompts of SIEVE's LLM judge and LLM distiller (a change means a new version).

Neither prompt ever holds a target's gold patch, test patch or test results. The judge (stage 2,
oracle-assisted) gets structured evidence: both problem statements and the files, directories and
identifiers the two gold patches share. The distiller (stage 3) gets the target's problem
statement and one history item: its problem statement, compressed trajectory and final patch.
"""

from __future__ import annotations

import json
from typing import Any

from execmem.suites.coding.history import HistoryItem, TargetView

JUDGE_VERSION = "sieve-judge-v1"
DISTILL_VERSION = "sieve-distill-v1"
HISTORY_CHARS = 12_000
"""Cap on the trajectory and on the patch given to the distiller (each; head and tail kept)."""

JUDGE_SYSTEM = """You judge whether an earlier fix in a repository is relevant to a new issue in the same
repository: would knowing how the earlier issue was fixed help someone fix the new one?
You get the two issues and what the two fixes have in common (files, directories, identifiers).
Answer with one JSON object and nothing else: {"relevant": true or false, "reason": "<one sentence>"}."""

DISTILL_SYSTEM = """You turn one earlier, completed fix in a repository into an experience that could help
with a new issue in the same repository. You get the new issue, the earlier issue, a compressed
record of the commands run while fixing it, and the final patch.
Write four fields, each one or two sentences:
- bug_class: the kind of bug the earlier fix addressed;
- root_cause: what was wrong in the code;
- fix_pattern: what the fix changed, concretely;
- reusable_lesson: what to look for or do first on the new issue.
Every file path and identifier you name must appear in the earlier fix's commands, outputs or patch:
do not invent names, and do not name the new issue's identifiers.
Answer with one JSON object and nothing else:
{"bug_class": "...", "root_cause": "...", "fix_pattern": "...", "reusable_lesson": "..."}"""


def judge_messages(
    target_statement: str, history_statement: str, evidence: dict[str, Any]
) -> list[dict[str, Any]]:
    """The judge's conversation for one (target, candidate) pair."""
    body = {
        "new_issue": target_statement,
        "earlier_issue": history_statement,
        "shared": evidence,
    }
    return [
        {"role": "system", "content": JUDGE_SYSTEM},
        {"role": "user", "content": json.dumps(body, ensure_ascii=False, indent=1)},
    ]


def _capped(text: str, limit: int = HISTORY_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}"


def distill_messages(target: TargetView, history: HistoryItem) -> list[dict[str, Any]]:
    """The distiller's conversation for one (target, history item) pair."""
    user = (
        f"<new_issue>\n{target.problem_statement}\n</new_issue>\n\n"
        f"<earlier_issue>\n{history.problem_statement}\n</earlier_issue>\n\n"
        f"<earlier_commands>\n{_capped(history.trajectory)}\n</earlier_commands>\n\n"
        f"<earlier_patch>\n{_capped(history.model_patch)}\n</earlier_patch>"
    )
    return [{"role": "system", "content": DISTILL_SYSTEM}, {"role": "user", "content": user}]
