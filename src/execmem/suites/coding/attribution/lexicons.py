"""The lexicons and line patterns the form rules use (docs/attribution.md, "Form degradation").

Each is a compiled pattern over one line of a record: instruction terms (task or solver
instructions), shell and tool noise (prompts, trajectory markers, command and test output), repair
verbs (a change line) and error text (a symptom line). Changing any of them changes the rules:
bump ``RULES_VERSION``.
"""

from __future__ import annotations

import re

RULES_VERSION = "attribution-rules-v2"

INSTRUCTION_TERMS = (
    "submit", "submitted", "submission", "EXECMEM_SUBMIT", "you must", "you should", "you need to",
    "you are", "you act", "your task", "your job", "your changes", "please", "do not", "don't",
    "must not", "make sure", "when you are done", "fix this issue", "<issue>", "</issue>",
    "<memory>", "</memory>", "bash tool", "call the", "instructions", "important:", "step by step",
    "reply with", "respond with",
)  # fmt: skip
"""Whole words or phrases, case-insensitive: a line holding any is instruction-flagged."""


def _term(term: str) -> str:
    left = r"(?<!\w)" if term[0].isalnum() or term[0] == "_" else ""
    right = r"(?!\w)" if term[-1].isalnum() or term[-1] == "_" else ""
    return left + re.escape(term).replace(r"\ ", r"\s+") + right


INSTRUCTION = re.compile("|".join(_term(t) for t in INSTRUCTION_TERMS), re.IGNORECASE)

PROMPT = re.compile(r"^\s*(?:\$ |>>> |[\w.-]+@[\w.-]+:\S*[$#] |\(\w[\w.-]*\)\s*\$ )")
MARKER = re.compile(
    r"^\s*(?:step \d+:\s*$|-> exit -?\d+|\[\.\.\. \d+ lines \.\.\.\]\s*$|end: \w+\s*$|! \w+: )"
)
EXIT_MARKER = re.compile(r"^\s*-> exit -?\d+")
TEST_OUTPUT = re.compile(
    r"^=+ .+ =+$|^_+ .+ _+$|collected \d+ items?|\b\d+ (?:passed|failed)\b.* in \d|\[\s*\d+%\]\s*$"
    r"|^\s*(?:PASSED|FAILED|ERROR)\s|^\S+::\S+ (?:PASSED|FAILED|ERROR)\b|^\s*\S+\.py:\d+(?::\d+)?:"
)
"""Command output that shows wherever it came from: test runners, grep -n, tracebacks, linters."""

DIFF_HEADER = re.compile(r"^(?:diff --git |@@ -\d)")
DIFF_LINE = re.compile(r"^[+-](?![+-]{2}(?: |$))")
REPAIR = re.compile(
    r"\b(?:fix|fixed|fixes|fixing|replace[ds]?|replacing|restore[ds]?|restoring|swap(?:ped|s)?"
    r"|renamed?|revert(?:ed|s)?|corrected|adjusted|changed|changing|instead of|should be"
    r"|should return|should use|now returns)\b"
    r"|\bchanges? (?!to\b)\S+ (?:to|from|into)\b|\bcorrect (?:the|a|an|this|that|it)\b",
    re.IGNORECASE,
)
"""Repair verbs and constructions; "a recent change to `pkg.mod`" is not one (``change to``), "correct
the expression" is (the verb: ``correct`` before a determiner or ``it``)."""

SYMPTOM = re.compile(
    r"Traceback \(most recent call last\)|^\s*File \"[^\"]+\", line \d+|\b\w*(?:Error|Exception)\b"
    r"|\bassert\b.*(?:==|!=|<=|>=|<|>| is | in )|^E\s{2,}\S|\b(?:fails|failed)\b"
    r"|\bfailing\b(?!\s+(?:tests?|cases?)\b)"
    r"|\bwrong (?:result|value|output|answer)\b|\bexpected\b.*\b(?:got|but)\b|\braises?\b",
    re.IGNORECASE,
)
"""Error text: what a symptom is made of ("the failing tests" names the tests, it is no error text)."""
