"""Evaluations shared between identical diffs: a task's tests judge a diff, so the same diff of the
same task (same task record, same evaluation settings) needs its tests run once.

Opt-in (``CodingRunConfig.reuse_evaluations``, on for SIEVE's episodes, declared in the manifest's
evaluation block). The key is the sha256 of the task's record, the scored diff and the settings;
only evaluations without an error are kept (a time-out or a missing report is run again). Episodes
that reach the same key at once wait for the first one's evaluation (a lock per key), so a solver that
writes the same patch in every seed pays for one test run per (task, patch), seeds in parallel or not.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from execmem.core.hashing import text_sha256
from execmem.suites.coding.evaluation.evaluate import Evaluation
from execmem.suites.coding.tasks import CodingTask

REUSE_RULE = "an episode whose diff equals an already scored diff of the same task reuses that evaluation"
_KEY_LOCKS: dict[str, threading.Lock] = {}
_REGISTRY = threading.Lock()


def evaluation_key(task: CodingTask, patch: str, settings: dict[str, Any]) -> str:
    return text_sha256("\0".join((task.model_dump_json(), patch, json.dumps(settings, sort_keys=True))))


class EvaluationStore:
    """Finished evaluations in one SQLite file (safe to share between runs and threads)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS evaluations (key TEXT PRIMARY KEY, evaluation TEXT NOT NULL)"
        )

    def get(self, key: str) -> Evaluation | None:
        with self._lock:
            row = self._db.execute("SELECT evaluation FROM evaluations WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        saved = json.loads(row[0])
        return Evaluation(saved["resolved"], saved["outcomes"], 0.0, None, None, saved["suspect_reasons"],
                          saved["dropped_paths"])  # fmt: skip

    def put(self, key: str, evaluation: Evaluation) -> None:
        if evaluation.error is not None:
            return
        text = json.dumps(evaluation.to_dict())
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO evaluations (key, evaluation) VALUES (?, ?)", (key, text)
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _key_lock(key: str) -> threading.Lock:
    with _REGISTRY:
        return _KEY_LOCKS.setdefault(key, threading.Lock())


def evaluate_once(
    store: EvaluationStore, key: str, evaluate: Callable[[], Evaluation]
) -> tuple[Evaluation, bool]:
    """The stored evaluation of ``key`` (True), else ``evaluate()``, stored (False). Blocking: run it in
    a worker thread."""
    with _key_lock(key):
        saved = store.get(key)
        if saved is not None:
            return saved, True
        evaluation = evaluate()
        store.put(key, evaluation)
        return evaluation, False
