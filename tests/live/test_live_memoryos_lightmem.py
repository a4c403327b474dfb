"""Opt-in: the MemoryOS and LightMem adapters against their real libraries and a real model endpoint.

Both need EXECMEM_LIVE_MODEL (optional: EXECMEM_LIVE_BASE_URL, EXECMEM_LIVE_KEY_ENV naming the key's
variable, default OPENAI_API_KEY) and are skipped unless switched on:

* MemoryOS: EXECMEM_LIVE_MEMORYOS=1 (``pip install -e ".[memoryos]"`` and ``pip install --no-deps
  memoryos-pro==0.1.0``); optional EXECMEM_LIVE_EMBEDDING_MODEL embeds through the endpoint
  instead of the packaged MiniLM.
* LightMem: EXECMEM_LIVE_LIGHTMEM=1 (``pip install -e ".[lightmem]"``, from its repository);
  EXECMEM_LIVE_LIGHTMEM_LLMLINGUA names an LLMLingua-2 model (hub name or directory; without it
  pre-compression and topic segmentation are off), EXECMEM_LIVE_LIGHTMEM_EMBEDDING a
  sentence-transformers model (default all-MiniLM-L6-v2 from the hub), or with
  EXECMEM_LIVE_EMBEDDING_MODEL the endpoint embeds (EXECMEM_LIVE_EMBEDDING_DIMS, default 1536).

Each run uses the short-term and extraction settings that send every exchange through the
library's model at once, writes fresh user spaces and resets them (the contract checks reset).
"""

from __future__ import annotations

import os
from importlib.util import find_spec
from typing import Any

import pytest

from execmem.memory import create_memory
from tests.memory.adapters.test_live_adapters import env, live, run


def endpoint() -> dict[str, Any]:
    return {
        "base_url": env("EXECMEM_LIVE_BASE_URL"),
        "api_key_env": env("EXECMEM_LIVE_KEY_ENV", "OPENAI_API_KEY"),
        "model": env("EXECMEM_LIVE_MODEL"),
    }


@live("EXECMEM_LIVE_MEMORYOS", "EXECMEM_LIVE_MODEL")
def test_memoryos_live(tmp_path):
    if find_spec("memoryos") is None:
        pytest.skip("memoryos-pro is not installed: pip install --no-deps memoryos-pro==0.1.0")
    options: dict[str, Any] = {"short_term_capacity": 1, "mid_term_heat_threshold": 1.0}
    if env("EXECMEM_LIVE_EMBEDDING_MODEL"):
        options |= {"embedder": "openai", "embedding_model": env("EXECMEM_LIVE_EMBEDDING_MODEL")}
    memory = create_memory("memoryos", path=str(tmp_path), **endpoint(), **options)
    run(memory)
    assert memory.usage()["llm_calls"] > 0 and memory.usage()["failed_calls"] == 0


@live("EXECMEM_LIVE_LIGHTMEM", "EXECMEM_LIVE_MODEL")
def test_lightmem_live(tmp_path):
    if find_spec("lightmem") is None:
        pytest.skip('lightmem is not installed: pip install -e ".[lightmem]"')
    llmlingua = env("EXECMEM_LIVE_LIGHTMEM_LLMLINGUA")
    options: dict[str, Any] = {"pre_compress": bool(llmlingua), "topic_segment": bool(llmlingua)}
    if llmlingua:
        options["llmlingua_model"] = llmlingua
    if env("EXECMEM_LIVE_EMBEDDING_MODEL"):
        dims = int(os.environ.get("EXECMEM_LIVE_EMBEDDING_DIMS", "1536"))
        options |= {
            "embedder": "openai",
            "embedding_model": env("EXECMEM_LIVE_EMBEDDING_MODEL"),
            "embedding_dims": dims,
        }
    elif env("EXECMEM_LIVE_LIGHTMEM_EMBEDDING"):
        options["embedding_model"] = env("EXECMEM_LIVE_LIGHTMEM_EMBEDDING")
    memory = create_memory("lightmem", path=str(tmp_path), **endpoint(), **options)
    run(memory)
    assert memory.usage()["llm_calls"] > 0 and memory.usage()["failed_calls"] == 0
    memory.close()
