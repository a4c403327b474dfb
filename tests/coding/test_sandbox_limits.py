"""Per-command resource caps, each probed with a bounded command that ends in seconds.

Every probe stops by itself (a fixed number of tries, short sleeps), so a
broken cap makes a test fail, never the machine hang.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from execmem.suites.coding.sandbox.bubblewrap import BubblewrapSandbox
from execmem.suites.coding.sandbox.config import SandboxConfig, SandboxLimits
from tests.coding.conftest import needs_bwrap

pytestmark = needs_bwrap

FORK_PROBE = """
import os, signal, time
children = []
try:
    for _ in range(200):
        pid = os.fork()
        if pid == 0:
            time.sleep(15)
            os._exit(0)
        children.append(pid)
except OSError as exc:
    print("stopped", type(exc).__name__)
print("started", len(children))
for pid in children:
    os.kill(pid, signal.SIGKILL)
"""


def capped(**limits) -> BubblewrapSandbox:
    return BubblewrapSandbox(SandboxConfig(limits=SandboxLimits(**limits)))


def still_works(box: BubblewrapSandbox, folder: Path) -> None:
    result = box.run("echo alive > alive.txt && cat alive.txt", folder, 10)
    assert result.ok and result.stdout == "alive\n"


def test_process_cap_stops_a_fork_loop(tmp_path):
    box = capped(processes=64)
    (tmp_path / "forks.py").write_text(FORK_PROBE)
    result = box.run("python3 forks.py", tmp_path, 60)
    assert "stopped BlockingIOError" in result.stdout, result.stderr
    started = int(result.stdout.split("started")[1])
    assert 40 <= started < 64 and result.duration_s < 20
    still_works(box, tmp_path)


def test_the_default_limits_refuse_a_2_gb_allocation(tmp_path):
    result = BubblewrapSandbox().run("python3 -c 'b = bytearray(2 * 10**9); print(len(b))'", tmp_path, 30)
    assert result.exit_code != 0 and "MemoryError" in result.stderr, result.stdout
    still_works(BubblewrapSandbox(), tmp_path)


def test_address_space_cap_refuses_a_large_allocation(tmp_path):
    box = capped(address_space_mib=1024)
    result = box.run("python3 -c 'b = bytearray(2 * 1024**3); print(len(b))'", tmp_path, 30)
    assert result.exit_code != 0 and "MemoryError" in result.stderr
    assert box.run("python3 -c 'b = bytearray(100 * 1024**2); print(len(b))'", tmp_path, 30).ok
    still_works(box, tmp_path)


def test_file_size_cap_stops_a_large_write(tmp_path):
    box = capped(file_size_mib=8)
    result = box.run("head -c 20000000 /dev/zero > big.bin", tmp_path, 30)
    assert result.exit_code != 0 and "File size limit exceeded" in result.stderr
    assert (tmp_path / "big.bin").stat().st_size == 8 * 1024 * 1024
    still_works(box, tmp_path)


@pytest.mark.parametrize("folder", ["/tmp", "/var/tmp", "/dev/shm"])
def test_private_tmpfs_is_size_capped(tmp_path, folder):
    box = capped(tmpfs_mib=16)
    result = box.run(f"head -c 40000000 /dev/zero > {folder}/fill; df -m {folder} | tail -1", tmp_path, 30)
    assert "No space left on device" in result.stderr
    assert result.stdout.split()[1] == "16"  # the tmpfs holds 16 MiB in all
    still_works(box, tmp_path)


def test_open_file_cap(tmp_path):
    box = capped(open_files=64)
    probe = "import os\nfds = []\ntry:\n    for _ in range(200): fds.append(os.open('/dev/null', 0))\n"
    probe += "except OSError as exc:\n    print(exc.errno, len(fds))\n"
    (tmp_path / "files.py").write_text(probe)
    errno, opened = box.run("python3 files.py", tmp_path, 30).stdout.split()
    assert errno == "24" and int(opened) < 64  # EMFILE
    still_works(box, tmp_path)


def test_cpu_cap_stops_a_busy_loop(tmp_path):
    box = capped(cpu_s=1)
    result = box.run("python3 -c 'while True: pass'", tmp_path, 30)
    assert not result.timed_out and result.exit_code != 0 and result.duration_s < 15
    still_works(box, tmp_path)


def test_limits_are_declared():
    description = capped(processes=64, tmpfs_mib=16).describe()
    assert description["limits"]["processes"] == 64 and description["limits"]["tmpfs_mib"] == 16
    assert description["user_namespace"] and description["capabilities"] == "none"
    expected = 65534 if os.geteuid() == 0 else os.getuid()
    assert description["runs_as"]["uid"] == expected and description["runs_as"]["switched_from_root"] == (
        os.geteuid() == 0
    )
