"""The sandbox stops what an agent command must not do, and the episode goes on afterwards."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

from execmem.suites.coding.sandbox import base as sandbox_module
from execmem.suites.coding.sandbox import bubblewrap as bubblewrap_module
from execmem.suites.coding.sandbox.base import make_sandbox
from execmem.suites.coding.sandbox.bubblewrap import BubblewrapSandbox
from execmem.suites.coding.sandbox.config import SandboxConfig, SandboxUnavailable
from execmem.suites.coding.sandbox.local import UnsafeLocalSandbox
from execmem.suites.coding.sandbox.process import CappedBuffer
from tests.coding.conftest import needs_bwrap

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def episode_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "episode"
    folder.mkdir()
    return folder


@pytest.fixture
def bwrap() -> BubblewrapSandbox:
    return BubblewrapSandbox(SandboxConfig(output_cap=4000))


def still_works(box, folder: Path) -> None:
    result = box.run("echo alive > alive.txt && cat alive.txt", folder, 10)
    assert result.ok and result.stdout == "alive\n"


def gone(marker: str, within_s: float = 2.0) -> bool:
    """Whether every process matching ``marker`` ends within ``within_s`` (SIGKILL lands asynchronously)."""
    deadline = time.monotonic() + within_s
    while sleepers(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def sleepers(marker: str) -> list[int]:
    """Live processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline and "pytest" not in cmdline:
                found.append(int(entry.name))
    return found


# ---------------------------------------------------------------- network


@needs_bwrap
def test_loopback_service_outside_is_unreachable(bwrap, episode_dir):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(4)
    accepted = []
    thread = threading.Thread(target=lambda: _accept(server, accepted), daemon=True)
    thread.start()
    port = server.getsockname()[1]
    script = (
        f"import socket; s = socket.create_connection(('127.0.0.1', {port}), timeout=5); print('CONNECTED')"
    )
    result = bwrap.run(f'python3 -c "{script}"', episode_dir, 20)
    thread.join()
    server.close()
    assert result.exit_code != 0 and "CONNECTED" not in result.stdout
    assert "ConnectionRefusedError" in result.stderr
    assert accepted == [] and result.duration_s < 4
    still_works(bwrap, episode_dir)


def _accept(server: socket.socket, accepted: list) -> None:
    with contextlib.suppress(OSError):  # the timeout: nobody came, as it should be
        accepted.append(server.accept())


# TEST-NET-1 (RFC 5737): never routed. The script refuses to try at all if the namespace has any route,
# so a broken sandbox cannot send a packet anywhere.
PUBLIC_PROBE = """
import socket, sys
routes = open('/proc/net/route').read().splitlines()[1:]
if routes:
    print('HAS_ROUTE'); sys.exit(3)
try:
    socket.create_connection(('192.0.2.1', 80), timeout=5)
    print('CONNECTED')
except OSError as exc:
    print('ERRNO', exc.errno)
"""


@needs_bwrap
def test_public_address_fails_fast(bwrap, episode_dir):
    (episode_dir / "probe.py").write_text(PUBLIC_PROBE)
    result = bwrap.run("python3 probe.py", episode_dir, 20)
    assert result.stdout.strip() == "ERRNO 101"  # ENETUNREACH: no route at all, at once
    assert result.duration_s < 5
    still_works(bwrap, episode_dir)


# ---------------------------------------------------------------- filesystem


@needs_bwrap
def test_writes_outside_the_episode_folder_fail(bwrap, episode_dir, tmp_path):
    tag = uuid.uuid4().hex[:8]
    unseen = [REPO_ROOT / f"escape-{tag}", Path.home() / f".execmem-escape-{tag}"]
    readonly = [Path(f"/etc/escape-{tag}"), Path(f"/usr/escape-{tag}")]
    sibling = tmp_path / f"sibling-{tag}"
    command = "; ".join(f"touch {target}" for target in [*unseen, *readonly, sibling])
    result = bwrap.run(command + "; echo done > inside.txt", episode_dir, 20)
    for target in unseen:  # not in the sandbox at all
        assert f"cannot touch '{target}': No such file or directory" in result.stderr
    for target in readonly:
        assert f"cannot touch '{target}': Read-only file system" in result.stderr
    for target in [*unseen, *readonly, sibling]:
        assert not target.exists(), target  # the sibling was written to the sandbox's private /tmp only
    assert (episode_dir / "inside.txt").read_text() == "done\n"
    still_works(bwrap, episode_dir)


