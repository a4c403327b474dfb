"""Running exactly a task's declared tests: a one-off pytest plugin and the variables that load it.

The test command of a task names test files; at evaluation a plugin, written
fresh for each run under an unguessable module name in a folder the sandbox
sees read-only, deselects every collected test that is not in FAIL_TO_PASS or
PASS_TO_PASS. An honest report therefore names exactly the declared tests,
which is what the consistency check (``integrity``) holds it to. Plugin
autoload is disabled, so no plugin comes from files the agent could have added;
the plugins installed in the task environment (ours) are loaded by name.

The plugin also adds one *control* test of its own, under an unguessable name,
that always fails. The agent's library code runs inside the test process and
could rewrite outcomes there (patching pytest's report objects, the report file,
the exit code); a rewrite that makes failing tests pass makes the control pass
too, which no honest run can show (``integrity.control_problems``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

PLUGIN_SOURCE = '''"""execmem evaluation: keep only the declared tests (written for one test run)."""

from pathlib import Path

import pytest

DECLARED = frozenset({declared!r})
CONTROL = {control!r}


def control():
    raise AssertionError("this test must fail")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    dropped = [item for item in items if item.nodeid not in DECLARED]
    if dropped:
        items[:] = [item for item in items if item.nodeid in DECLARED]
        config.hook.pytest_deselected(items=dropped)
    items.append(_control_item(session))


def _control_item(session):
    try:
        module = pytest.Module.from_parent(session, path=Path(__file__))
    except TypeError:  # pytest < 7
        module = pytest.Module.from_parent(session, fspath=__import__("py").path.local(__file__))
    return pytest.Function.from_parent(module, name=CONTROL, callobj=control)
'''


@dataclass(frozen=True)
class Selection:
    """The plugin's folder (bind it read-only), its module name, the name of its control test (which
    must fail) and the environment's own plugins."""

    folder: Path
    module: str
    plugins: tuple[str, ...] = ()
    control: str = ""

    def variables(self, base: dict[str, str]) -> dict[str, str]:
        """``base`` with the plugin on the path, it and the environment's plugins loaded, autoload off."""
        values = dict(base)
        path = values.get("PYTHONPATH")
        values["PYTHONPATH"] = f"{path}:{self.folder}" if path else str(self.folder)
        loads = " ".join(f"-p {module}" for module in (*self.plugins, self.module))
        options = values.get("PYTEST_ADDOPTS")
        values["PYTEST_ADDOPTS"] = f"{options} {loads}" if options else loads
        values["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        return values


def write_selection(folder: Path, test_ids: list[str], plugins: list[str] | None = None) -> Selection:
    """Write the plugin keeping ``test_ids`` into ``folder`` (created); ``plugins`` are loaded too."""
    folder.mkdir(parents=True)
    module = f"execmem_select_{secrets.token_hex(8)}"
    control = f"test_{secrets.token_hex(8)}"
    source = PLUGIN_SOURCE.replace("{declared!r}", repr(sorted(test_ids)))
    source = source.replace("{control!r}", repr(control))
    (folder / f"{module}.py").write_text(source, encoding="utf-8")
    return Selection(folder, module, tuple(plugins or ()), control)
