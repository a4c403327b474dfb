"""Installing the test plugins of ``tests/plugins/`` the way a user installs a plugin: pip, into a fresh
site directory a test puts on ``sys.path`` (no deps, no build isolation, no index: offline)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

PLUGINS = Path(__file__).resolve().parent / "plugins"


def install_plugin(name: str, scratch: Path) -> Path:
    """The site directory holding the installed plugin ``tests/plugins/<name>``."""
    source = scratch / "src" / name
    shutil.copytree(PLUGINS / name, source)  # pip builds in the source tree: keep ours clean
    site = scratch / "site"
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index"]
    done = subprocess.run(
        [*command, "--quiet", "--target", str(site), str(source)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"installing the test plugin {name} failed:\n{done.stdout}\n{done.stderr}"
    return site
