"""What every run folder shares: one writer, its identity document, finished episodes and failures.

.lock                the exclusive lock of the process writing the run (its pid inside)
episodes.jsonl       one line per finished (scored) episode: the commit point of an episode
infra_errors.jsonl   episodes the harness could not finish, with the reason (re-run on resume)

A run folder is written by one process at a time: the lock is taken before anything is written
and held until the run closes; the OS drops it when the process ends, however it ends. A folder
is only ever reused for the run it holds: one that is not empty but has no identity document, or
whose document or episode lines cannot be read, is refused with the file and line, never
overwritten or silently skipped.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from execmem.core.clock import now_iso
from execmem.core.files import (
    DamagedFileError,
    JsonlAppender,
    complete_records,
    complete_records_with_lines,
    is_temporary,
    read_json_document,
    write_json_atomic,
)

LOCK_FILE = ".lock"
EPISODES_FILE = "episodes.jsonl"
INFRA_FILE = "infra_errors.jsonl"


class RunFolderError(Exception):
    """The folder holds a run that this command cannot continue."""


Problems = Callable[[dict[str, Any]], list[str]]
Schema = Mapping[str, type | tuple[type, ...]]
"""Fields a line must have (dotted paths into nested objects) and the JSON types they may hold."""
NUMBER = (int, float)
INFRA_SCHEMA: Schema = {"id": str, "error_kind": str, "reason": str}

_held: dict[Path, list[int]] = {}  # folder -> [lock fd, holders in this process]


def lock_folder(folder: Path) -> None:
    """Take the folder's exclusive lock (a process may take its own lock again); RunFolderError
    when another process holds it."""
    key = folder.resolve()
    if key in _held:
        _held[key][1] += 1
        return
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            raise RunFolderError(_busy(folder)) from None
        raise
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    _held[key] = [fd, 1]


def unlock_folder(folder: Path) -> None:
    """Give back one hold on the lock; the last one releases it."""
    key = folder.resolve()
    entry = _held.get(key)
    if entry is None:
        return
    entry[1] -= 1
    if entry[1] == 0:
        del _held[key]
        os.close(entry[0])  # closing the descriptor releases the flock


def in_use(folder: Path) -> bool:
    """Whether a process (another, or this one) holds the folder's lock: a run is writing it."""
    if folder.resolve() in _held:
        return True
    try:
        _check_not_busy(folder)
    except RunFolderError:
        return True
    return False


def _check_not_busy(folder: Path) -> None:
    """RunFolderError when another process holds the folder's lock (nothing is created)."""
    path = folder / LOCK_FILE
    if folder.resolve() in _held or not path.is_file():
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            raise RunFolderError(_busy(folder)) from None
        raise
    finally:
        os.close(fd)


def _busy(folder: Path) -> str:
    try:
        pid = (folder / LOCK_FILE).read_text(encoding="ascii").strip()
    except (OSError, ValueError):
        pid = ""
    who = f" (pid {pid})" if pid.isdigit() else ""
    return (
        f"{folder} is in use by another execmem run{who}; wait for it to finish, stop it, "
        "or use another --out"
    )


def saved_document(path: Path, problems: Problems, own_files: Iterable[str] = ()) -> dict[str, Any] | None:
    """The run's saved identity document at ``path`` (None for a new run), read without writing
    anything. RunFolderError when the folder is a file, is busy, is not empty but holds no such
    document (``own_files``, made by this command before its store, do not count), when the
    document cannot be read, or when ``problems(saved)`` names a difference from this command."""
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        raise RunFolderError(f"--out {folder} is a file, not a run folder; use another --out")
    if not folder.exists():
        return None
    _check_not_busy(folder)
    if not path.exists():
        _refuse_foreign(folder, path.name, own_files)
        return None
    saved = _read_identity(path)
    found = problems(saved)
    if found:
        raise RunFolderError(f"{folder} holds a different run; use another --out. " + "; ".join(found))
    return saved


def _refuse_foreign(folder: Path, identity_name: str, own_files: Iterable[str]) -> None:
    ignored = {LOCK_FILE, *own_files}
    found = sorted(p.name for p in folder.iterdir() if p.name not in ignored and not is_temporary(p.name))
    if found:
        shown = ", ".join(found[:3]) + (", ..." if len(found) > 3 else "")
        raise RunFolderError(
            f"{folder} is not empty ({shown}) but holds no {identity_name}: not a run this command "
            "can resume; use an empty or new --out"
        )


