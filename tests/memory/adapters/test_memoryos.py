"""The MemoryOS adapter: against an in-process fake of ``memoryos-pro``, and against the real library
behind the fake OpenAI-compatible server (chat and embeddings), when it is installed.

Pairs reach MemoryOS's mid-term pages and long-term knowledge only once the short-term queue
overflows and a session is hot enough, so most tests use ``short_term_capacity=1`` and
``mid_term_heat_threshold=1``: every pair is paged at once and knowledge is extracted at once.
"""

from __future__ import annotations

import json
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from execmem.core.protocols import MemorySystem
from execmem.memory import MissingExtraError, create_memory
from execmem.memory.adapters.call_meter import ModelCallError
from execmem.memory.adapters.memoryos import MemoryOSConfig, MemoryOSMemory
from execmem.memory.adapters.memoryos_embedding import MEMORYOS_MODEL, EmbedderEncoder
from execmem.memory.embedders import HashingConfig, HashingEmbedder
from execmem.testing.fake_memoryos import PLACEHOLDER, fake_modules
from execmem.testing.fake_policies import Fault
from execmem.testing.fake_server import FakeServer
from execmem.testing.memoryos_model import memoryos_policy
from tests.memory.adapters.contract import CUT, EARLY, LATE, OTHER, exercise
from tests.memory.conftest import at, msg

EAGER = {"short_term_capacity": 1, "mid_term_heat_threshold": 1.0}
real_memoryos = pytest.mark.skipif(
    find_spec("memoryos") is None or find_spec("faiss") is None,
    reason='memoryos-pro missing: pip install -e ".[memoryos]" && pip install --no-deps memoryos-pro==0.1.0',
)


@pytest.fixture
def server():
    with FakeServer(memoryos_policy, embedding_dim=64) as running:
        yield running


@pytest.fixture
def fake(monkeypatch):
    for name, module in fake_modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    return fake_modules


def build(server, **options) -> MemoryOSMemory:
    endpoint = {"base_url": server.base_url, "embedder": "openai", "embedding_model": "fake-embed"}
    return create_memory("memoryos", **endpoint, **options)


# ---------------------------------------------------------------- the fake library


def test_fake_contract_spaces_and_reset(fake, server, tmp_path):
    memory = build(server, path=str(tmp_path), **EAGER)
    assert isinstance(memory, MemorySystem)
    exercise(memory, "gary allen", "dana")
    bob = memory.system("dana")
    assert (bob.user_id, bob.assistant_id) == ("dana", "dana")  # assistant knowledge is per space too
    assert (tmp_path / "assistants" / "dana").is_dir() and (tmp_path / "execmem" / "dana.json").is_file()
    assert not (tmp_path / "users" / "gary_20allen").exists()  # reset removed alice's folders and ledger
    assert not (tmp_path / "assistants" / "gary_20allen").exists()
    assert not (tmp_path / "execmem" / "gary_20allen.json").exists()


def test_fake_pairs_knowledge_and_profile_carry_their_sources(fake, server):
    memory = build(server, **EAGER, assistant_speakers=("Car Assistant",))
    hour = [*EARLY, msg("2025-03-03 08:31", "Seat heater on two.", 5, speaker="Car Assistant")]
    memory.add(hour, "gary", at("2025-03-03 09:00"))
    memory.add(LATE, "gary", at("2025-03-04 19:00"))
    (page,) = memory.system("gary").state["pages"][:1]
    assert (
        page["user_input"] == "[2025-03-03 08:30] Gary Allen: Set the seat heater to level two every morning."
    )
    assert page["agent_response"] == "[2025-03-03 08:31] Car Assistant: Seat heater on two."
    assert page["timestamp"] == "2025-03-03 08:31:00"  # the pair's latest message

    items = memory.search("seat heater level two", "gary", 10)
    stores = {item.metadata["store"]: item for item in items}
    assert (
        stores["pages"].line_ids == (1, 5) and stores["pages"].metadata["written_at"] == "2025-03-03T09:00:00"
    )
    assert stores["pages"].text == f"{page['user_input']}\n{page['agent_response']}"
    assert stores["user_knowledge"].timestamps == (at("2025-03-03 08:30"), at("2025-03-03 08:31"))
    assert max(stores["profile"].timestamps) == at("2025-03-04 18:05")  # rewritten by the later call
    assert [item.score for item in items] == [1 / rank for rank in range(1, len(items) + 1)]

    early = memory.search("seat heater level two", "gary", 10, before=CUT)
    assert {item.metadata["store"] for item in early} == {"pages", "user_knowledge", "assistant_knowledge"}
    at_jazz, after_jazz = at("2025-03-04 18:05"), at("2025-03-04 18:06")  # strictly before
    assert not any(
        "jazz" in i.text for i in memory.search("jazz radio drive home", "gary", 10, before=at_jazz)
    )
    assert any(
        "jazz" in i.text for i in memory.search("jazz radio drive home", "gary", 10, before=after_jazz)
    )


