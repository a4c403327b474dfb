"""Find gold answers that fail, change nothing, or contradict each other."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from execmem.suites.vehicle.dataset import Question
from execmem.suites.vehicle.execution import changed_paths, run_calls

REJECTED = "gold-rejected"  # a gold call fails and the reference changes nothing
RECOVERED = "gold-fails-then-succeeds"  # a gold call fails, a later one still makes the change
NO_CHANGE = "gold-no-change"  # every call succeeds, but the value set is already the default
DUPLICATE = "duplicate-query"  # the same query text with different answers
REPEATED = "repeated-call"  # an answer repeats a call (harmless: tools are idempotent)

KIND_ORDER = (REJECTED, RECOVERED, NO_CHANGE, DUPLICATE, REPEATED)


@dataclass(frozen=True)
class Finding:
    kind: str
    questions: tuple[str, ...]
    detail: str

    def to_json(self) -> dict:
        return asdict(self)


def label(question: Question) -> str:
    return f"qa_{question.scenario} #{question.index}"


def lint(questions: Iterable[Question]) -> list[Finding]:
    questions = list(questions)
    findings = [f for q in questions for f in _lint_question(q)]
    findings += _duplicate_queries(questions)
    return sorted(findings, key=lambda f: (KIND_ORDER.index(f.kind), f.questions))


def _lint_question(question: Question) -> list[Finding]:
    world, results = run_calls(question.gold_calls, report_state=True)
    changes = changed_paths(world)
    failed = [
        f"{call} -> {result.message}"
        for call, result in zip(question.gold_calls, results, strict=True)
        if not result.success
    ]
    where = (label(question),)
    findings = []
    if failed and not changes:
        findings.append(Finding(REJECTED, where, "; ".join(failed) + "; the reference changes nothing"))
    elif failed:
        findings.append(Finding(RECOVERED, where, "; ".join(failed) + f"; still changes {sorted(changes)}"))
    elif not changes:
        calls = ", ".join(question.answers)
        findings.append(Finding(NO_CHANGE, where, f"{calls} sets values the car already has"))
    if len(set(question.answers)) < len(question.answers):
        findings.append(Finding(REPEATED, where, ", ".join(question.answers)))
    return findings


def _duplicate_queries(questions: list[Question]) -> list[Finding]:
    by_query: dict[str, list[Question]] = defaultdict(list)
    for question in questions:
        by_query[question.query.strip()].append(question)
    findings = []
    for query, group in by_query.items():
        if len(group) > 1 and len({tuple(q.answers) for q in group}) > 1:
            answers = " vs ".join(str(list(q.answers)) for q in group)
            findings.append(Finding(DUPLICATE, tuple(label(q) for q in group), f"{query[:80]!r}: {answers}"))
    return findings
