"""Coding run folders written by a planted solver without running anything (a test double): the
manifest, memory.json, episodes.jsonl and one trajectory per episode, in the formats ``execmem
coding run`` writes, each outcome ``PlantedSolver.resolves`` on the slot's text."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from execmem.agents.coding.prompts import PROMPT_VERSION, SUBMIT_COMMAND, SYSTEM, first_user_message
from execmem.core.files import write_json_atomic
from execmem.core.hashing import file_sha256
from execmem.core.text import slug
from execmem.core.tokens import estimate_tokens
from execmem.suites.coding.tasks import CodingTask
from execmem.testing.planted_coding_solver import PlantedSolver, fix_location

SYNTHETIC = "planted study: written by execmem.testing.planted_runs, no episode was run"


def manifest(solver: str, tasks_file: Path, block: dict[str, Any], tasks: list[CodingTask], seeds: int) -> dict:
    return {
        "manifest_version": 1, "suite": "coding", "synthetic": SYNTHETIC,
        "model": {"model": solver, "temperature": 0.0, "seed": "the episode's seed"},
        "solver": {"kind": "execmem-bash", "prompt_version": PROMPT_VERSION, "budgets": {"max_steps": 4}},
        "tools": [{"name": "bash"}], "sandbox": {"kind": "none (planted)"},
        "evaluation": {"resolved": "the planted solver's draw"},
        "tasks": {"file_sha256": file_sha256(tasks_file), "only": [], "limit": None,
                  "order": [t.instance_id for t in tasks], "frozen_file_sha256": "planted"},
        "seeds": list(range(seeds)), "memory": block,
        "invocation": {"tasks_file": str(tasks_file), "model": {"model": solver}},
    }  # fmt: skip


def write_run(
    folder: Path,
    planted: PlantedSolver,
    solver: str,
    tasks_file: Path,
    block: dict[str, Any],
    memory: dict[str, dict[str, Any]],
    tasks: list[CodingTask],
    seeds: int,
) -> Path:
    (folder / "trajectories").mkdir(parents=True, exist_ok=True)
    write_json_atomic(folder / "manifest.json", manifest(solver, tasks_file, block, tasks, seeds))
    write_json_atomic(folder / "memory.json", memory)
    with open(folder / "episodes.jsonl", "w", encoding="utf-8") as episodes:
        for task in tasks:
            text = memory[task.instance_id].get("text")
            for seed in range(seeds):
                resolved = planted.resolves(task, text, seed)
                identifier = f"{task.instance_id}@{seed}"
                episodes.write(json.dumps(episode(identifier, task, text, seed, resolved, block)) + "\n")
                _trajectory(folder, identifier, task, text, resolved)
    return folder


def episode(identifier: str, task: CodingTask, text: str | None, seed: int, resolved: bool, block: dict) -> dict:
    prompt = estimate_tokens(SYSTEM + first_user_message(task.problem_statement, text))
    return {
        "id": identifier, "instance_id": task.instance_id, "repo": task.repo, "seed": seed,
        "memory": block["condition"], "memory_chars": len(text or ""), "memory_sources": [],
        "resolved": resolved, "evaluation_suspect": False, "suspect_reasons": [], "end_reason": "submitted",
        "steps": 3, "commands": 3, "input_tokens": 3 * prompt + 120, "output_tokens": 90,
        "model_errors": {}, "agent_s": 0.0, "model_patch": "", "outcomes": {},
    }  # fmt: skip


def steps(task: CodingTask, resolved: bool) -> list[dict[str, Any]]:
    """The planted solver's three steps: look at the fix's function, apply a patch, submit."""
    path, functions = fix_location(task)
    look = f"grep -n {shlex.quote('def ' + (functions or [''])[-1])} {shlex.quote(path)}"
    patch = "git apply gold.patch" if resolved else "git apply near-miss.patch"
    commands = [(look, f"1:def {(functions or [''])[-1]}(...):"), (patch, ""), (SUBMIT_COMMAND, "")]
    return [
        {"step": n, "assistant": {"role": "assistant", "content": ""},
         "tool_results": [{"command": c, "exit_code": 0, "timed_out": False, "output": out,
                           "submitted": c == SUBMIT_COMMAND}]}
        for n, (c, out) in enumerate(commands)
    ]  # fmt: skip


def _trajectory(folder: Path, identifier: str, task: CodingTask, text: str | None, resolved: bool) -> None:
    opening = [{"role": "system", "content": SYSTEM},
               {"role": "user", "content": first_user_message(task.problem_statement, text)}]  # fmt: skip
    lines = [{"id": identifier, "messages": opening}, *steps(task, resolved),
             {"end_reason": "submitted", "evaluation": {"resolved": resolved}}]  # fmt: skip
    path = folder / "trajectories" / f"{slug(identifier, keep='@')}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
