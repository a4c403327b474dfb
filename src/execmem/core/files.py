"""Crash-safe files: documents that appear whole or not at all, and append-only JSON lines.

A kill at any moment leaves every file readable. A document's text goes to a hidden temporary
file beside the target, is flushed to disk, and is renamed over the target only when writing
succeeded: an error or a kill midway leaves an existing file exactly as it was (never half
written, never emptied) and no temporary file behind. A JSON-lines file loses at most a torn last
line, which is cut off before anything new is appended. Anything else that cannot be read (a
damaged line in the middle, a document that is not JSON) is a :class:`DamagedFileError` naming
the file and line, never a guess.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO


@contextlib.contextmanager
def atomic_write(path: Path) -> Iterator[TextIO]:
    """A text handle whose content replaces ``path`` when the block ends without an exception."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def is_temporary(name: str) -> bool:
    """A file name :func:`atomic_write` uses while writing (left behind only by a kill)."""
    return name.startswith(".") and name.endswith(".tmp")


def write_json_atomic(path: Path, document: Any) -> None:
    """``document`` as indented JSON, replacing ``path`` whole."""
    with atomic_write(path) as handle:
        json.dump(document, handle, indent=2, ensure_ascii=False)
        handle.write("\n")


class DamagedFileError(ValueError):
    """A run file that cannot be read; the message names the file (and line) and what is wrong."""


def complete_records(path: Path) -> list[dict[str, Any]]:
    """The complete records of a crash-safe JSON-lines file (a torn last line is ignored);
    DamagedFileError for a complete line that is not a JSON object."""
    return [record for _, record in complete_records_with_lines(path)]


def complete_records_with_lines(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """``(path:line, record)`` for the complete records of a crash-safe JSON-lines file."""
    if not path.exists():
        return []
    records = []
    for line_no, line in enumerate(_read_bytes(path).splitlines(keepends=True), start=1):
        if not line.endswith(b"\n"):
            break  # torn by a kill mid-write
        if line.strip():
            where = f"{path}:{line_no}"
            records.append((where, _record(line, where)))
    return records


def _record(line: bytes, where: str) -> dict[str, Any]:
    try:
        record = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # not UTF-8 or not JSON, absurdly deep or long
        raise DamagedFileError(f"{where}: damaged line ({_why(exc)})") from None
    if not isinstance(record, dict):
        raise DamagedFileError(f"{where}: damaged line (a JSON {type(record).__name__}, not an object)")
    return record


def read_json_document(path: Path) -> Any:
    """A JSON document of a run folder; DamagedFileError when it is not readable JSON."""
    try:
        return json.loads(_read_bytes(path).decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise DamagedFileError(f"{path}: not readable JSON ({_why(exc)})") from None


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise DamagedFileError(f"{path}: a folder where a file should be") from None
    except PermissionError:
        raise DamagedFileError(f"{path}: permission denied") from None


def _why(exc: BaseException) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg}, line {exc.lineno} column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 at byte {exc.start}"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc)


class JsonlAppender:
    """Appends one record per line, each written whole with one ``write``.

    A written line is in the OS and survives a killed process at once. With
    ``durable``, lines are also fsynced (at most every ``sync_interval_s``, and
    on close), so a machine crash loses at most that window, without an fsync
    stalling every append.
    """

    def __init__(self, path: Path, durable: bool = True, sync_interval_s: float = 0.2) -> None:
        self.path = path
        self.durable = durable
        self.sync_interval_s = sync_interval_s
        self._synced_at = time.monotonic()
        self._dirty = False
        _cut_torn_tail(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, record: dict[str, Any]) -> None:
        os.write(self._fd, _line(record))
        self._dirty = self.durable
        if self._dirty and time.monotonic() - self._synced_at >= self.sync_interval_s:
            self.sync()

    def sync(self) -> None:
        if self._dirty:
            os.fsync(self._fd)
            self._dirty = False
        self._synced_at = time.monotonic()

    def close(self) -> None:
        self.sync()
        os.close(self._fd)


def _line(record: dict[str, Any]) -> bytes:
    try:
        return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (say, in a model's reply) stays escaped
        return (json.dumps(record) + "\n").encode("ascii")


def _cut_torn_tail(path: Path) -> None:
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as handle:
            handle.truncate(data.rfind(b"\n") + 1)


@contextlib.contextmanager
def file_lock(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_path`` (created if missing) for the block: one builder of a
    shared cache entry at a time, across threads and processes."""
    with open(lock_path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