def test_fake_short_term_pairs_come_last_newest_first_without_a_reply_placeholder(fake, server):
    memory = build(server, stores=("short_term",))  # capacity 10: nothing leaves the queue
    memory.add(EARLY, "gary", at("2025-03-03 09:00"))
    memory.add(LATE, "gary", at("2025-03-04 19:00"))
    assert memory.system("gary").state["short"][0]["agent_response"] == "(no reply)"
    items = memory.search("anything", "gary", 5)
    assert [item.line_ids for item in items] == [(2,), (1,)]
    assert items[1].text == "[2025-03-03 08:30] Gary Allen: Set the seat heater to level two every morning."
    assert [i.line_ids for i in memory.search("anything", "gary", 5, before=CUT)] == [(1,)]


def test_fake_knowledge_derived_later_is_stamped_no_earlier_than_what_was_written(fake, server):
    memory = build(server, short_term_capacity=1, mid_term_heat_threshold=2.0)
    memory.add(LATE, "gary", at("2025-03-04 19:00"))  # written first, paged, not yet analysed
    memory.add(EARLY, "gary", at("2025-03-03 09:00"))  # its add() extracts knowledge from both pages
    knowledge = [
        i for i in memory.search("seat heater jazz", "gary", 10) if i.metadata["store"] == "user_knowledge"
    ]
    assert len(knowledge) == 2 and all(i.timestamps == (at("2025-03-03 08:30"),) for i in knowledge)
    assert all(
        i.metadata["store"] != "user_knowledge" for i in memory.search("seat heater", "gary", 10, before=CUT)
    )


def test_fake_failed_model_calls_raise_instead_of_storing_placeholders(fake, server):
    memory = build(server, **EAGER)
    memory.add(EARLY, "gary", at("2025-03-03 09:00"))
    assert memory.usage()["llm_calls"] > 0 and memory.usage()["failed_calls"] == 0
    memory.system("gary").client.client.chat.completions.fail = True
    with pytest.raises(ModelCallError, match="add\\(\\): .*ConnectionError: fake endpoint is down"):
        memory.add(LATE, "gary", at("2025-03-04 19:00"))
    assert PLACEHOLDER in json.dumps(memory.system("gary").state)  # what MemoryOS itself kept
    with pytest.raises(ModelCallError, match="search"):
        memory.search("seat heater", "gary", 5)


def test_fake_encoders_switch_per_adapter_and_empty_memoryos_s_text_cache(fake, server):
    first, second = build(server, **EAGER), build(server, **EAGER)
    second._encoder = EmbedderEncoder(HashingEmbedder(HashingConfig(dim=32)))
    utils = sys.modules["memoryos.utils"]
    first.add(EARLY, "gary", at("2025-03-03 09:00"))
    assert utils._model_cache[MEMORYOS_MODEL] is first._encoder
    utils._embedding_cache["stale"] = 1
    second.add(EARLY, "gary", at("2025-03-03 09:00"))
    assert utils._model_cache[MEMORYOS_MODEL] is second._encoder and "stale" not in utils._embedding_cache
    assert len(second.system("gary").state["pages"][0]["page_embedding"]) == 32