@needs_bwrap
def test_protected_git_folder(episode_dir):
    (episode_dir / ".git").mkdir()
    (episode_dir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    box = BubblewrapSandbox(SandboxConfig())
    result = box.run("rm -rf .git; touch .git/x; echo evil > .git/HEAD; ls -a", episode_dir, 20)
    assert ".git" in result.stdout.split()
    assert (episode_dir / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert not (episode_dir / ".git" / "x").exists()


@needs_bwrap
def test_environment_is_clean(bwrap, episode_dir, monkeypatch):
    monkeypatch.setenv("EXECMEM_TEST_SECRET", "sk-do-not-leak")
    result = bwrap.run("env", episode_dir, 10, env={"GIVEN": "yes"})
    assert "sk-do-not-leak" not in result.stdout
    assert "GIVEN=yes" in result.stdout


# ---------------------------------------------------------------- time


@needs_bwrap
@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("sleep", "sleep 973"),
        ("ignores-sigterm", "trap '' TERM INT HUP; while true; do sleep 974; done"),
        ("fork-loop", "for i in $(seq 40); do (trap '' TERM; sleep 975) & done; wait"),
        (
            "python-ignores-sigterm",
            "python3 -c 'import signal, time; signal.signal(15, signal.SIG_IGN); time.sleep(976)'",
        ),
    ],
)
def test_runaway_commands_are_killed(bwrap, episode_dir, name, command):
    marker = command.split("sleep")[-1].split(";")[0].strip(" ()'")
    result = bwrap.run(command, episode_dir, 1.5)
    assert result.timed_out and result.exit_code != 0, name
    assert result.duration_s < 8
    assert gone(f"sleep {marker}") and gone(f"sleep({marker})")
    still_works(bwrap, episode_dir)


@needs_bwrap
def test_background_process_left_behind_dies_with_the_command(bwrap, episode_dir):
    result = bwrap.run("setsid sleep 977 >/dev/null 2>&1 & echo started", episode_dir, 20)
    assert result.ok and result.stdout == "started\n"
    assert gone("sleep 977")


def test_unsafe_local_still_enforces_the_time_limit(episode_dir):
    box = UnsafeLocalSandbox()
    result = box.run("trap '' TERM; sleep 978", episode_dir, 1)
    assert result.timed_out and result.duration_s < 8
    assert gone("sleep 978")
    still_works(box, episode_dir)


def test_unsafe_local_kills_what_a_finished_command_left_in_its_group(episode_dir):
    result = UnsafeLocalSandbox().run("sleep 979 >/dev/null 2>&1 & echo started", episode_dir, 20)
    assert result.ok and result.duration_s < 2
    assert gone("sleep 979")


# ---------------------------------------------------------------- output


@pytest.mark.parametrize("make", [UnsafeLocalSandbox, pytest.param(BubblewrapSandbox, marks=needs_bwrap)])
def test_output_is_capped(make, episode_dir):
    box = make(SandboxConfig(output_cap=1000))
    result = box.run("yes abcdefgh | head -c 5000000; echo END", episode_dir, 30)
    assert result.ok
    assert len(result.stdout) < 1100
    assert "bytes of output truncated" in result.stdout and result.stdout.endswith("END\n")


def test_capped_buffer_keeps_head_and_tail():
    buffer = CappedBuffer(10)
    for chunk in (b"0123", b"456789", b"abcdef"):
        buffer.feed(chunk)
    assert buffer.text() == "01234\n[... 6 bytes of output truncated ...]\nbcdef"


# ---------------------------------------------------------------- choosing (docker: test_docker.py)


def test_missing_bwrap_is_an_error_unless_unsafe_local(monkeypatch):
    monkeypatch.setattr(sandbox_module.shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="--unsafe-local"):
        make_sandbox()
    with pytest.raises(SandboxUnavailable):
        BubblewrapSandbox()
    assert isinstance(make_sandbox(unsafe_local=True), UnsafeLocalSandbox)


@needs_bwrap
def test_bwrap_is_preferred_even_with_unsafe_local():
    assert isinstance(make_sandbox(unsafe_local=True), BubblewrapSandbox)


def test_relative_workdir_is_refused():
    with pytest.raises(ValueError, match="absolute"):
        UnsafeLocalSandbox().run("true", Path("relative"), 5)


@needs_bwrap
def test_bwrap_argv_has_the_promised_isolation(tmp_path):
    venv = tmp_path / "venv"
    venv.mkdir()
    config = SandboxConfig(readonly_paths=[venv])
    argv = BubblewrapSandbox(config).argv("true", tmp_path / "ep")
    joined = " ".join(argv)
    assert argv[0].endswith("prlimit") and "--ro-bind / /" not in joined  # an allow-list, not all of /
    for flag in (
        "--ro-bind /usr /usr",
        "--perms 1777 --size 268435456 --tmpfs /tmp",
        "--size 268435456 --tmpfs /dev/shm",
        f"--ro-bind {venv} {venv}",
        f"--bind {tmp_path / 'ep'} {tmp_path / 'ep'}",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-user",
        "--disable-userns",
        "--cap-drop ALL",
        "--nproc=",
        f"--as={1536 * 1024 * 1024}",
    ):
        assert flag in joined, flag
    assert "--die-with-parent" in argv and "--new-session" in argv and "--clearenv" in argv
    assert os.environ.get("PATH", "") not in argv  # the caller's PATH is not passed through
    if os.geteuid() == 0:
        assert "--reuid=65534" in argv and "--bounding-set=-all" in argv


def test_system_folders_cannot_be_bound_over():
    for path in ("/", "/tmp", "/usr"):
        with pytest.raises(ValueError, match="cannot be bound"):
            bubblewrap_module.bind("--bind", Path(path))
