"""Run one process with a time limit and capped output; on timeout its whole process group is killed.

Output is read as it comes (a process printing gigabytes neither fills memory
nor blocks): the first and last halves of ``output_cap`` bytes are kept, with a
marker saying how much was dropped in between.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

_CHUNK = 65536
_PIPE_GRACE_S = 2.0


@dataclass(frozen=True)
class CommandResult:
    """What a command did: exit code (-9 when killed), capped output, whether it hit the time limit."""

    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


class CappedBuffer:
    """Keeps the head and the tail of a byte stream, counting what falls in between."""

    def __init__(self, cap: int) -> None:
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> None:
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        overflow = len(self.tail) - self.tail_cap
        if overflow > 0:
            del self.tail[:overflow]
            self.dropped += overflow

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of output truncated ...]\n" if self.dropped else ""
        head = self.head.decode("utf-8", errors="replace")
        return head + middle + self.tail.decode("utf-8", errors="replace")


def _drain(stream: IO[bytes], buffer: CappedBuffer) -> None:
    with stream:
        while chunk := stream.read1(_CHUNK):  # type: ignore[attr-defined]
            buffer.feed(chunk)


def run_process(
    argv: Sequence[str],
    cwd: Path,
    timeout_s: float,
    env: dict[str, str],
    output_cap: int,
    on_timeout: Sequence[str] | None = None,
) -> CommandResult:
    """Run ``argv`` in its own session; kill the session's process group at the time limit.

    ``on_timeout`` is an extra command run after the kill (for example ``docker kill``).
    """
    start = time.monotonic()
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    buffers = (CappedBuffer(output_cap), CappedBuffer(output_cap))
    readers = [
        threading.Thread(target=_drain, args=(stream, buffer), daemon=True)
        for stream, buffer in zip((process.stdout, process.stderr), buffers, strict=True)
    ]
    for reader in readers:
        reader.start()
    timed_out = _wait(process, timeout_s, on_timeout)
    _kill_group(process.pid)  # whatever the command left behind in its group goes too
    for reader in readers:
        reader.join(_PIPE_GRACE_S)
    return CommandResult(
        exit_code=process.returncode,
        stdout=buffers[0].text(),
        stderr=buffers[1].text(),
        timed_out=timed_out,
        duration_s=time.monotonic() - start,
    )


def _wait(process: subprocess.Popen, timeout_s: float, on_timeout: Sequence[str] | None) -> bool:
    try:
        process.wait(timeout=timeout_s)
        return False
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        if on_timeout:
            subprocess.run(list(on_timeout), capture_output=True, timeout=60, check=False)
        process.wait()
        return True


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
