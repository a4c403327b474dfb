"""Command groups load when used: a vehicle command never imports the coding suite or numpy."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys
from execmem.cli.main import app
try:
    app({args!r}, prog_name="execmem")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def loaded_after(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=list(args))], capture_output=True, text=True
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_version_loads_no_command_group():
    groups = ("execmem.cli.vehicle", "execmem.cli.coding", "execmem.cli.data", "execmem.suites")
    assert not {m for m in loaded_after("version") if m.startswith(groups)}


@pytest.mark.parametrize("args", [["vehicle", "run", "--help"], ["vehicle", "gold", "--help"]])
def test_a_vehicle_command_loads_neither_the_coding_suite_nor_numpy_nor_httpx(args):
    loaded = loaded_after(*args)
    assert "execmem.cli.vehicle_run" in loaded
    assert not {
        m for m in loaded if m.startswith(("execmem.suites.coding", "execmem.cli.coding", "numpy", "httpx"))
    }


def test_a_coding_command_loads_its_group():
    loaded = loaded_after("coding", "run", "--help")
    assert {
        "execmem.cli.coding",
        "execmem.cli.coding_run",
    } <= loaded and "execmem.cli.vehicle_run" not in loaded


def test_the_cli_runs_without_click_installed():
    """typer >= 0.22 carries its own click and no longer installs it: a fresh `pip install -e .`
    has no click, and `import click` made every command fail with ModuleNotFoundError."""
    probe = "import sys; sys.modules['click'] = None\n" + PROBE.format(args=["vehicle", "--help"])
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0 and "ModuleNotFoundError" not in done.stderr, done.stderr[-2000:]
    assert "replay" in done.stdout
