"""``fusion``: statement-level hybrid memory; lexical, dense, lexicon and speaker evidence fused.

Every message is stored as one statement (one unit, with its time, speaker and source line).
A search scores each of the user's statements (``fusion_rank``), then returns items that each
gather one subject's best statements in time order, up to ``item_tokens`` tokens an item. No
model call at ingest or search besides the embedder.

Options that shape results are in ``describe()``. A ``lexicon`` (domain terms, see ``terms``)
is what the caller knows about its domain: the vehicle suite passes its tools' vocabulary, a
coding run could pass a repository's identifiers; without one, salience and feedback words are
off and every statement is embedded.

State: the units, a statements table (speaker and search text) and vectors, in the run's SQLite
file. Each user's ranking structures are built from the file on first search and kept until that
user is written to or reset; one process should write a collection at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field

from execmem.core.protocols import MemoryItem, MemoryMessage
from execmem.memory.base import FileConfig
from execmem.memory.dense import EmbeddingOptions, VectorIndex
from execmem.memory.embedders import Embedder, EmbedderConfig, MiniLMConfig, make_embedder
from execmem.memory.embedding_cache import EmbeddingCache, attach
from execmem.memory.fusion_rank import (
    Query,
    RankSettings,
    Space,
    group,
    lexicon_words,
    named_speakers,
    rank,
    statement_salience,
)
from execmem.memory.lexical import Bm25Index
from execmem.memory.store import Hit, UnitStore, connect, time_key, transaction
from execmem.memory.terms import (
    Lexicon,
    index_words,
    query_terms,
    states_number,
    tokens,
    without_clock_times,
)
from execmem.memory.windowing import WindowingConfig, make_units

TURNS = WindowingConfig(mode="turn")


class FusionConfig(FileConfig, EmbeddingOptions):
    collection: str = Field(default="fusion", description="table-name prefix inside the file")
    lexicon: list[str] = Field(default_factory=list, description="domain terms (words or identifiers)")
    embedder: EmbedderConfig | Literal["none"] | None = Field(
        default=None, description="'minilm' (the default), 'hashing', 'none' (no vectors), or a dict"
    )
    embed: Literal["salient", "all"] = Field(
        default="salient", description="embed only statements with a lexicon word, or every statement"
    )
    ranking: RankSettings = RankSettings()


class FusionMemory:
    """The ``fusion`` memory system (see the module docstring and docs/memory.md)."""

    name = "fusion"
    accepts: ClassVar[frozenset[str]] = frozenset({"path", "lexicon"})  # statements, no windowing

    def __init__(self, **options: Any):
        given = options.pop("embedder") if isinstance(options.get("embedder"), Embedder) else None
        self.config = FusionConfig(**options)
        self.lexicon = Lexicon(self.config.lexicon)
        self.store = UnitStore(connect(self.config.path), self.config.collection)
        self.vectors = self._open_vectors(given)
        self.statements = f"{self.config.collection}_statements"
        self.store.conn.execute(
            f"CREATE TABLE IF NOT EXISTS {self.statements} ("
            f" unit_id INTEGER PRIMARY KEY REFERENCES {self.store.table} (id) ON DELETE CASCADE,"
            " speaker TEXT NOT NULL, words TEXT NOT NULL)"
        )
        self._lock = threading.RLock()
        self._spaces: dict[str, tuple[Space, list[int], list[str]]] = {}
        self.store.claim(self.layout())

    def _open_vectors(self, given: Embedder | None) -> VectorIndex | None:
        if given is None and self.config.embedder == "none":
            return None
        if given is None:
            self.config = self.config.model_copy(update={"embedder": self.config.embedder or MiniLMConfig()})
        embedder = given or make_embedder(self.config.embedder)
        conn = self.store.conn
        schema = "main" if self.config.cache_path is None else attach(conn, self.config.cache_path)
        return VectorIndex(self.store, EmbeddingCache(conn, embedder, schema))

    # ------------------------------------------------------------------ protocol

    def add(self, messages: Sequence[MemoryMessage], user_id: str, timestamp: datetime) -> None:
        units = make_units(messages, TURNS)
        if not units:
            return
        with self._lock, transaction(self.store.conn):
            ids = self.store.insert(user_id, units, timestamp)
            rows = [(i, m.speaker, " ".join(statement_words(m))) for i, m in zip(ids, messages, strict=True)]
            self.store.conn.executemany(f"INSERT INTO {self.statements} VALUES (?, ?, ?)", rows)
            if self.vectors is not None:
                chosen = [(i, embed_text(m)) for i, m in zip(ids, messages, strict=True) if self._embeds(m)]
                self.vectors.index(user_id, chosen)
            self._spaces.pop(user_id, None)

    def search(
        self, query: str, user_id: str, top_k: int, before: datetime | None = None
    ) -> list[MemoryItem]:
        if top_k <= 0:
            return []
        with self._lock:
            space, unit_ids, keys = self._space(user_id)
            if not len(space):
                return []
            visible = np.ones(len(space), dtype=bool)
            if before is not None:
                cut = time_key(before)
                visible = np.array([key < cut for key in keys], dtype=bool)
            asked = self._query(query, space)
            if not asked.weights and asked.vector is None:
                return []  # no word to match and no vector: nothing speaks for any statement
            scores = rank(space, asked, visible, self.config.ranking)
            items = group(space, scores, visible, self.config.ranking, top_k)
            return [self._item(unit_ids, score, anchor, members) for score, anchor, members in items]

    def reset(self, user_id: str) -> None:
        with self._lock, transaction(self.store.conn):
            self.store.delete_user(user_id)
            self._spaces.pop(user_id, None)

    def close(self) -> None:
        self.store.conn.close()

    def layout(self) -> dict[str, Any]:
        """What must not change between runs writing the same collection."""
        embedder = None if self.vectors is None else self.vectors.describe()
        return {
            "system": self.name,
            "windowing": TURNS.describe(),
            "statements": "speaker and words of each message, stemmed, clock times left out",
            "vectors": embedder,
            "embed": self.config.embed,
            "lexicon": self.lexicon.describe(),
        }

    def describe(self) -> dict[str, Any]:
        return {
            **self.layout(),
            "path": self.config.path,
            "collection": self.config.collection,
            "ranking": self.config.ranking.model_dump(),
            "items": "one subject's statements in time order, at most ranking.item_tokens tokens",
        }

    def cache_stats(self) -> dict[str, int]:
        return {} if self.vectors is None else self.vectors.cache.stats()

    # ------------------------------------------------------------------ helpers

    def _embeds(self, message: MemoryMessage) -> bool:
        if self.config.embed == "all" or not self.lexicon:
            return True
        return any(word in self.lexicon for word in index_words(message.text))

    def _query(self, text: str, space: Space) -> Query:
        weights = dict.fromkeys(query_terms(text), 1.0)
        vector = None
        if self.vectors is not None:
            vector = self.vectors.cache.embedder.embed([text])[0]
        return Query(weights, vector, frozenset(named_speakers(tokens(text), space.speakers)))

    def _space(self, user_id: str) -> tuple[Space, list[int], list[str]]:
        cached = self._spaces.get(user_id)
        if cached is None:
            cached = self._spaces[user_id] = self._load(user_id)
        return cached

    def _load(self, user_id: str) -> tuple[Space, list[int], list[str]]:
        sql = (
            f"SELECT u.id, u.text, u.last_key, s.speaker, s.words FROM {self.store.table} u"
            f" JOIN {self.statements} s ON s.unit_id = u.id WHERE u.user_id = ? ORDER BY u.id"
        )
        rows = self.store.conn.execute(sql, (user_id,)).fetchall()
        documents = [words.split() for *_, words in rows]
        index = Bm25Index(documents)
        found = [lexicon_words(doc, self.lexicon) for doc in documents]
        space = Space(
            lines=[row[1] for row in rows],
            speakers=[row[3] for row in rows],
            index=index,
            salience=statement_salience(index, found, self.config.ranking.salience_cap),
            lexicon_words=found,
            vectors=self._matrix(user_id, [row[0] for row in rows]),
            minutes=key_minutes([row[2] for row in rows]),
            numbers=np.array([states_number(row[4]) for row in rows], dtype=np.float64),
        )
        return space, [row[0] for row in rows], [row[2] for row in rows]

    def _matrix(self, user_id: str, unit_ids: list[int]) -> np.ndarray | None:
        """The user's vectors, one row per statement in ``unit_ids`` order (zeros where none)."""
        if self.vectors is None or not unit_ids:
            return None
        position = {unit_id: i for i, unit_id in enumerate(unit_ids)}
        sql = (
            f"SELECT v.unit_id, v.vector FROM {self.vectors.table} v"
            f" JOIN {self.store.table} u ON u.id = v.unit_id WHERE u.user_id = ?"
        )
        matrix = None
        for unit_id, blob in self.store.conn.execute(sql, (user_id,)):
            vector = np.frombuffer(blob, dtype=np.float32)
            if matrix is None:
                matrix = np.zeros((len(unit_ids), vector.shape[0]), dtype=np.float32)
            matrix[position[unit_id]] = vector / (np.linalg.norm(vector) or 1.0)
        return matrix

    def _item(self, unit_ids: list[int], score: float, anchor: int, members: list[int]) -> MemoryItem:
        """The members' lines in time order; ``unit_id`` is the anchor's, ``unit_ids`` all of them."""
        hits = [Hit(unit_ids[m], score) for m in members]
        parts = self.store.items(hits)
        return MemoryItem(
            text="\n".join(part.text for part in parts),
            score=score,
            timestamps=tuple(t for part in parts for t in part.timestamps),
            line_ids=tuple(line for part in parts for line in part.line_ids),
            metadata={
                "unit_id": unit_ids[anchor],
                "unit_ids": [unit_ids[m] for m in members],
                "written_at": parts[-1].metadata["written_at"],
            },
        )


def key_minutes(keys: Sequence[str]) -> np.ndarray:
    """Minutes since the epoch of stored time keys (``time_key``: UTC or wall-clock)."""
    stamps = np.array([key.replace(" ", "T") for key in keys], dtype="datetime64[us]")
    return stamps.astype("datetime64[m]").astype(np.int64)


def statement_words(message: MemoryMessage) -> list[str]:
    """What BM25 indexes: the speaker's name and the words said, clock times left out."""
    return index_words(f"{message.speaker} {without_clock_times(message.text)}")


def embed_text(message: MemoryMessage) -> str:
    """What a statement's vector is computed from: who said it and what (no time stamp)."""
    return f"{message.speaker}: {message.text}" if message.speaker else message.text
