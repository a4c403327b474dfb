"""The extractive distiller: an experience built from the history's own patch, with no model.

Rule ``sieve-extractive-v1``, deterministic, every name taken from the history's final patch (so
every claim is anchored by construction):

* *where*: the functions the patch changes (their enclosing ``def``/``class``) and its files; the
  lead is the function (else file) whose name the target's problem statement mentions most, ties
  to the first;
* *bug class*: from the tokens the changed lines differ in: only comparison operators -> "wrong
  comparison operator", arithmetic -> "wrong arithmetic operator", numbers -> "off-by-one or wrong
  constant", ``True``/``False``/``and``/``or``/``not`` -> "inverted boolean logic", the same tokens
  reordered -> "swapped arguments or operands", lines only added -> "missing code", only removed ->
  "extra code", only comments -> "no code change"; anything else -> "wrong expression";
* *root cause*, *fix pattern*: the first changed line before and after, quoted (cut to 120
  characters), and how many other lines changed;
* *reusable lesson*: where to look first and what to check for, and whether the earlier fix
  resolved its issue.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from execmem.agents.coding.sieve.distiller import DistillError
from execmem.suites.coding.experience import Experience
from execmem.suites.coding.gitrepo import changed_paths
from execmem.suites.coding.history import HistoryItem, TargetView
from execmem.suites.coding.records import touched_functions

EXTRACTIVE_VERSION = "sieve-extractive-v1"
_SPAN_CHARS = 120
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d+)?|==|!=|<=|>=|//|\*\*|[-+*/%<>]|\S")
_COMPARISON = {"<", ">", "<=", ">=", "==", "!=", "is", "in"}
_ARITHMETIC = {"+", "-", "*", "/", "//", "%", "**"}
_BOOLEAN = {"True", "False", "and", "or", "not"}
_OPERATOR_CLASSES = (
    (_COMPARISON, "wrong comparison operator"),
    (_ARITHMETIC, "wrong arithmetic operator"),
    (_BOOLEAN, "inverted boolean logic"),
)


def _code(patch: str, sign: str) -> list[str]:
    lines = [
        line[1:].strip()
        for line in patch.splitlines()
        if line.startswith(sign) and not line.startswith(sign * 3)
    ]
    return [line for line in lines if line]


def _is_comment(line: str) -> bool:
    return line.startswith("#")


def bug_class(removed: list[str], added: list[str]) -> str:
    """The kind of change, from the tokens the changed lines differ in."""
    removed_code = [line for line in removed if not _is_comment(line)]
    added_code = [line for line in added if not _is_comment(line)]
    if not removed_code and not added_code:
        return "no code change"
    if not removed_code:
        return "missing code"
    if not added_code:
        return "extra code"
    before = Counter(t for line in removed_code for t in _TOKEN.findall(line))
    after = Counter(t for line in added_code for t in _TOKEN.findall(line))
    if before == after:
        return "swapped arguments or operands"
    changed = set(before - after) | set(after - before)
    for kinds, name in _OPERATOR_CLASSES:
        if changed <= kinds:
            return name
    if all(re.fullmatch(r"\d+(?:\.\d+)?", t) for t in changed):
        return "off-by-one or wrong constant"
    return "wrong expression"


def _mentions(statement: str, name: str) -> int:
    return len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", statement))


def lead_location(history: HistoryItem, target: TargetView) -> str:
    """Where the lesson points: ```function`` in FILE`` (or FILE), the target's mention first."""
    files = changed_paths(history.model_patch)
    functions = touched_functions(history.model_patch)
    file = max(files, key=lambda f: _mentions(target.problem_statement, f))
    if not functions:
        return file
    function = max(functions, key=lambda f: _mentions(target.problem_statement, f))
    return f"`{function}` in {file}"


def _span(lines: list[str]) -> str | None:
    usable = [line for line in lines if "`" not in line and not _is_comment(line)]
    return f"`{usable[0][:_SPAN_CHARS]}`" if usable else None


def _more(lines: list[str]) -> str:
    others = len([line for line in lines if not _is_comment(line)]) - 1
    return f" ({others} more lines changed)" if others > 0 else ""


def _cause_and_fix(removed: list[str], added: list[str], where: str, kind: str) -> tuple[str, str]:
    before, after = _span(removed), _span(added)
    if kind == "no code change":
        return f"not found: the earlier attempt looked at {where} but changed no code", "none"
    if before and after:
        return f"{before} in {where} was wrong", f"replace {before} with {after}{_more(added)}"
    if after:
        return f"{where} lacked {after}", f"add {after}{_more(added)}"
    if before:
        return f"{before} in {where} should not be there", f"remove {before}{_more(removed)}"
    return f"a {kind} in {where}", f"change the code in {where}"


class ExtractiveDistiller:
    """Experiences from the history's patch alone; needs no model."""

    name = "extractive"

    def describe(self) -> dict[str, Any]:
        return {"kind": "extractive", "version": EXTRACTIVE_VERSION, "model": None}

    async def distill(self, target: TargetView, history: HistoryItem) -> Experience:
        if not changed_paths(history.model_patch):
            raise DistillError("the history's final patch changes no file")
        removed, added = _code(history.model_patch, "-"), _code(history.model_patch, "+")
        kind = bug_class(removed, added)
        where = lead_location(history, target)
        cause, fix = _cause_and_fix(removed, added, where, kind)
        outcome = "resolved its issue" if history.resolved else "did not resolve its issue"
        lesson = f"look at {where} first and check it for a {kind}; the earlier change there {outcome}"
        return Experience(bug_class=kind, root_cause=cause, fix_pattern=fix, reusable_lesson=lesson)
