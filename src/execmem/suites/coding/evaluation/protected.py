"""Which files of an agent's diff are left out when it is scored, and why.

As in SWE-bench, tests are the task's, not the agent's: edits to the declared
test files and to the files of ``test_patch`` are dropped (those files are then
restored from the base and ``test_patch``). Beyond that, anything that would
change how the tests run or are reported is dropped too:

- test files in general (``test_*.py``, ``*_test.py``, anything under ``tests/`` or ``test/``);
- test configuration: every ``conftest.py``, ``pytest.ini``/``.pytest.ini``/``pytest.toml``,
  and ``tox.ini``, ``setup.cfg``, ``pyproject.toml`` (they hold pytest sections such as
  ``[tool:pytest]``, ``[pytest]`` and ``[tool.pytest.ini_options]``; the whole file is dropped);
- start-up hooks (``sitecustomize.py``, ``usercustomize.py``, ``*.pth``) and plugin metadata
  (``entry_points.txt``);
- anything that would shadow the test runner (``pytest``, ``_pytest``, ``pluggy``, ``py`` modules) or one
  of the environment's pytest plugins.

Dropping only ever removes agent changes: a fix in library code is never touched.
"""

from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import PurePosixPath

from execmem.suites.coding.gitrepo import changed_paths
from execmem.suites.coding.tasks import CodingTask

TEST_CONFIG = {"conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini"}
TEST_CONFIG |= {"setup.cfg", "pyproject.toml"}
STARTUP_HOOKS = {"sitecustomize.py", "usercustomize.py", "entry_points.txt"}
RUNNER_MODULES = {"pytest", "_pytest", "pluggy", "py"}
TEST_FOLDERS = {"tests", "test"}
TEST_FILES = ("test_*.py", "*_test.py")


def protected_test_files(task: CodingTask) -> list[str]:
    """The task's own test files: those of FAIL_TO_PASS / PASS_TO_PASS and of ``test_patch``."""
    files = {test_id.split("::", 1)[0] for test_id in task.test_ids()}
    files.update(changed_paths(task.test_patch))
    return sorted(files)


def dropped_paths(task: CodingTask, diff: str, plugins: list[str] | None = None) -> list[str]:
    """The files of ``diff`` that are not applied when scoring (in diff order); ``plugins`` are the
    environment's pytest plugin modules, which the diff must not shadow either."""
    own = set(protected_test_files(task))
    runner = RUNNER_MODULES | {module.split(".")[0] for module in plugins or []}
    return [path for path in changed_paths(diff) if path in own or why_dropped(path, runner) is not None]


def why_dropped(path: str, runner: set[str] = RUNNER_MODULES) -> str | None:
    """Why an agent change to ``path`` is not scored, or None when it is."""
    pure = PurePosixPath(path)
    name = pure.name
    if name in TEST_CONFIG:
        return "test configuration"
    if name in STARTUP_HOOKS or name.endswith(".pth"):
        return "start-up hook"
    if any(fnmatch(name, pattern) for pattern in TEST_FILES) or TEST_FOLDERS & set(pure.parts[:-1]):
        return "test file"
    modules = {*pure.parts[:-1], pure.stem if name.endswith(".py") else name}
    if modules & runner:
        return "shadows the test runner"
    return None


def scored_diff(diff: str, dropped: list[str]) -> str:
    """``diff`` without the sections of the ``dropped`` files."""
    sections: list[str] = []
    for section in re.split(r"(?m)^(?=diff --git )", diff):
        if section and not set(changed_paths(section)) & set(dropped):
            sections.append(section)
    return "".join(sections)
