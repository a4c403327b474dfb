"""``dense``: units ranked by cosine similarity of their embeddings (numpy, per search).

Vectors are float32 blobs in ``<collection>_vectors``, one per unit, deleted with their unit.
A search loads only the vectors of the user's visible units, so isolation and the cut-off are
the same SQL condition as everywhere else. The embedder is injectable: pass ``embedder=`` (any
object with ``embed`` and ``describe``) to bypass the configured one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from pydantic import BaseModel, Field, field_validator

from execmem.memory.base import StoreConfig, UnitMemory, check_path
from execmem.memory.embedders import Embedder, EmbedderConfig, MiniLMConfig, make_embedder
from execmem.memory.embedding_cache import EmbeddingCache, attach
from execmem.memory.store import Hit, Scope, UnitStore, connect


class VectorIndex:
    """Unit embeddings for a ``UnitStore``, computed through an ``EmbeddingCache``."""

    def __init__(self, store: UnitStore, cache: EmbeddingCache):
        self.store = store
        self.cache = cache
        self.table = f"{store.collection}_vectors"
        store.conn.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table} ("
            f" unit_id INTEGER PRIMARY KEY REFERENCES {store.table} (id) ON DELETE CASCADE,"
            " vector BLOB NOT NULL)"
        )

    def index(self, user_id: str, rows: Sequence[tuple[int, str]]) -> None:
        vectors = self.cache.embed([text for _, text in rows])
        pairs = [(unit_id, vector.tobytes()) for (unit_id, _), vector in zip(rows, vectors, strict=True)]
        self.store.conn.executemany(f"INSERT INTO {self.table} VALUES (?, ?)", pairs)

    def reset(self, user_id: str) -> None:
        """Nothing to do: vectors go with their units (ON DELETE CASCADE)."""

    def rank(self, query: str, scope: Scope, limit: int) -> list[Hit]:
        return self.rank_vector(self.cache.embedder.embed([query])[0], scope, limit)

    def rank_vector(self, query: np.ndarray, scope: Scope, limit: int) -> list[Hit]:
        """The ``limit`` visible units most cosine-similar to ``query``; ties keep storage order."""
        subquery, params = scope.ids_sql()
        sql = f"SELECT unit_id, vector FROM {self.table} WHERE unit_id IN ({subquery}) ORDER BY unit_id"
        rows = self.store.conn.execute(sql, params).fetchall()
        if not rows:
            return []
        matrix = np.stack([np.frombuffer(blob, dtype=np.float32) for _, blob in rows])
        scores = cosine(matrix, query)
        order = np.argsort(-scores, kind="stable")[:limit]
        return [Hit(rows[i][0], float(scores[i])) for i in order]

    def describe(self) -> dict[str, Any]:
        return {"kind": "vectors", "similarity": "cosine", "embedder": self.cache.embedder.describe()}


def cosine(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Cosine similarity of each row with ``vector`` (0 where either is all zeros)."""
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(vector)
    return (matrix @ vector) / np.where(norms == 0, 1.0, norms)


class EmbeddingOptions(BaseModel):
    """The embedding settings systems with vectors share: ``embedder`` (declared by each system,
    a kind name standing for ``{"kind": name}``) and ``cache_path``."""

    cache_path: str | None = Field(default=None, description="shared embedding cache file (absolute)")

    @field_validator("cache_path", mode="before")
    @classmethod
    def _absolute_cache(cls, value: Any) -> str | None:
        return None if value is None else check_path(value)

    @field_validator("embedder", mode="before", check_fields=False)
    @classmethod
    def _kind_shorthand(cls, value: Any) -> Any:
        return {"kind": value} if isinstance(value, str) and value != "none" else value


class DenseConfig(StoreConfig, EmbeddingOptions):
    collection: str = Field(default="dense", description="table-name prefix inside the file")
    embedder: EmbedderConfig | None = Field(
        default=None, description="'minilm' (the default), 'hashing', or a dict with 'kind'"
    )


C = TypeVar("C", bound=DenseConfig)


def open_vectors(config_type: type[C], options: dict[str, Any]) -> tuple[C, VectorIndex]:
    """The config, store and vector index for ``options``.

    ``options["embedder"]`` may be an ``Embedder`` object: it is used as is, and the config's
    ``embedder`` stays None (``describe()`` shows the object's own description).
    """
    given = options.pop("embedder") if isinstance(options.get("embedder"), Embedder) else None
    config = config_type(**options)
    if given is None:
        config = config.model_copy(update={"embedder": config.embedder or MiniLMConfig()})
    embedder = given or make_embedder(config.embedder)
    store = UnitStore(connect(config.path), config.collection)
    schema = "main" if config.cache_path is None else attach(store.conn, config.cache_path)
    return config, VectorIndex(store, EmbeddingCache(store.conn, embedder, schema))


class DenseMemory(UnitMemory):
    """Semantic memory: windowed units ranked by embedding cosine within the user's space.

    ``embedder`` may be an ``Embedder`` object instead of a config (tests use a tiny one).
    """

    name = "dense"

    def __init__(self, **options: Any):
        self.config, self.vectors = open_vectors(DenseConfig, options)
        super().__init__(self.config, self.vectors.store, [self.vectors])

    def rank(self, query: str, scope: Scope, limit: int) -> list[Hit]:
        return self.vectors.rank(query, scope, limit)

    def cache_stats(self) -> dict[str, int]:
        return self.vectors.cache.stats()
