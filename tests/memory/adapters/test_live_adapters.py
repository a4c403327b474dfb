"""Opt-in: each adapter against its real service (or a real model endpoint), skipped unless configured.

* mem0, langmem: EXECMEM_LIVE_MODEL and EXECMEM_LIVE_EMBEDDING_MODEL (optional: EXECMEM_LIVE_BASE_URL,
  EXECMEM_LIVE_KEY_ENV naming the key's variable (default OPENAI_API_KEY), EXECMEM_LIVE_EMBEDDING_DIMS);
* supermemory: SUPERMEMORY_API_KEY (optional: SUPERMEMORY_BASE_URL);
* letta: LETTA_BASE_URL (optional: LETTA_API_KEY, LETTA_MODEL, LETTA_EMBEDDING);
* memobase: MEMOBASE_URL (optional: MEMOBASE_API_KEY);
* memos: MEMOS_URL (optional: MEMOS_API_KEY).

Every test writes to fresh, uniquely named user spaces and resets them at the end.
"""

from __future__ import annotations

import os
import uuid
from importlib.util import find_spec
from typing import Any

import pytest

from execmem.memory import create_memory
from tests.memory.adapters.contract import exercise

env = os.environ.get


def live(*names: str):
    missing = [name for name in names if not env(name)]
    return pytest.mark.skipif(bool(missing), reason=f"set {', '.join(missing)} to run this live adapter test")


def need(module: str, extra: str) -> None:
    # find_spec, not importorskip: importing mem0 before its adapter would switch on its telemetry
    if find_spec(module) is None:
        pytest.skip(f'{module} is not installed: pip install -e ".[{extra}]"')


def run(memory: Any) -> None:
    tag = uuid.uuid4().hex[:8]
    alice, bob = f"execmem-test-{tag}-alice", f"execmem-test-{tag}-bob"
    try:
        exercise(memory, alice, bob)
    finally:
        memory.reset(alice)
        memory.reset(bob)


def model_endpoint() -> dict[str, Any]:
    options = {
        "base_url": env("EXECMEM_LIVE_BASE_URL"),
        "api_key_env": env("EXECMEM_LIVE_KEY_ENV", "OPENAI_API_KEY"),
        "model": env("EXECMEM_LIVE_MODEL"),
        "embedding_model": env("EXECMEM_LIVE_EMBEDDING_MODEL"),
    }
    if env("EXECMEM_LIVE_EMBEDDING_DIMS"):
        options["embedding_dims"] = int(env("EXECMEM_LIVE_EMBEDDING_DIMS"))
    return options


@live("EXECMEM_LIVE_MODEL", "EXECMEM_LIVE_EMBEDDING_MODEL")
@pytest.mark.parametrize("infer", [False, True])
def test_mem0_live(infer):
    need("mem0", "mem0")
    run(create_memory("mem0", infer=infer, **model_endpoint()))


@live("EXECMEM_LIVE_MODEL", "EXECMEM_LIVE_EMBEDDING_MODEL")
def test_langmem_live():
    need("langmem", "langmem")
    run(create_memory("langmem", **model_endpoint()))


@live("SUPERMEMORY_API_KEY")
def test_supermemory_live():
    need("supermemory", "supermemory")
    run(create_memory("supermemory", base_url=env("SUPERMEMORY_BASE_URL")))


@live("LETTA_BASE_URL")
def test_letta_live():
    need("letta_client", "letta")
    handles = {
        key: env(var) for key, var in (("model", "LETTA_MODEL"), ("embedding", "LETTA_EMBEDDING")) if env(var)
    }
    run(create_memory("letta", base_url=env("LETTA_BASE_URL"), **handles))


@live("MEMOBASE_URL")
def test_memobase_live():
    need("memobase", "memobase")
    run(create_memory("memobase", base_url=env("MEMOBASE_URL")))


@live("MEMOS_URL")
def test_memos_live():
    run(create_memory("memos", base_url=env("MEMOS_URL")))
