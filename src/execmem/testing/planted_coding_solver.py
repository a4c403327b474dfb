"""A scripted coding solver with planted memory effects: known truth for SIEVE and Layer A, offline.

A fake-server policy (a test double: it reads the task file, gold patches included) that drives
the real solver loop, bash tool and sandbox. Each episode takes three steps:

1. ``grep -n 'def FUNCTION' FILE``: it looks at the function the task's fix changes;
2. with probability ``p`` it applies the task's gold patch (``git apply``); otherwise it writes a
   near miss: a comment line naming the function, placed where the fix belongs (the same hunk,
   nothing else changed), so the task stays unresolved but the patch names the file and function;
3. ``echo EXECMEM_SUBMIT``.

The probability (documented in docs/sieve.md)::

    p = clip(p_off + effect * named - length_cost * chars / 1000
             - instruction_cost * flagged - memory_cost * present, 0, 1)

``named`` is 1 when the memory slot holds the fix's file path *and* the name of a function it
changes (a whole word), else 0; ``chars`` is the memory text's length (0 without memory): the
sensitivity to record volume; ``flagged`` the memory's lines that hold a term of the attribution's
instruction lexicon (docs/attribution.md): the sensitivity to instructions; ``present`` 1 when
there is any memory text: a solver that any note distracts (a plant's ``memory_cost``). The
episode resolves when ``u < p``, with ``u = sha256("SALT:INSTANCE:SEED")`` read as a number in
[0, 1): the same draw for every memory condition of an (instance, seed), so conditions compare as
common random numbers. Per task: ``p_off`` is 1.0 (at ceiling) when ``sha256("ceiling:SALT:ID")``
falls below ``ceiling``, else ``base``; ``effect`` is the policy's; a plant file
(``{"ID": {"p_off": .., "effect": .., "memory_cost": .., "stall": true}}``) overrides any task. A
stalled task never submits (it lists the folder until the step budget ends): its trajectory is not
completed.

Serve it with ``python -m execmem.testing.fake_server --policy planted [--arg tasks=FILE]
[--arg plant=FILE] [--arg ceiling=0.25] [--arg base=0] [--arg effect=1] [--arg length_cost=0.05]
[--arg instruction_cost=0] [--arg salt=0]``. Replies that are not solver turns (a SIEVE judge or
distiller prompt) are refused with a 400: use the extractive distiller and no judge with this solver.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from execmem.agents.coding.prompts import SUBMIT_COMMAND, memory_slot_text
from execmem.suites.coding.attribution.lexicons import INSTRUCTION
from execmem.suites.coding.gitrepo import changed_paths
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.records import touched_functions
from execmem.suites.coding.tasks import CodingTask, load_tasks
from execmem.testing.coding_policies import bash, issue_of, steps_taken
from execmem.testing.fake_policies import Fault, Reply, error_body

NOTE = "# execmem-scripted: {function} reviewed here, left unchanged"
_SOURCE_PATH = re.compile(r"[\w./-]*\.pyi?\b")


@dataclass(frozen=True)
class Plant:
    """A task's planted truth."""

    p_off: float
    effect: float
    stall: bool = False
    memory_cost: float = 0.0


