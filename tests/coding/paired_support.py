"""Synthetic repositories and a scripted solver for the paired-run tests.

Two tiny packages (``alpha``, ``beta``), each with three tasks built through the
real task format: one injected bug per task in ``<pkg>/core.py``, caught by a
pytest test. Their environments get a copy of the host's pytest (see ``INSTALL``),
so nothing is downloaded. The scripted solvers are ``execmem.testing.coding_policies``'s;
``memory_oracle`` fixes these repositories' tasks when the memory names the fix's file.
"""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

import pytest as _pytest

from execmem.agents.coding.config import SolverConfig
from execmem.llm.config import ModelConfig
from execmem.runs.coding.config import CodingRunConfig
from execmem.runs.coding.run import CodingRun
from execmem.suites.coding.builder.testrun import pytest_command
from execmem.suites.coding.patches import file_diff
from execmem.suites.coding.records import RecordPolicy
from execmem.suites.coding.tasks import CodingTask, dump_tasks
from execmem.testing.coding_policies import MemoryOracle

GOOD = "def double(x):\n    return x * 2\n\n\ndef inc(x):\n    return x + 1\n\n\ndef neg(x):\n    return -x\n"
BUGS = {"double": ("x * 2", "x * 3"), "inc": ("x + 1", "x + 2"), "neg": ("return -x", "return x")}
TESTS = (
    "from {pkg}.core import double, inc, neg\n\n\n"
    "def test_double():\n    assert double(3) == 6\n\n\n"
    "def test_inc():\n    assert inc(3) == 4\n\n\n"
    "def test_neg():\n    assert neg(3) == -3\n"
)
HOST_SITE = str(Path(_pytest.__file__).resolve().parents[1])
COPY_PYTEST = f"""
import importlib.metadata as metadata, shutil, site, sys
from pathlib import Path
target = Path(site.getsitepackages()[0])
sys.path.insert(0, {HOST_SITE!r})
wanted, done = ["pytest"], set()
while wanted:  # pytest and its unconditional requirements
    dist = metadata.distribution(wanted.pop())
    done.add(dist.metadata["Name"].lower())
    for requirement in dist.requires or []:
        name = requirement.replace(" ", "").split(";")[0].split("<")[0].split(">")[0].split("=")[0]
        if ";" not in requirement and name.lower() not in done:
            wanted.append(name)
    for file in dist.files:
        (target / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(dist.locate_file(file), target / file)
"""
INSTALL = ["python -c " + shlex.quote(COPY_PYTEST)]
"""Copies the host's pytest (and what it needs) into the venv: nothing is downloaded, and the sandbox,
which shows only the venv and the system, still finds it."""


def make_repo(root: Path, pkg: str) -> Path:
    """The fixed upstream source of one package (a decoy module included)."""
    folder = root / pkg
    (folder / pkg).mkdir(parents=True)
    (folder / "tests").mkdir()
    (folder / pkg / "__init__.py").write_text("")
    (folder / pkg / "core.py").write_text(GOOD)
    (folder / pkg / "util.py").write_text("def ident(x):\n    return x\n")
    (folder / "tests" / "test_core.py").write_text(TESTS.format(pkg=pkg))
    return folder


def make_task(source: Path, pkg: str, day: int, function: str) -> CodingTask:
    good, bad = BUGS[function]
    others = [f"tests/test_core.py::test_{name}" for name in BUGS if name != function]
    return CodingTask.model_validate(
        {
            "instance_id": f"{pkg}__{function}",
            "repo": f"local/{pkg}",
            "problem_statement": f"In {pkg}, {function}(3) gives a wrong result.",
            "patch": file_diff(f"{pkg}/core.py", GOOD.replace(good, bad, 1), GOOD),
            "FAIL_TO_PASS": [f"tests/test_core.py::test_{function}"],
            "PASS_TO_PASS": others,
            "created_at": f"2024-01-0{day}T00:00:00Z",
            "version": "1.0",
            "install": INSTALL,
            "env": {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},  # the host's plugins are not the task's
            "test_cmd": pytest_command(["tests"]),
            "source": {"kind": "local", "path": str(source), "bug": "reverse-patch"},
        }
    )


def make_tasks(root: Path, pkgs: tuple[str, ...] = ("alpha", "beta")) -> Path:
    """A task file: per package, bugs in double, inc, neg on days 1, 2, 3."""
    tasks = []
    for pkg in pkgs:
        source = make_repo(root / "upstream", pkg)
        tasks += [make_task(source, pkg, day, fn) for day, fn in enumerate(BUGS, start=1)]
    path = root / "tasks" / "tasks.jsonl"
    dump_tasks(tasks, path)
    return path


def memory_oracle(tasks: list[CodingTask]) -> MemoryOracle:
    """The scripted solver for these repositories: it writes the fixed ``core.py`` when told where."""
    return MemoryOracle(tasks, GOOD)


def run_condition(
    folder: Path, tasks_file: Path, base_url: str, memory: str = "off", seeds: int = 2, **options
) -> dict:
    """Run (or resume) a coding run in-process and return its metrics."""
    model = {"model": "fake", "base_url": base_url, "backoff_base_s": 0.01, "timeout_s": 10.0}
    model |= options.pop("model_options", {})
    solver = SolverConfig(**options.pop("solver", {}))
    config = CodingRunConfig(
        model=ModelConfig(**model),
        tasks_file=tasks_file,
        memory=memory,
        seeds=seeds,
        solver=solver,
        records=RecordPolicy(**options.pop("records", {})),
        concurrency=options.pop("concurrency", 4),
        **options,
    )
    return asyncio.run(CodingRun(config, folder).run())
