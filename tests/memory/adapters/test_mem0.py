"""mem0 in local mode against the fake OpenAI-compatible server (chat + embeddings), offline.

``infer=False`` stores raw messages; ``infer=True`` goes through mem0's extraction prompt, answered
by a fake model that turns every new message into one fact in the JSON shape mem0 2.x parses
(``{"memory": [{"id", "text", "attributed_to"}]}``; mem0 2.x has no separate update step).
"""

from __future__ import annotations

import json
from importlib.util import find_spec

import pytest

from execmem.core.protocols import MemorySystem
from execmem.memory import create_memory
from execmem.testing.fake_server import FakeServer, Reply
from tests.memory.adapters.contract import exercise
from tests.memory.conftest import at, msg

# find_spec, not importorskip: importing mem0 here, before the adapter switches its telemetry off,
# would start mem0's telemetry client.
pytestmark = pytest.mark.skipif(find_spec("mem0") is None, reason='mem0ai missing: pip install -e ".[mem0]"')

KEY_ENV = "EXECMEM_TEST_MEM0_KEY"
HOUR_ONE = [
    msg("2025-03-03 08:30", "Set the seat heater to level two every morning.", 1),
    msg("2025-03-03 08:31", "Seat heater on level two, done.", 2, speaker="Car Assistant"),
]
HOUR_TWO = [msg("2025-03-04 18:05", "Play jazz radio on the drive home.", 3)]
OTHER_USER = [msg("2025-03-03 08:40", "My seat heater must stay off, I run hot.", 1, speaker="Dana Lee")]


def section(prompt: str, title: str) -> str:
    """One ``## title`` section of mem0's extraction prompt."""
    return prompt.split(f"## {title}\n", 1)[1].split("\n\n## ", 1)[0]


def extract_facts(body: dict) -> Reply:
    """One fact per new message: ``<speaker> said: <text>``."""
    prompt = body["messages"][-1]["content"]
    facts = []
    for line in section(prompt, "New Messages").splitlines():
        _role, stamped_speaker, text = line.split(": ", 2)
        speaker = stamped_speaker.split("] ", 1)[1]
        facts.append({"id": str(len(facts)), "text": f"{speaker} said: {text}", "attributed_to": "user"})
    return Reply(content=json.dumps({"memory": facts}))


@pytest.fixture
def server():
    with FakeServer(extract_facts, embedding_dim=64) as running:
        yield running


@pytest.fixture
def build(server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "test-key")
    made = []

    def make(**config):
        options = {"base_url": server.base_url, "api_key_env": KEY_ENV, "model": "fake-llm"}
        options |= {"embedding_model": "fake-embed", "embedding_dims": 64}
        made.append(create_memory("mem0", **options, **config))
        return made[-1]

    yield make
    for memory in made:
        memory.close()


def write_history(memory) -> None:
    memory.add(HOUR_ONE, "gary allen", at("2025-03-03 09:00"))
    memory.add(HOUR_TWO, "gary allen", at("2025-03-04 19:00"))
    memory.add(OTHER_USER, "dana", at("2025-03-03 09:00"))


def test_raw_messages_add_search_isolation_cutoff_reset(build, server):
    memory = build(infer=False)
    assert isinstance(memory, MemorySystem)
    write_history(memory)
    assert server.requests == []  # raw storage calls no model, only the embedder

    hits = memory.search("seat heater level two", "gary allen", top_k=5)
    assert {hit.line_ids for hit in hits[:2]} == {(1,), (2,)}
    first = next(hit for hit in hits if hit.line_ids == (1,))
    assert first.text == "[2025-03-03 08:30] Gary Allen: Set the seat heater to level two every morning."
    assert first.timestamps == (at("2025-03-03 08:30"),)
    assert first.metadata["written_at"] == "2025-03-03T09:00:00"
    assert all("Dana" not in hit.text for hit in hits)

    jazz = memory.search("jazz radio drive home", "gary allen", top_k=5)
    assert jazz[0].line_ids == (3,)
    assert memory.search("jazz radio drive home", "gary allen", top_k=5, before=at("2025-03-04 18:05")) == []
    early = memory.search("seat heater level two", "gary allen", top_k=5, before=at("2025-03-03 08:31"))
    assert [hit.line_ids for hit in early] == [(1,)]  # strictly before: 08:31 itself is hidden

    memory.reset("gary allen")
    assert memory.search("seat heater level two", "gary allen", top_k=5) == []
    assert memory.search("seat heater", "dana", top_k=5)[0].line_ids == (1,)


def test_inferred_facts_carry_their_call_s_source_and_respect_the_cutoff(build, server):
    memory = build(infer=True, threshold=0.0)  # every fact of the space is a candidate
    write_history(memory)
    assert len(server.requests) == 3  # one extraction per add() call
    first = server.requests[0]
    assert first["model"] == "fake-llm" and first["response_format"] == {"type": "json_object"}
    assert "OUTPUT FORMAT" in first["messages"][0]["content"]  # mem0's own extraction prompt
    assert "[2025-03-03 08:30] Gary Allen: Set the seat heater" in section(
        first["messages"][-1]["content"], "New Messages"
    )
    assert memory.usage()["llm_calls"] == 3 and memory.usage()["input_tokens"] > 0

    hits = memory.search("seat heater level two", "gary allen", top_k=5)
    heater = next(hit for hit in hits if hit.text.startswith("Gary Allen said: Set the seat heater"))
    assert heater.timestamps == (at("2025-03-03 08:30"), at("2025-03-03 08:31"))
    assert heater.line_ids == (1, 2)
    assert all(not hit.text.startswith("Dana Lee") for hit in hits)

    cut = memory.search("jazz radio drive home", "gary allen", top_k=5, before=at("2025-03-04 00:00"))
    assert cut and all(max(hit.timestamps) < at("2025-03-04 00:00") for hit in cut)
    assert not any("jazz" in hit.text for hit in cut)
    assert any("jazz" in hit.text for hit in memory.search("jazz radio drive home", "gary allen", top_k=5))


def test_reset_also_forgets_the_recent_messages_mem0_shows_the_model(build, server):
    memory = build(infer=True)
    write_history(memory)
    second = server.requests[1]["messages"][-1]["content"]
    assert "Seat heater on level two, done." in section(second, "Last k Messages")

    memory.reset("gary allen")
    assert memory.search("seat heater level two", "gary allen", top_k=5) == []
    memory.add(HOUR_TWO, "gary allen", at("2025-03-04 19:00"))
    fresh = server.requests[-1]["messages"][-1]["content"]
    assert section(fresh, "Last k Messages") == ""
    assert section(fresh, "Existing Memories") == "[]"
    assert memory.search("seat heater", "dana", top_k=5)  # the other space is untouched


def test_describe_names_the_package_and_settings_but_no_key(build):
    described = build(infer=False).describe()
    assert described["system"] == "mem0" and described["package"].startswith("mem0ai==")
    assert described["infer"] is False and "api_key_env" not in described
    assert "test-key" not in json.dumps(described)


@pytest.mark.parametrize("infer", [False, True])
def test_protocol_contract(build, infer):
    exercise(build(infer=infer, threshold=0.0), "gary allen", "dana")