def test_fake_state_and_stamps_survive_a_new_adapter_on_the_same_path(fake, server, tmp_path):
    build(server, path=str(tmp_path), **EAGER).add(EARLY, "gary", at("2025-03-03 09:00"))
    again = build(server, path=str(tmp_path), **EAGER)
    (page,) = [i for i in again.search("seat heater", "gary", 5) if i.metadata["store"] == "pages"]
    assert page.line_ids == (1,)
    assert again.search("seat heater", "nobody", 5) == [] and "nobody" not in again._systems


def test_config_describe_and_missing_library(fake, server, monkeypatch):
    with pytest.raises(ValueError, match="embedding_model"):
        MemoryOSConfig(embedder="sentence-transformers")
    with pytest.raises(ValueError, match="absolute"):
        MemoryOSConfig(path="relative")
    described = build(server, **EAGER).describe()
    assert described["system"] == "memoryos" and described["package"].startswith("memoryos-pro==")
    assert described["stores"] == ["pages", "user_knowledge", "assistant_knowledge", "profile", "short_term"]
    assert "api_key_env" not in described
    monkeypatch.setitem(sys.modules, "memoryos", None)
    with pytest.raises(MissingExtraError, match=r'pip install "execmem\[memoryos\]"'):
        MemoryOSMemory(base_url=server.base_url, embedder="openai")


# ---------------------------------------------------------------- the real library


@real_memoryos
def test_real_memoryos_contract(server, tmp_path):
    memory = build(server, path=str(tmp_path), **EAGER)
    exercise(memory, "gary allen", "dana")
    assert server.errors == [] and memory.usage()["failed_calls"] == 0
    assert memory.usage()["llm_calls"] == len(server.requests) > 0


@real_memoryos
def test_real_memoryos_pages_and_knowledge_keep_exact_sources(server):
    memory = build(server, **EAGER)
    memory.add(EARLY, "gary", at("2025-03-03 09:00"))
    memory.add(LATE, "gary", at("2025-03-04 19:00"))
    memory.add(OTHER, "dana", at("2025-03-03 09:00"))
    items = memory.search("seat heater level two morning", "gary", 10)
    (page,) = [i for i in items if i.metadata["store"] == "pages"]
    assert page.line_ids == (1,) and page.timestamps == (at("2025-03-03 08:30"),)
    assert page.metadata["memoryos_timestamp"] == "2025-03-03 08:30:00"
    (heater,) = [i for i in items if i.metadata["store"] == "user_knowledge" and "heater" in i.text]
    assert (
        heater.text
        == "- User said: [2025-03-03 08:30] Gary Allen: Set the seat heater to level two every morning."
    )
    assert heater.line_ids == (1,)
    jazz = memory.search("jazz radio drive home", "gary", 10)
    assert any("jazz" in i.text for i in jazz)
    assert not any("jazz" in i.text for i in memory.search("jazz radio drive home", "gary", 10, before=CUT))
    assert not any("xylophone" in i.text for i in memory.search("xylophone practice", "gary", 10))


@real_memoryos
def test_real_memoryos_refused_model_calls_raise(server):
    memory = build(server, **EAGER)
    server.policy = lambda body: Fault(400)  # not retried by the openai client
    with pytest.raises(ModelCallError, match="MemoryOS add\\(\\)"):
        memory.add(EARLY, "gary", at("2025-03-03 09:00"))
    assert memory.usage()["failed_calls"] > 0


@real_memoryos
def test_real_memoryos_short_term_pairs_need_no_model_until_they_are_searched(server, tmp_path):
    memory = build(server, path=str(tmp_path))
    memory.add(EARLY + LATE, "gary", at("2025-03-04 19:00"))  # one pair: both lines are the user's
    assert server.requests == []
    (item,) = memory.search("seat heater", "gary", 5)
    assert item.metadata["store"] == "short_term" and item.line_ids == (1, 2)
    assert json.loads(Path(tmp_path, "users", "gary", "short_term.json").read_text())[0][
        "agent_response"
    ] == ("(no reply)")
