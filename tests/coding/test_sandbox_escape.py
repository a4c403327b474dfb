"""Escapes that worked when bubblewrap ran as root with every capability, and what must stay unseen.

Each attack runs as a real command in the sandbox (as root here, as CI does) and
must fail; afterwards the sandbox still works.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.sandbox.bubblewrap import BubblewrapSandbox
from execmem.suites.coding.sandbox.config import SandboxConfig
from execmem.suites.coding.sandbox.launcher import Identity
from execmem.suites.coding.venvs import Venv
from tests.coding.conftest import needs_bwrap

pytestmark = needs_bwrap
REPO_ROOT = Path(__file__).resolve().parents[2]
INTERPRETER = Path(sys.base_prefix).resolve()


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """This episode's repository and a sibling episode's (with a file in it)."""
    workspaces = tmp_path / "run" / "workspaces"
    mine, other = workspaces / "a" / "repo", workspaces / "b" / "repo"
    for folder in (mine, other):
        folder.mkdir(parents=True)
    (other / "solution.py").write_text("the other episode's work")
    (tmp_path / "run" / "memory.json").write_text("every target's memory")
    return mine, other


@pytest.fixture
def box() -> BubblewrapSandbox:
    """As an episode gets it: the harness's interpreter prefix read-only (it may live under /root)."""
    return BubblewrapSandbox(SandboxConfig(readonly_paths=[INTERPRETER]))


def run(box: BubblewrapSandbox, command: str, folder: Path):
    result = box.run(command, folder, 30)
    assert not result.timed_out
    return result


def still_works(box: BubblewrapSandbox, folder: Path) -> None:
    result = box.run("echo alive > alive.txt && cat alive.txt", folder, 10)
    assert result.ok and result.stdout == "alive\n"


def test_remounting_read_write_does_not_reach_the_host(box, folders):
    tag = uuid.uuid4().hex[:8]
    command = (
        f"mount -o remount,bind,rw / ; mount -o remount,bind,rw /usr ; mount -o remount,rw /etc ; "
        f"touch /usr/escape-{tag} /etc/escape-{tag} /escape-{tag}; echo end"
    )
    result = run(box, command, folders[0])
    assert result.stderr.count("must be superuser to use mount") == 3
    assert f"cannot touch '/usr/escape-{tag}': Read-only file system" in result.stderr
    for path in (f"/usr/escape-{tag}", f"/etc/escape-{tag}", f"/escape-{tag}"):
        assert not Path(path).exists()
    still_works(box, folders[0])


def test_unmounting_shows_nothing_hidden(box, folders):
    result = run(box, f"umount /root; umount -l {INTERPRETER}; umount -l /tmp; ls -A /root", folders[0])
    assert result.stderr.count("must be superuser to unmount") + result.stderr.count("not mounted") == 3
    assert "must be superuser to unmount" in result.stderr
    assert result.stdout.split() in ([], [INTERPRETER.relative_to("/root").parts[0]])
    still_works(box, folders[0])


def test_unmounting_proc_does_not_leak_the_harness_environment(box, folders, monkeypatch):
    key = f"sk-test-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    command = (
        "umount -l /proc; umount /proc; "
        "for f in /proc/*/environ; do cat $f; echo; done 2>&1 | tr '\\0' '\\n'; "
        "grep -rs sk-test /proc/*/environ; ls /proc | grep -c '^[0-9]'"
    )
    result = run(box, command, folders[0])
    assert "must be superuser to unmount" in result.stderr
    assert key not in result.stdout + result.stderr
    assert "sk-test" not in result.stdout.replace("sk-test /proc", "")
    assert int(result.stdout.split()[-1]) < 10  # only the sandbox's own few processes are visible
    still_works(box, folders[0])


def test_device_nodes_cannot_be_made(box, folders):
    result = run(box, "mknod disk b 8 0; mknod null c 1 3; ls", folders[0])
    assert result.stderr.count("Operation not permitted") == 2
    assert not (folders[0] / "disk").exists() and not (folders[0] / "null").exists()


def test_commands_have_no_capabilities_and_cannot_gain_any(box, folders):
    command = "grep -E '^(Cap|NoNewPrivs)' /proc/self/status; unshare -U -r true; echo $?"
    result = run(box, command, folders[0])
    lines = dict(line.split(":\t") for line in result.stdout.splitlines()[:-1])
    for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert lines[name] == "0000000000000000", name
    assert lines["NoNewPrivs"] == "1"
    assert result.stdout.splitlines()[-1] != "0"  # no new user namespace (so no capabilities in one)


@pytest.mark.skipif(os.geteuid() != 0, reason="the harness switches users only when it runs as root")
def test_commands_run_as_an_unprivileged_host_user(box, folders):
    result = run(box, "id -u; touch made-here", folders[0])
    made = (folders[0] / "made-here").stat()
    assert result.stdout.strip() == "65534"
    assert (made.st_uid, made.st_gid) == (65534, 65534)


