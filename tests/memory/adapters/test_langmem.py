"""LangMem's store manager against the fake OpenAI-compatible server (chat + embeddings), offline.

The fake model answers LangMem's extraction call with one ``Memory`` tool call per new message,
the shape LangMem's (trustcall) extractor turns into a stored memory.
"""

from __future__ import annotations

import re
from importlib.util import find_spec

import pytest

from execmem.core.protocols import MemorySystem
from execmem.memory import create_memory
from execmem.testing.fake_server import FakeServer, Reply, ToolCallSpec
from tests.memory.conftest import at, msg

pytestmark = pytest.mark.skipif(
    find_spec("langmem") is None, reason='langmem missing: pip install -e ".[langmem]"'
)

KEY_ENV = "EXECMEM_TEST_LANGMEM_KEY"
LINE = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d\] ([^:\n]+): ([^\n]+)")


def one_memory_per_line(body: dict) -> Reply:
    prompt = "\n".join(str(m.get("content")) for m in body["messages"] if m.get("role") != "system")
    calls = [ToolCallSpec("Memory", {"content": f"{who} said: {what}"}) for who, what in LINE.findall(prompt)]
    return Reply(tool_calls=calls)


@pytest.fixture
def memory(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "test-key")
    with FakeServer(one_memory_per_line, embedding_dim=64) as server:
        yield create_memory(
            "langmem",
            base_url=server.base_url,
            api_key_env=KEY_ENV,
            model="fake-llm",
            embedding_model="fake-embed",
            embedding_dims=64,
        )


def test_add_search_isolation_cutoff_reset(memory):
    assert isinstance(memory, MemorySystem)
    memory.add(
        [msg("2025-03-03 08:30", "Set the seat heater to level two.", 1)],
        "gary allen",
        at("2025-03-03 09:00"),
    )
    memory.add(
        [msg("2025-03-04 18:05", "Play jazz radio on the way home.", 2)], "gary allen", at("2025-03-04 19:00")
    )
    memory.add(
        [msg("2025-03-03 08:40", "Seat heater off for me.", 1, speaker="Dana")],
        "dana",
        at("2025-03-03 09:00"),
    )

    hits = memory.search("seat heater level two", "gary allen", top_k=5)
    heater = next(hit for hit in hits if "seat heater" in hit.text)
    assert heater.text == "Gary Allen said: Set the seat heater to level two."
    assert (heater.timestamps, heater.line_ids) == ((at("2025-03-03 08:30"),), (1,))
    assert all("Dana" not in hit.text for hit in hits)

    early = memory.search("jazz radio", "gary allen", top_k=5, before=at("2025-03-04 18:05"))
    assert early and all("jazz" not in hit.text for hit in early)
    assert any("jazz" in hit.text for hit in memory.search("jazz radio", "gary allen", top_k=5))

    memory.reset("gary allen")
    assert memory.search("seat heater", "gary allen", top_k=5) == []
    assert memory.search("seat heater", "dana", top_k=5)
    assert memory.describe()["system"] == "langmem"