def draw(*parts: object) -> float:
    """A number in [0, 1) fixed by ``parts`` (sha256 of their ``:``-joined text)."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()
    return int(digest[:13], 16) / 16**13


def fix_location(task: CodingTask) -> tuple[str, list[str]]:
    """The file the gold patch changes first and the function it changes: the innermost name of the
    builder's ``meta["function"]`` when the task has one, else the patch's enclosing definitions."""
    function = str(task.meta.get("function") or "").rsplit(".", 1)[-1]
    return changed_paths(task.patch)[0], [function] if function else touched_functions(task.patch)


def names_fix(task: CodingTask, memory: str) -> bool:
    """The memory holds the fix's file path and a function it changes (as a whole word, outside file
    paths: ``__init__`` in ``pkg/__init__.py`` does not count)."""
    path, functions = fix_location(task)
    words = _SOURCE_PATH.sub(" ", memory)
    return path in memory and any(re.search(rf"(?<!\w){re.escape(f)}(?!\w)", words) for f in functions)


class PlantedSolver:
    """The policy; also answers, for tests, what it would do (``probability``, ``resolves``)."""

    def __init__(
        self,
        tasks: Sequence[CodingTask],
        plants: dict[str, Plant] | None = None,
        *,
        ceiling: float = 0.25,
        base: float = 0.0,
        effect: float = 1.0,
        length_cost: float = 0.05,
        instruction_cost: float = 0.0,
        salt: str = "0",
    ) -> None:
        self.by_issue = {task.problem_statement: task for task in tasks}
        self.length_cost, self.instruction_cost, self.salt = length_cost, instruction_cost, salt
        self.plants = {
            task.instance_id: (plants or {}).get(task.instance_id)
            or Plant(1.0 if draw("ceiling", salt, task.instance_id) < ceiling else base, effect)
            for task in tasks
        }

    def describe(self) -> dict:
        return {
            "kind": "planted-coding-solver",
            "length_cost": self.length_cost,
            "instruction_cost": self.instruction_cost,
            "salt": self.salt,
            "at_ceiling": sum(p.p_off >= 1 for p in self.plants.values()),
            "tasks": len(self.plants),
        }

    def probability(self, task: CodingTask, memory: str | None) -> float:
        plant, text = self.plants[task.instance_id], memory or ""
        named = 1.0 if text and names_fix(task, text) else 0.0
        flagged = sum(bool(INSTRUCTION.search(line)) for line in text.splitlines())
        p = plant.p_off + plant.effect * named - self.length_cost * len(text) / 1000
        p -= self.instruction_cost * flagged + (plant.memory_cost if text else 0.0)
        return min(1.0, max(0.0, p))

    def resolves(self, task: CodingTask, memory: str | None, seed: int) -> bool:
        return draw(self.salt, task.instance_id, seed) < self.probability(task, memory)

    def __call__(self, body: dict) -> Reply | Fault:
        first_user = next((m.get("content") or "" for m in body["messages"] if m["role"] == "user"), "")
        task = self.by_issue.get(issue_of(first_user)) if "<issue>\n" in first_user else None
        if task is None:
            return Fault(400, body=error_body(400, "the planted solver answers solver turns only"))
        step, memory = steps_taken(body), memory_slot_text(first_user)
        if self.plants[task.instance_id].stall:
            return bash("ls")
        path, functions = fix_location(task)
        if step == 0:
            return bash(f"grep -n {shlex.quote('def ' + (functions or [''])[-1])} {shlex.quote(path)}")
        if step == 1:
            seed = int(body.get("seed") or 0)
            patch = task.patch if self.resolves(task, memory, seed) else near_miss(task.patch, functions)
            return bash(f"printf '%s' {shlex.quote(patch)} | git apply -")
        return bash(SUBMIT_COMMAND)


def near_miss(gold: str, functions: list[str]) -> str:
    """A patch that adds one comment line where each file's first gold hunk would change code."""
    note = NOTE.format(function=(functions or ["the code"])[-1])
    sections = re.split(r"(?m)^(?=diff --git )", gold)
    return "".join(_annotated(section, note) for section in sections if section.strip())


def _annotated(section: str, note: str) -> str:
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("@@"))
    old_start = re.match(r"@@ -(\d+)", lines[start]).group(1)
    body, inserted = [], False
    for line in lines[start + 1 :]:
        if line.startswith("@@"):
            break
        tag, text = line[:1], line[1:]
        if tag in "+-" and not inserted:
            indent = text[: len(text) - len(text.lstrip())]
            body.append(f"+{indent}{note}")
            inserted = True
        if tag in " -":
            body.append(" " + text)
    old = len(body) - 1
    header = [*lines[:start], f"@@ -{old_start},{old} +{old_start},{old + 1} @@"]
    return "\n".join([*header, *body]) + "\n"


def plant_of(raw: dict) -> Plant:
    """One task's plant from a plant file's object."""
    cost = float(raw.get("memory_cost", 0))
    return Plant(float(raw["p_off"]), float(raw["effect"]), bool(raw.get("stall")), cost)


def planted(
    tasks: str = "builtin",
    plant: str | None = None,
    ceiling: str = "0.25",
    base: str = "0.0",
    effect: str = "1.0",
    length_cost: str = "0.05",
    instruction_cost: str = "0.0",
    salt: str = "0",
) -> PlantedSolver:
    """The factory ``--policy planted`` calls (every argument a string, as ``--arg`` gives it)."""
    path = builtin_tasks_path() if tasks == "builtin" else Path(tasks)
    plants = None
    if plant:
        raw = json.loads(Path(plant).read_text(encoding="utf-8"))
        plants = {key: plant_of(v) for key, v in raw.items()}
    return PlantedSolver(
        load_tasks(path),
        plants,
        ceiling=float(ceiling),
        base=float(base),
        effect=float(effect),
        length_cost=float(length_cost),
        instruction_cost=float(instruction_cost),
        salt=salt,
    )
