"""pytest JUnit XML reports: per-test outcomes keyed by pytest node id, and the resolved check.

pytest builds a testcase's ``classname`` from its node id (the file path with
``/`` turned into ``.`` and ``.py`` dropped, then the class chain) and its
``name`` from the last part (with any ``[params]``). With ``junit_family=xunit1``
the ``file`` attribute gives the path, so the split between module and classes
is exact; without it, the split is made against the repository folder when
given, else by the CamelCase convention for class names.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from execmem.suites.coding.tasks import CodingTask

Outcome = Literal["passed", "failed", "error", "skipped"]
_SEVERITY = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


class ReportError(ValueError):
    """A JUnit report that cannot be read."""


@dataclass(frozen=True)
class CaseResult:
    """One testcase: its node id, outcome and the short message pytest recorded (no traceback)."""

    test_id: str
    outcome: Outcome
    message: str = ""


def read_cases(source: str | Path, root: Path | None = None) -> list[CaseResult]:
    """Every testcase of a report given as XML text or a file path."""
    try:
        tree = ET.parse(source) if isinstance(source, Path) else ET.ElementTree(ET.fromstring(source))
    except (ET.ParseError, OSError) as exc:
        where = f" {source}" if isinstance(source, Path) else ""
        raise ReportError(f"unreadable JUnit report{where}: {exc}") from None
    return [_case(element, root) for element in tree.getroot().iter("testcase")]


def parse_junit(source: str | Path, root: Path | None = None) -> dict[str, Outcome]:
    """``{test_id: outcome}``; a test reported twice keeps its worst outcome."""
    return outcomes_of(read_cases(source, root))


def outcomes_of(cases: list[CaseResult]) -> dict[str, Outcome]:
    outcomes: dict[str, Outcome] = {}
    for case in cases:
        previous = outcomes.get(case.test_id)
        if previous is None or _SEVERITY[case.outcome] > _SEVERITY[previous]:
            outcomes[case.test_id] = case.outcome
    return outcomes


def resolved(task: CodingTask, outcomes: dict[str, str]) -> bool:
    """Every FAIL_TO_PASS test passes and every PASS_TO_PASS test still passes (missing = not passing)."""
    return all(outcomes.get(test_id) == "passed" for test_id in task.test_ids())


def _case(element: ET.Element, root: Path | None) -> CaseResult:
    test_id = node_id(element.get("classname", ""), element.get("name", ""), element.get("file"), root=root)
    outcome, message = _outcome(element)
    return CaseResult(test_id, outcome, message)


def _outcome(element: ET.Element) -> tuple[Outcome, str]:
    for tag, outcome in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
        child = element.find(tag)
        if child is not None:
            return outcome, child.get("message", "")
    return "passed", ""


def node_id(classname: str, name: str, file: str | None = None, root: Path | None = None) -> str:
    """The pytest node id of a testcase (``path.py::Class::test[param]``)."""
    if not classname:  # a collection error: ``name`` is the dotted module
        return file or _module_path(name.split("."))
    parts = classname.split(".")
    module_parts = _module_parts(parts, file, root)
    path = file if file and _dotted(file) == module_parts else _module_path(module_parts)
    return "::".join([path, *parts[len(module_parts) :], name])


def _module_parts(parts: list[str], file: str | None, root: Path | None) -> list[str]:
    if file:
        dotted = _dotted(file)
        if parts[: len(dotted)] == dotted:
            return dotted
    if root is not None:
        for end in range(len(parts), 0, -1):
            if (root / Path(*parts[:end])).with_suffix(".py").is_file():
                return parts[:end]
    for index, part in enumerate(parts):
        if index and part[:1].isupper():
            return parts[:index]
    return parts


def _dotted(file: str) -> list[str]:
    stem = file[:-3] if file.endswith(".py") else file
    return stem.replace("\\", "/").split("/")


def _module_path(parts: list[str]) -> str:
    return "/".join(parts) + ".py"
