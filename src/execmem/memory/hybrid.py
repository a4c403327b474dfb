"""``hybrid``: reciprocal-rank fusion of ``bm25`` and ``dense`` over the same stored units.

Each unit is stored once and indexed twice (FTS5 table per user, vector per unit). A search
takes the top ``candidates`` of each ranking and scores a unit ``sum(1 / (rrf_k + rank))`` over
the rankings it appears in (ranks from 1); ``metadata`` says its rank in each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from execmem.memory.base import UnitMemory
from execmem.memory.bm25 import FtsIndex
from execmem.memory.dense import DenseConfig, open_vectors
from execmem.memory.store import Hit, Scope


def rrf(rankings: Mapping[str, Sequence[Hit]], k: int = 60) -> list[Hit]:
    """Fuse named rankings (best first) by reciprocal rank; ties go to the older unit."""
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for name, hits in rankings.items():
        for rank, hit in enumerate(hits, start=1):
            scores[hit.unit_id] = scores.get(hit.unit_id, 0.0) + 1.0 / (k + rank)
            ranks.setdefault(hit.unit_id, {})[f"{name}_rank"] = rank
    order = sorted(scores, key=lambda unit_id: (-scores[unit_id], unit_id))
    return [Hit(unit_id, scores[unit_id], ranks[unit_id]) for unit_id in order]


class HybridConfig(DenseConfig):
    collection: str = Field(default="hybrid", description="table-name prefix inside the file")
    rrf_k: int = Field(default=60, ge=1, description="RRF constant: larger flattens the rank weights")
    candidates: int = Field(default=50, ge=1, description="hits taken from each ranking before fusion")


class HybridMemory(UnitMemory):
    """Keyword and semantic rankings of the user's units, fused by reciprocal rank.

    ``embedder`` may be an ``Embedder`` object instead of a config, as for ``dense``.
    """

    name = "hybrid"

    def __init__(self, **options: Any):
        self.config, self.vectors = open_vectors(HybridConfig, options)
        self.fts = FtsIndex(self.vectors.store)
        super().__init__(self.config, self.vectors.store, [self.fts, self.vectors])

    def rank(self, query: str, scope: Scope, limit: int) -> list[Hit]:
        depth = max(limit, self.config.candidates)
        rankings = {
            "bm25": self.fts.rank(query, scope, depth),
            "dense": self.vectors.rank(query, scope, depth),
        }
        return rrf(rankings, self.config.rrf_k)[:limit]

    def cache_stats(self) -> dict[str, int]:
        return self.vectors.cache.stats()
