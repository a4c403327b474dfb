"""Synthetic repositories with planted history for the SIEVE tests, and a runner.

``alpha`` (one file, ``alpha/core.py``) has bugs in ``double`` (three variants: a family), ``inc``
and ``neg``; ``beta`` has two ``neg`` bugs, the earlier of which stalls. With the planted solver and
the plants of ``PLANTS`` the truth is known:

| target            | fate |
|-------------------|------|
| alpha__double-1   | stage 2: no earlier task |
| alpha__inc-2      | stage 4: no uplift (its only history fixed ``double``) |
| alpha__double-3   | kept: the experience of alpha__double-1 names ``double`` in ``alpha/core.py`` |
| alpha__double-4   | stage 4: at ceiling (resolved off in every seed) |
| alpha__broken-5   | stage 1: its gold patch leaves a declared test failing |
| beta__neg-1       | stage 2: no earlier task |
| beta__neg-2       | stage 3: its one history (beta__neg-1) never completes |
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from execmem.agents.coding.config import SolverConfig
from execmem.llm.config import ModelConfig
from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.coding.sieve.pipeline import SievePipeline
from execmem.suites.coding.builder.testrun import pytest_command
from execmem.suites.coding.patches import file_diff
from execmem.suites.coding.tasks import CodingTask, dump_tasks
from execmem.testing.planted_coding_solver import Plant
from tests.coding.paired_support import GOOD, INSTALL, make_repo

BUGS = {  # task: (package, day, function, good text, bad text)
    "alpha__double-1": ("alpha", 1, "double", "x * 2", "x * 3"),
    "alpha__inc-2": ("alpha", 2, "inc", "x + 1", "x + 2"),
    "alpha__double-3": ("alpha", 3, "double", "x * 2", "x * 4"),
    "alpha__double-4": ("alpha", 4, "double", "x * 2", "x * 5"),
    "alpha__broken-5": ("alpha", 5, "neg", "return -x", "return x"),
    "beta__neg-1": ("beta", 1, "neg", "return -x", "return x"),
    "beta__neg-2": ("beta", 2, "neg", "return -x", "return x + 0"),
}
PLANTS = {
    "alpha__double-4": Plant(p_off=1.0, effect=1.0),
    "beta__neg-1": Plant(p_off=0.0, effect=1.0, stall=True),
}
EXPECTED_KEPT = ["alpha__double-3"]
EXPECTED_DROPS = {
    "alpha__broken-5": (0, "gold test run is suspect"),
    "alpha__double-1": (1, "no earlier same-repository task"),
    "beta__neg-1": (1, "no earlier same-repository task"),
    "beta__neg-2": (2, "no shortlisted history completed"),
    "alpha__inc-2": (3, "no uplift"),
    "alpha__double-4": (3, "at ceiling (off 4/4)"),
}


def make_task(instance_id: str, source: Path) -> CodingTask:
    pkg, day, function, good, bad = BUGS[instance_id]
    failing = [f"tests/test_core.py::test_{function}"]
    if instance_id == "alpha__broken-5":
        failing.append("tests/test_core.py::test_missing")  # no such test: the gold patch cannot pass it
    return CodingTask.model_validate(
        {
            "instance_id": instance_id,
            "repo": f"local/{pkg}",
            "problem_statement": f"In {pkg}, {function}(3) gives a wrong result since `{bad}` went in.",
            "patch": file_diff(f"{pkg}/core.py", GOOD.replace(good, bad, 1), GOOD),
            "FAIL_TO_PASS": failing,
            "PASS_TO_PASS": [
                f"tests/test_core.py::test_{n}" for n in ("double", "inc", "neg") if n != function
            ],
            "created_at": f"2024-01-0{day}T00:00:00Z",
            "version": "1.0",
            "install": INSTALL,
            "env": {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
            "test_cmd": pytest_command(["tests"]),
            "source": {"kind": "local", "path": str(source), "bug": "reverse-patch"},
        }
    )


def make_sieve_tasks(root: Path) -> Path:
    sources = {pkg: make_repo(root / "upstream", pkg) for pkg in ("alpha", "beta")}
    tasks = [make_task(instance_id, sources[spec[0]]) for instance_id, spec in BUGS.items()]
    path = root / "tasks" / "tasks.jsonl"
    dump_tasks(tasks, path)
    return path


def write_plants(path: Path) -> Path:
    path.write_text(
        json.dumps({k: {"p_off": p.p_off, "effect": p.effect, "stall": p.stall} for k, p in PLANTS.items()})
    )
    return path


def sieve_config(tasks_file: Path, out: Path, base_url: str, **options) -> SieveConfig:
    model = ModelConfig(model="planted", base_url=base_url, backoff_base_s=0.01, timeout_s=10.0)
    solver = SolverConfig(max_steps=options.pop("max_steps", 4))
    return SieveConfig(tasks_file=tasks_file, out=out, model=model, solver=solver, **options)


def run_sieve(config: SieveConfig, progress=lambda message: None) -> dict:
    return asyncio.run(SievePipeline(config, progress).run())
