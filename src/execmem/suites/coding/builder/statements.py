"""Problem statements written from the failing behaviour, never from the fix.

A statement names the affected module, the failing tests and pytest's short
failure messages (assertion or exception text from the JUnit report; no
tracebacks, so no source lines). Any message line that contains a changed line
of the patch is dropped, so the statement cannot give the fix away.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from execmem.suites.coding.evaluation.junit import CaseResult

MAX_LISTED = 8
MAX_MESSAGE = 240
_MIN_LEAK = 6
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_CUT_ADDRESS = re.compile(r"\.\.\.[0-9a-fA-F]{6,}\b")  # the tail of an address pytest shortened
_PYTEST_TMP = re.compile(r"[^\s'\"]*/pytest-of-[^/\s'\"]+/pytest-\d+/")  # names the user the tests ran as
PYTEST_TMP = "<pytest-tmp>/"

_OPENINGS = (
    "After a recent change to `{module}`, part of the `{package}` test suite fails.",
    "Some `{package}` tests started failing; the failures trace back to `{module}`.",
    "A regression in `{module}` makes {count} test(s) of `{package}` fail.",
    "Users report wrong results from `{module}` ({package}); the test suite shows it too.",
)
_CLOSING = (
    "Please fix the library code so that these tests pass again without breaking the other tests. "
    "The tests themselves are correct and must not be changed."
)


def patch_lines(patch: str) -> list[str]:
    """The code of every added or removed line of a unified diff, stripped."""
    lines = []
    for line in patch.splitlines():
        if line[:1] in "+-" and not line.startswith(("+++", "---")):
            code = line[1:].strip()
            if len(code) >= _MIN_LEAK:
                lines.append(code)
    return lines


def clean_message(message: str, forbidden: Sequence[str], folder: str = "") -> str:
    """The message without lines that quote the patch, squeezed to one short line.

    Memory addresses, the folder the tests ran in and pytest's temporary folder (which names the user
    the sandbox ran the tests as) are blanked, so the same bug always reads the same.
    """
    kept = [line.strip() for line in message.splitlines() if not any(code in line for code in forbidden)]
    text = " ".join(line for line in kept if line)
    if folder:
        text = text.replace(folder.rstrip("/") + "/", "")
    text = _CUT_ADDRESS.sub("...", _ADDRESS.sub("0x...", _PYTEST_TMP.sub(PYTEST_TMP, text)))
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def module_name(path: str) -> str:
    """``src/pkg/mod.py`` -> ``pkg.mod``."""
    parts = path.removesuffix(".py").split("/")
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def write_statement(
    package: str,
    module_path: str,
    failures: Sequence[CaseResult],
    patch: str,
    rng: random.Random,
    folder: str = "",
) -> str:
    """A short issue text: what fails, where, and with which messages (``folder``: where tests ran)."""
    forbidden = patch_lines(patch)
    module = module_name(module_path)
    opening = rng.choice(_OPENINGS).format(module=module, package=package, count=len(failures))
    lines = [opening, "", "Failing tests:"]
    for case in failures[:MAX_LISTED]:
        message = clean_message(case.message, forbidden, folder)
        lines.append(f"- `{case.test_id}`" + (f": {message}" if message else f" ({case.outcome})"))
    if len(failures) > MAX_LISTED:
        lines.append(f"- ... and {len(failures) - MAX_LISTED} more")
    lines += ["", _CLOSING]
    return "\n".join(lines)
