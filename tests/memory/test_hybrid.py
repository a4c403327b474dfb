"""Reciprocal-rank fusion, alone and over the stored units."""

from __future__ import annotations

import pytest

from execmem.memory.embedders import HashingConfig, HashingEmbedder
from execmem.memory.hybrid import HybridMemory, rrf
from execmem.memory.store import Hit
from tests.memory.conftest import at, msg


def hits(*unit_ids: int) -> list[Hit]:
    return [Hit(unit_id, 0.0) for unit_id in unit_ids]


def test_rrf_sums_reciprocal_ranks():
    fused = rrf({"bm25": hits(1, 2, 3), "dense": hits(3, 1)}, k=60)
    assert [hit.unit_id for hit in fused] == [1, 3, 2]
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 62)
    assert fused[1].score == pytest.approx(1 / 63 + 1 / 61)
    assert fused[2].details == {"bm25_rank": 2}
    assert fused[1].details == {"bm25_rank": 3, "dense_rank": 1}


def test_rrf_k_sets_how_much_a_top_rank_counts_against_agreement():
    rankings = {"bm25": hits(1, 3, 4, 2), "dense": hits(5, 6, 7, 2)}
    assert rrf(rankings, k=1)[0].unit_id == 1  # 1/2 beats 2/5: one first place wins
    assert rrf(rankings, k=60)[0].unit_id == 2  # 2/64 beats 1/61: agreement wins


def test_hybrid_fuses_keyword_and_vector_rankings():
    memory = HybridMemory(
        embedder=HashingEmbedder(HashingConfig(dim=64)), windowing="turn", rrf_k=10, candidates=5
    )
    memory.add(
        [
            msg("2025-03-03 08:30", "Ambient light green please.", 1),
            msg("2025-03-03 08:31", "Seat heater to level two.", 2),
            msg("2025-03-03 08:32", "Navigate to the forestry office.", 3),
        ],
        "gary",
        at("2025-03-03 09:00"),
    )
    items = memory.search("ambient light", "gary", 3)
    assert items[0].line_ids == (1,)
    assert items[0].metadata["bm25_rank"] == 1 and items[0].metadata["dense_rank"] == 1
    assert items[0].score == pytest.approx(2 / 11)
    vector_only = [item for item in items if "bm25_rank" not in item.metadata]
    assert len(vector_only) == 2 and all("dense_rank" in item.metadata for item in vector_only)
    assert memory.describe()["settings"]["rrf_k"] == 10
