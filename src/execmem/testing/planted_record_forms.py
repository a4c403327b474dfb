"""Test double: the record forms Layer B's failure attribution tells apart, written from one history
conversation (as ``suites.coding.system_input`` makes it) by fixed rules, for the planted memory.

* ``clean``: short (two lines), anchored: names the fix's file and function, quotes the changed line;
* ``polluted``: a long transcript (``min_lines``, 60): task-instruction lines ("you must", "submit"),
  shell prompts and command output, the issue, the final patch;
* ``over-general``: one sentence of advice from the bug class: no file, directory or identifier;
* ``symptom``: error text from the history (or its issue's first line), no change;
* ``fix-missing``: the four-field shape without its fix field: bug class, a root cause naming the
  file only, a lesson;
* ``misleading``: the clean form of the conversation naming another function than the one its fix
  changes (clean and anchored by the form rules, but it points the solver at the wrong code).

``INSTRUCTION_LINES`` marks which lines of a polluted record carry the instruction lexicon.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from execmem.agents.coding.sieve.extractive import bug_class
from execmem.suites.coding.gitrepo import changed_paths
from execmem.suites.coding.records import touched_functions
from execmem.suites.coding.system_input import PATCH_HEADER

PROMPT = "root@sandbox:/repo# "
INSTRUCTIONS = (
    "You are working in a shell on a repository; you must fix the issue below.",
    "You must not modify the tests; you must submit when you are done.",
    "To submit, you must run `echo EXECMEM_SUBMIT` as your last command.",
)
CONTINUE = "Please continue; you must submit with `echo EXECMEM_SUBMIT` once the fix is in."
CLOSING = "IMPORTANT: you must submit your changes now: run `echo EXECMEM_SUBMIT`."
INSTRUCTION_LINES = re.compile(r"\byou must\b|\bsubmit\b", re.IGNORECASE)
_ERROR = re.compile(r"Error|Exception|Traceback|FAILED|assert", re.IGNORECASE)
_FILLER = (
    ("ls", "README.md  setup.py  src  tests"),
    ("git status --short", "?? notes.txt"),
    ("pwd", "/repo"),
)


@dataclass(frozen=True)
class Conversation:
    """One history item as the memory received it (one ``add()``)."""

    issue: str
    steps: tuple[str, ...]
    patch: str
    line_ids: tuple[int, ...]
    timestamps: tuple[datetime, ...]

    @property
    def file(self) -> str | None:
        paths = changed_paths(self.patch) if self.patch else []
        return paths[0] if paths else None

    @property
    def function(self) -> str | None:
        names = touched_functions(self.patch) if self.patch else []
        return names[0] if names else None


def changed_lines(patch: str) -> tuple[list[str], list[str]]:
    """The removed and added code lines of a diff (stripped, non-empty)."""
    lines = patch.splitlines()
    removed = [line[1:].strip() for line in lines if line.startswith("-") and not line.startswith("---")]
    added = [line[1:].strip() for line in lines if line.startswith("+") and not line.startswith("+++")]
    return [line for line in removed if line], [line for line in added if line]


def clean(conversation: Conversation, function: str | None = None) -> str:
    file, function = conversation.file or "the changed file", function or conversation.function
    removed, added = changed_lines(conversation.patch)
    where = f"{file}, function {function}" if function else file
    change = f": `{removed[0]}` became `{added[0]}`" if removed and added else ""
    return (
        f"Fix in {where}{change}.\nLesson: when {function or 'it'} gives wrong results, look at {file} first."
    )


def misleading(conversation: Conversation, function: str) -> str:
    """``clean``'s text naming ``function`` instead of the function the fix changes."""
    return clean(conversation, function)


def _shell_lines(step: str) -> list[str]:
    out = []
    for line in step.splitlines():
        if re.match(r"^step \d+:$", line):
            out.append(CONTINUE)
        elif line.startswith("$ "):
            out.append(PROMPT + line[2:])
        elif line.startswith("-> exit "):
            out.append(f"[exit code {line[len('-> exit ') :]}]")
        else:
            out.append(line)
    return out


def polluted(conversation: Conversation, min_lines: int = 60) -> str:
    lines = [*INSTRUCTIONS, "", "<issue>", *conversation.issue.splitlines(), "</issue>"]
    for step in conversation.steps:
        lines += _shell_lines(step)
    lines += [PROMPT + "git diff", *conversation.patch.splitlines()]
    filler = 0
    while len(lines) < min_lines - 1:  # at least min_lines with the closing line
        command, output = _FILLER[filler % len(_FILLER)]
        lines += [PROMPT + command, output]
        filler += 1
    return "\n".join([*lines, CLOSING])


def over_general(conversation: Conversation) -> str:
    kind = bug_class(*changed_lines(conversation.patch))
    return (
        f"A {kind} can break a function after a recent change; compare the failing case with the "
        "expected result and correct the faulty expression."
    )


def symptom(conversation: Conversation) -> str:
    text = "\n".join([conversation.issue, *conversation.steps])
    errors = [line.strip() for line in text.splitlines() if _ERROR.search(line) and not line.startswith("$")]
    if not errors:
        errors = [next((line.strip() for line in conversation.issue.splitlines() if line.strip()), "")]
    return "Error seen in an earlier task:\n" + "\n".join(errors[:6])


def fix_missing(conversation: Conversation) -> str:
    kind = bug_class(*changed_lines(conversation.patch))
    return (
        f"Bug class: {kind}\nRoot cause: a wrong expression in {conversation.file or 'the changed file'}\n"
        "Reusable lesson: rerun the failing tests after each change."
    )


WRITERS = {
    "clean": clean,
    "polluted": polluted,
    "over-general": over_general,
    "symptom": symptom,
    "fix-missing": fix_missing,
}


def parse_patch(text: str) -> str | None:
    """The diff of a final-patch message, or None for another message."""
    header = PATCH_HEADER + "\n"
    return text[len(header) :] if text.startswith(header) else None
