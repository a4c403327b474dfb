"""SQLite storage of memory units: one file per run, every row tagged with its user space and source.

A collection (``bm25``, ``dense``, ...) owns the tables named ``<collection>_*`` in the file, so
several systems can share one run file. A unit row keeps ``user_id``, its text, the source
timestamps and line ids it covers, and ``last_key``: its latest source timestamp as a sortable
string, which the time cut-off compares against. Times are compared as UTC when they carry a
time zone, as wall-clock time when they are naive.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from execmem.core.protocols import MemoryItem
from execmem.memory.windowing import Unit

IN_MEMORY = ":memory:"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")


@dataclass(frozen=True)
class Scope:
    """The units one search may see: the user's own, stamped strictly before the cut-off."""

    table: str
    user_id: str
    before_key: str | None = None

    def ids_sql(self) -> tuple[str, tuple[str, ...]]:
        """A subquery selecting those unit ids, and its parameters."""
        if self.before_key is None:
            return f"SELECT id FROM {self.table} WHERE user_id = ?", (self.user_id,)
        return f"SELECT id FROM {self.table} WHERE user_id = ? AND last_key < ?", (
            self.user_id,
            self.before_key,
        )


class Hit(NamedTuple):
    """One ranked unit, before it is turned into a ``MemoryItem``."""

    unit_id: int
    score: float
    details: Mapping[str, Any] = {}


def check_name(name: str) -> str:
    """``name`` if it can be used in a table name, else ValueError."""
    if not _NAME.match(name):
        raise ValueError(f"invalid collection name {name!r}: use letters, digits and '_' (at most 41)")
    return name


def time_key(moment: datetime) -> str:
    """A string that sorts like the time: aware times in UTC, naive ones as they are."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")


def connect(path: str) -> sqlite3.Connection:
    """A connection in autocommit mode (writes go through ``transaction``); WAL for files."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=60)
    conn.execute("PRAGMA foreign_keys = ON")
    if path != IN_MEMORY:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """All writes inside happen together or not at all (the write lock is taken up front)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class UnitStore:
    """The ``<collection>_units`` table: what was stored, for whom, from which source lines."""

    def __init__(self, conn: sqlite3.Connection, collection: str):
        self.conn = conn
        self.collection = check_name(collection)
        self.table = f"{collection}_units"
        self._meta = f"{collection}_meta"
        conn.executescript(f"""
            CREATE TABLE IF NOT EXISTS {self.table} (
                id INTEGER PRIMARY KEY,
                user_id TEXT NOT NULL,
                text TEXT NOT NULL,
                first_key TEXT NOT NULL,
                last_key TEXT NOT NULL,
                timestamps TEXT NOT NULL,
                line_ids TEXT NOT NULL,
                written_at TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS {self.table}_by_user ON {self.table} (user_id, last_key);
            CREATE TABLE IF NOT EXISTS {self._meta} (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """)

    def claim(self, layout: dict[str, Any]) -> None:
        """Record how the collection is written; refuse to mix a different layout into it."""
        text = json.dumps(layout, sort_keys=True)
        with transaction(self.conn):
            self.conn.execute(f"INSERT OR IGNORE INTO {self._meta} VALUES ('layout', ?)", (text,))
        (stored,) = self.conn.execute(f"SELECT value FROM {self._meta} WHERE key = 'layout'").fetchone()
        if stored != text:
            raise ValueError(
                f"collection {self.collection!r} in this file was written as {stored}, not {text}; "
                "use another file or another collection name"
            )

    def insert(self, user_id: str, units: Sequence[Unit], written_at: datetime) -> list[int]:
        """Store the units (inside the caller's transaction); their new ids, in order."""
        sql = (
            f"INSERT INTO {self.table} (user_id, text, first_key, last_key, timestamps, line_ids, written_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)"
        )
        ids = []
        for unit in units:
            stamps = json.dumps([t.isoformat() for t in unit.timestamps])
            row = (user_id, unit.text, time_key(unit.earliest), time_key(unit.latest), stamps)
            cursor = self.conn.execute(sql, (*row, json.dumps(unit.line_ids), written_at.isoformat()))
            ids.append(cursor.lastrowid)
        return ids

    def delete_user(self, user_id: str) -> None:
        """Remove the user's units (rows of other tables that reference them go with them)."""
        self.conn.execute(f"DELETE FROM {self.table} WHERE user_id = ?", (user_id,))

    def scope(self, user_id: str, before: datetime | None) -> Scope:
        """What a search of ``user_id`` with cut-off ``before`` may see."""
        return Scope(self.table, user_id, None if before is None else time_key(before))

    def items(self, hits: Sequence[Hit]) -> list[MemoryItem]:
        """The hits as memory items, in the same order."""
        if not hits:
            return []
        marks = ",".join("?" * len(hits))
        sql = f"SELECT id, text, timestamps, line_ids, written_at FROM {self.table} WHERE id IN ({marks})"
        rows = {row[0]: row for row in self.conn.execute(sql, [hit.unit_id for hit in hits])}
        return [_item(rows[hit.unit_id], hit) for hit in hits]


def _item(row: tuple[Any, ...], hit: Hit) -> MemoryItem:
    unit_id, text, stamps, line_ids, written_at = row
    return MemoryItem(
        text=text,
        score=float(hit.score),
        timestamps=tuple(datetime.fromisoformat(s) for s in json.loads(stamps)),
        line_ids=tuple(json.loads(line_ids)),
        metadata={"unit_id": unit_id, "written_at": written_at, **hit.details},
    )