def test_nothing_outside_the_allow_list_is_visible(box, folders, tmp_path):
    mine, other = folders
    targets = {
        "checkout": REPO_ROOT,
        "work": Path("/work"),
        "task file": builtin_tasks_path(),
        "run folder": tmp_path / "run" / "memory.json",
        "other episode": other,
        "home file": Path.home() / ".bashrc",
    }
    command = "; ".join(f"ls -d {path}" for path in targets.values())
    depth = len(INTERPRETER.relative_to("/root").parts) if INTERPRETER.is_relative_to("/root") else 1
    result = run(box, command + f"; find /root -maxdepth {depth} | sort", mine)
    for name, path in targets.items():
        assert f"cannot access '{path}': No such file or directory" in result.stderr, name
    found = [line for line in result.stdout.splitlines() if line.startswith("/root")]
    if INTERPRETER.is_relative_to("/root"):  # only the path down to the interpreter, nothing beside it
        allowed = {str(INTERPRETER), *(str(p) for p in INTERPRETER.parents if p.is_relative_to("/root"))}
        assert set(found) <= allowed and str(INTERPRETER) in found
    else:
        assert found == []
    still_works(box, mine)


def test_unix_sockets_outside_are_unreachable(box, folders):
    tag = uuid.uuid4().hex[:8]
    paths = [Path(f"/tmp/execmem-{tag}.sock"), Path(f"/run/execmem-{tag}.sock")]
    servers = [_listen(str(path)) for path in paths] + [_listen(f"\0execmem-{tag}")]
    probe = (
        "import socket\n"
        f"for address in {[str(p) for p in paths] + [chr(0) + 'execmem-' + tag]!r}:\n"
        "    s = socket.socket(socket.AF_UNIX)\n"
        "    try:\n"
        "        s.connect(address); print('CONNECTED')\n"
        "    except OSError as exc:\n"
        "        print(type(exc).__name__)\n"
    )
    (folders[0] / "probe.py").write_text(probe)
    try:
        result = run(box, "python3 probe.py", folders[0])
    finally:
        for server in servers:
            server.close()
        for path in paths:
            path.unlink(missing_ok=True)
    assert result.stdout.split() == ["FileNotFoundError", "FileNotFoundError", "ConnectionRefusedError"]


def _listen(address: str) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    if not address.startswith("\0"):  # an abstract address has no file
        with contextlib.suppress(FileNotFoundError):
            os.unlink(address)
    server.bind(address)
    server.listen()
    return server


@pytest.fixture
def user_folder():
    """A folder of uid 65534 that it can reach (pytest's own tmp folders are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="execmem-user-"))
    os.chmod(folder, 0o755)
    os.chown(folder, 65534, 65534)
    yield folder
    shutil.rmtree(folder)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to play an unprivileged harness")
def test_a_harness_that_is_not_root_gets_the_same_jail(user_folder):
    """The launcher a normal user's machine uses (no user switch), run here as uid 65534."""
    folder = user_folder
    box = BubblewrapSandbox()
    box.who, box.setpriv = Identity(65534, 65534, switch=False), None
    command = "grep -E '^Cap(Eff|Bnd)' /proc/self/status; unshare -U true; echo $?; mount -o remount,rw /usr"
    argv = box.argv(command + "; touch made; ls /work", folder)
    as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
    done = subprocess.run(as_user, capture_output=True, text=True, cwd="/", check=False, timeout=30)
    assert done.stdout.split() == ["CapEff:", "0000000000000000", "CapBnd:", "0000000000000000", "1"]
    assert "must be superuser" in done.stderr and "cannot access '/work'" in done.stderr
    assert (folder / "made").stat().st_uid == 65534


def test_installed_packages_of_the_interpreter_and_the_system_are_hidden(tmp_path, folders):
    """A task's library may be installed at its fixed version beside the interpreter (here:
    python-dateutil in the base interpreter's site-packages), or execmem with its task file."""
    env = tmp_path / "env"
    (env / "venv").mkdir(parents=True)
    (env / "venv" / "pyvenv.cfg").write_text(f"home = {Path(sys.base_prefix).resolve() / 'bin'}\n")
    venv = Venv(env, 0.0, reused=True)
    config = SandboxConfig(readonly_paths=venv.readonly_paths(), hidden_paths=venv.hidden_paths())
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    prefix = Path(sys.base_prefix).resolve()
    base_site = prefix / "lib" / version / "site-packages"
    system_site = [Path(p) for p in glob.glob("/usr/lib/python3*/*-packages") if any(Path(p).iterdir())]
    assert any(base_site.iterdir()) and (base_site in venv.hidden_paths() or prefix.is_relative_to("/usr"))
    listed = " ".join(str(path) for path in [base_site, *system_site])
    stdlib = prefix / "lib" / version / "os.py"
    command = f"ls -A {listed} | grep -v ':$' | grep -c . ; touch {base_site}/planted; ls {stdlib}"
    result = run(BubblewrapSandbox(config), command, folders[0])
    assert result.stdout.splitlines()[0] == "0", result.stdout  # every package folder looks empty
    assert "Read-only file system" in result.stderr and not (base_site / "planted").exists()
    assert result.stdout.splitlines()[1].endswith("os.py")  # the standard library is still there
