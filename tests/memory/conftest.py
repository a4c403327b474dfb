"""Builders for the embedded memory systems (a tiny deterministic embedder stands in for MiniLM)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pytest

from execmem.core.protocols import MemoryMessage
from execmem.memory.bm25 import Bm25Memory
from execmem.memory.dense import DenseMemory
from execmem.memory.embedders import HashingConfig, HashingEmbedder
from execmem.memory.hybrid import HybridMemory

SYSTEMS = {"bm25": Bm25Memory, "dense": DenseMemory, "hybrid": HybridMemory}


def at(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M")


def msg(stamp: str, text: str, line_id: int | None = None, speaker: str = "Gary Allen") -> MemoryMessage:
    return MemoryMessage(speaker=speaker, text=text, timestamp=at(stamp), line_id=line_id)


class CountingEmbedder:
    """The hashing embedder, counting how many texts it was asked to embed."""

    def __init__(self, dim: int = 64):
        self.inner = HashingEmbedder(HashingConfig(dim=dim))
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.embed(texts)

    def describe(self) -> dict[str, Any]:
        return {"kind": "counting", **self.inner.describe()}


Build = Callable[..., Any]


@pytest.fixture(params=sorted(SYSTEMS))
def build(request) -> Build:
    """Makes the parametrised system (``:memory:`` unless a path is given)."""

    def make(**config: Any):
        if request.param != "bm25":
            config.setdefault("embedder", HashingEmbedder(HashingConfig(dim=64)))
        return SYSTEMS[request.param](**config)

    make.system = request.param
    return make
