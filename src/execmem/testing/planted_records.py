"""Records of planted forms, for scripted Layer B studies (a test double: it reads the target's gold
location, as the planted solver does). Each form is built to trip exactly one attribution rule
(docs/attribution.md) and to carry a known cause:

| form | what it is | planted cause when the pair fails |
|---|---|---|
| ``clean`` | a frozen-style four-line experience naming the fix's file and function | none |
| ``polluted`` | a chat transcript: per history conversation the solver's instructions, the issue, the fix | ``instruction_pollution`` |
| ``noisy`` | a compressed shell trajectory: prompts, exit codes, command and test output | ``tool_shell_noise`` |
| ``symptom`` | the failing test's error text, no change | ``fix_replaced_by_symptom`` |
| ``no_fix`` | facts about the user and the repository, no change | ``fix_missing`` |
| ``general`` | a fix in words, naming no file, directory or identifier | ``over_generalised_fix`` |
| ``wrong_function`` | a clean record naming the fix's file but another function | ``use_failure`` |
| ``rank_miss`` | a clean record of another file and function; the frozen history ranked second | ``ranking_miss`` |
"""

from __future__ import annotations

from execmem.agents.coding.prompts import SYSTEM
from execmem.suites.coding.tasks import CodingTask
from execmem.testing.planted_coding_solver import fix_location

FORMS = ("clean", "polluted", "noisy", "symptom", "no_fix", "general", "wrong_function", "rank_miss")
CAUSES = {
    "clean": "none", "polluted": "instruction_pollution", "noisy": "tool_shell_noise",
    "symptom": "fix_replaced_by_symptom", "no_fix": "fix_missing", "general": "over_generalised_fix",
    "wrong_function": "use_failure", "rank_miss": "ranking_miss",
}  # fmt: skip


def _where(task: CodingTask) -> tuple[str, str]:
    path, functions = fix_location(task)
    return path, (functions or ["main"])[-1]


def experience(path: str, function: str) -> str:
    return "\n".join([
        "Bug class: wrong constant",
        f"Root cause: `{function}` in {path} used the wrong value",
        "Fix pattern: restore the original value in the changed line",
        f"Reusable lesson: look at `{function}` in {path} first",
    ])  # fmt: skip


def clean(task: CodingTask) -> str:
    return experience(*_where(task))


def polluted(task: CodingTask, conversations: int = 4) -> str:
    """What a transcript memory keeps of the history conversations: instructions and all."""
    path, function = _where(task)
    turn = [
        *(f"system: {line}" for line in SYSTEM.splitlines()),
        "user: Fix this issue:",
        "user: <issue>",
        f"user: the tests of {function} fail after a recent edit.",
        "user: Please fix the library code; the tests themselves must not be changed.",
        "user: </issue>",
        f"assistant: I will look at {path} first.",
        f"assistant: I found the bug in {function}: the constant was wrong, so I fixed it in {path}.",
        "assistant: The tests pass now, so I will submit my changes.",
        "assistant: You should always run the tests before you submit.",
        "assistant: Notes for next time: keep the change small and readable, and mention the file.",
    ]
    return "\n".join(line for _ in range(conversations) for line in turn)


def noisy(task: CodingTask, steps: int = 6) -> str:
    """A compressed trajectory of the history task, as an episodic memory stores it."""
    path, function = _where(task)
    lines = []
    for n in range(steps):
        lines += [f"step {n}:", f"$ grep -n 'def {function}' {path}", "-> exit 0", f"  {40 + n}:def {function}(*args):",
                  "$ python -m pytest -q tests", "-> exit 1", "  F.....................................",
                  f"  FAILED tests/test_core.py::test_case_{n} - assert 3 == 2", "  1 failed, 37 passed in 0.41s"]  # fmt: skip
    lines += [f"fixed the constant in {function} ({path})", "$ echo EXECMEM_SUBMIT"]
    return "\n".join(lines)


def symptom(task: CodingTask) -> str:
    _, function = _where(task)
    return "\n".join([
        f"test_{function}_case fails with AssertionError: assert [(1, 1)] == [(1, 2)]",
        "E   AssertionError: the result is 3, expected 2 but got 3",
    ])  # fmt: skip


def no_fix(task: CodingTask) -> str:
    project = task.repo.rsplit("/", 1)[-1]
    return "\n".join([
        f"The user maintains the {project} project.",
        "The user runs the whole test suite before every commit.",
        "The user prefers small, readable functions.",
    ])  # fmt: skip


def general(task: CodingTask) -> str:
    return "\n".join([
        "The user fixed an earlier bug by restoring the right value of a boundary.",
        "Lesson: small numeric slips are common; read the changed line carefully.",
    ])  # fmt: skip


def wrong_function(task: CodingTask) -> str:
    path, function = _where(task)
    return experience(path, f"{function}_helper")


def other_record(task: CodingTask, n: int = 0) -> str:
    """A clean record of another file and function (the rank-miss record, and dose fillers)."""
    _, function = _where(task)
    return experience(f"docs/notes_{n}.md", f"unrelated_{n}_{function.strip('_')}")


def record(form: str, task: CodingTask) -> str:
    """The injected record of ``form`` for the target."""
    if form == "rank_miss":
        return other_record(task)
    return {"clean": clean, "polluted": polluted, "noisy": noisy, "symptom": symptom, "no_fix": no_fix,
            "general": general, "wrong_function": wrong_function}[form](task)  # fmt: skip
