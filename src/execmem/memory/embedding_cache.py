"""Embeddings cached by content: sha256(embedder identity + text) -> float32 vector, in SQLite.

The identity is the embedder's ``describe()``, so another model, version or sequence length
never reuses a vector. The cache table lives in the run file, or in a shared file attached to
the same connection, so cache rows are written in the same transaction as the units they serve.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence

import numpy as np

from execmem.memory.embedders import Embedder

_LOOKUP_CHUNK = 500


def attach(conn: sqlite3.Connection, path: str, schema: str = "embedding_cache") -> str:
    """Attach the shared cache file as ``schema`` (WAL, like the run file); the schema to use."""
    conn.execute(f"ATTACH DATABASE ? AS {schema}", (path,))
    conn.execute(f"PRAGMA {schema}.journal_mode = WAL")
    return schema


class EmbeddingCache:
    """Embeds texts through the cache: only texts never seen with this embedder are computed."""

    def __init__(self, conn: sqlite3.Connection, embedder: Embedder, schema: str = "main"):
        self.conn = conn
        self.embedder = embedder
        self.table = f"{schema}.embeddings"
        self._identity = json.dumps(embedder.describe(), sort_keys=True)
        self.computed = 0
        self.reused = 0
        conn.execute(f"CREATE TABLE IF NOT EXISTS {self.table} (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")

    def key(self, text: str) -> str:
        return hashlib.sha256(f"{self._identity}\0{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One float32 row per text, in order; new vectors are written (in the caller's transaction)."""
        keys = [self.key(text) for text in texts]
        found = self._lookup(list(dict.fromkeys(keys)))
        missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in found}
        if missing:
            vectors = self.embedder.embed(list(missing.values())).astype(np.float32, copy=False)
            rows = [(key, vector.tobytes()) for key, vector in zip(missing, vectors, strict=True)]
            self.conn.executemany(f"INSERT OR IGNORE INTO {self.table} VALUES (?, ?)", rows)
            found.update((key, vector) for key, vector in zip(missing, vectors, strict=True))
        self.computed += len(missing)
        self.reused += len(texts) - len(missing)
        return np.stack([found[key] for key in keys]) if keys else np.zeros((0, 0), dtype=np.float32)

    def stats(self) -> dict[str, int]:
        """Texts embedded and texts served from the cache, since this object was made."""
        return {"computed": self.computed, "reused": self.reused}

    def _lookup(self, keys: list[str]) -> dict[str, np.ndarray]:
        found = {}
        for start in range(0, len(keys), _LOOKUP_CHUNK):
            chunk = keys[start : start + _LOOKUP_CHUNK]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT key, vector FROM {self.table} WHERE key IN ({marks})"
            for key, blob in self.conn.execute(sql, chunk):
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found