def _read_identity(path: Path) -> dict[str, Any]:
    try:
        saved = read_json_document(path)
    except DamagedFileError as exc:
        raise RunFolderError(f"{exc}; this run cannot be resumed: use another --out") from None
    if not isinstance(saved, dict) or "invocation" not in saved:
        raise RunFolderError(
            f"{path}: not a run document this version of execmem wrote; this run cannot be resumed: "
            "use another --out"
        )
    return saved


class EpisodeLog:
    """A locked run folder: its identity document, finished episodes (latest line per id wins) and
    the infrastructure failures.

    Opening it takes the folder's lock, then writes the identity ``document`` for a new run, or,
    for a matching existing one, records this resume (time and invocation) in the saved document
    (``self.document``). Every refusal comes before anything is written.
    """

    def __init__(
        self,
        folder: Path,
        identity_name: str,
        document: dict[str, Any],
        problems: Problems,
        episode_schema: Schema,
        own_files: Iterable[str] = (),
    ) -> None:
        self.folder = folder
        saved_document(folder / identity_name, problems, own_files)  # refuse before creating anything
        folder.mkdir(parents=True, exist_ok=True)
        lock_folder(folder)
        try:
            saved = saved_document(folder / identity_name, problems, own_files)  # now under the lock
            self.finished = {r["id"]: r for r in checked_lines(folder / EPISODES_FILE, episode_schema)}
            checked_lines(folder / INFRA_FILE, INFRA_SCHEMA)
            self.document = _record_start(folder / identity_name, document, saved)
            self._document_path = folder / identity_name
            self._episodes = JsonlAppender(folder / EPISODES_FILE)
            self._infra = JsonlAppender(folder / INFRA_FILE)
        except BaseException:
            unlock_folder(folder)
            raise
        self._closed = False

    def record_executor(self, description: dict[str, Any]) -> None:
        """Note in the run's document which executor ran this start's episodes, and when."""
        earlier = self.document.get("executors")
        entry = {**description, "at": now_iso()}
        self.document["executors"] = [*(earlier if isinstance(earlier, list) else []), entry]
        write_json_atomic(self._document_path, self.document)

    def add_episode(self, record: dict[str, Any]) -> None:
        self._episodes.append(record)
        self.finished[record["id"]] = record

    def add_infra_error(self, record: dict[str, Any]) -> None:
        self._infra.append(record)

    def infra_errors(self) -> list[dict[str, Any]]:
        """Failures not since resolved by a finished episode (the latest per episode)."""
        return unresolved_infra_errors(self.folder, self.finished)

    def write_metrics(self, metrics: dict[str, Any]) -> None:
        write_json_atomic(self.folder / "metrics.json", metrics)

    def close(self) -> None:
        """Sync and close the files and release the lock (a second call does nothing)."""
        if self._closed:
            return
        self._closed = True
        self._episodes.close()
        self._infra.close()
        unlock_folder(self.folder)


def _record_start(path: Path, document: dict[str, Any], saved: dict[str, Any] | None) -> dict[str, Any]:
    """Write ``document`` for a new run; for a resumed one add this start to the saved document."""
    if saved is None:
        write_json_atomic(path, document)
        return document
    earlier = saved.get("resumed_at")
    saved["resumed_at"] = [*(earlier if isinstance(earlier, list) else []), now_iso()]
    saved["invocation"] = document["invocation"]
    write_json_atomic(path, saved)
    return saved


def checked_lines(path: Path, schema: Schema) -> list[dict[str, Any]]:
    """The records of a run's JSON-lines file; RunFolderError naming the line (and field) when a
    complete line cannot be read or lacks what ``schema`` asks for."""
    fix = "fix or delete that line (its episode is then run again)"
    try:
        lines = complete_records_with_lines(path)
    except DamagedFileError as exc:
        raise RunFolderError(f"{exc}; {fix}") from None
    for where, record in lines:
        problem = schema_problem(record, schema)
        if problem:
            raise RunFolderError(f"{where}: damaged line ({problem}); {fix}")
    return [record for _, record in lines]


def schema_problem(record: dict[str, Any], schema: Schema) -> str | None:
    """The first field of ``schema`` that ``record`` lacks or holds with the wrong type, or None."""
    for path, kinds in schema.items():
        value: Any = record
        for key in path.split("."):
            value = value.get(key) if isinstance(value, dict) else None
        if value is None or not isinstance(value, kinds):
            got = "missing" if value is None else type(value).__name__
            return f"field {path!r}: {got}"
    return None


def unresolved_infra_errors(folder: Path, finished: Iterable[str]) -> list[dict[str, Any]]:
    """The latest failure of each episode not finished since (read-only, for reports too)."""
    done = set(finished)
    latest = {r.get("id"): r for r in complete_records(folder / INFRA_FILE)}
    return [r for key, r in latest.items() if key not in done]
