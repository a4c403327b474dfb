"""A-MEM and SimpleMem adapters against in-process fakes of their library classes, plus opt-in live runs.

The fakes are installed as the modules the adapters import (``agentic_memory.memory_system``,
``simplemem``), shaped like ``a-mem`` 0.2.6 and ``simplemem`` 0.1.0: notes/entries per storage
directory or table, ranked by word overlap. Live runs (skipped unless configured):

* A-MEM: ``EXECMEM_LIVE_AMEM=1`` and ``EXECMEM_LIVE_MODEL`` (optional: ``EXECMEM_LIVE_BASE_URL``,
  ``EXECMEM_LIVE_KEY_ENV`` (default OPENAI_API_KEY), ``EXECMEM_LIVE_AMEM_EMBEDDING`` (a
  sentence-transformers name or local directory));
* SimpleMem: ``EXECMEM_LIVE_SIMPLEMEM=1`` and ``EXECMEM_LIVE_MODEL`` (same optional variables, and
  ``EXECMEM_LIVE_SIMPLEMEM_EMBEDDING``).
"""

from __future__ import annotations

import itertools
import os
import sys
import types
import uuid
from types import SimpleNamespace as Obj
from typing import Any

import pytest

from execmem.memory import create_memory
from execmem.memory.adapters.amem import AMemConfig, AMemMemory, record_of, record_text
from execmem.memory.adapters.simplemem import SimpleMemMemory
from execmem.memory.registry import MissingExtraError
from execmem.testing.fake_amem_simplemem import FakeAgenticMemorySystem, FakeSimpleMemSystem
from execmem.testing.fake_memory_services import overlap
from tests.memory.adapters.contract import CUT, EARLY, LATE, exercise
from tests.memory.conftest import at, msg

_ids = itertools.count(1)


@pytest.fixture
def fake_amem(monkeypatch):
    module = types.ModuleType("agentic_memory.memory_system")
    module.AgenticMemorySystem = FakeAgenticMemorySystem
    monkeypatch.setitem(sys.modules, "agentic_memory", types.ModuleType("agentic_memory"))
    monkeypatch.setitem(sys.modules, "agentic_memory.memory_system", module)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    FakeAgenticMemorySystem.stores, FakeAgenticMemorySystem.built = {}, []
    return FakeAgenticMemorySystem


@pytest.mark.parametrize("retrieval", ["agentic", "vector"])
def test_amem_contract(fake_amem, retrieval):
    memory = AMemMemory(retrieval=retrieval)
    exercise(memory, "gary allen", "dana")
    paths = {options["storage_path"] for options in fake_amem.built}
    assert paths == {f"{memory.root}/gary_20allen", f"{memory.root}/dana"}
    memory.close()
    assert not os.path.exists(memory.root)


def test_amem_note_mapping(fake_amem, tmp_path):
    memory = AMemMemory(path=str(tmp_path), llm_model="m", model_name="/models/minilm")
    memory.add(EARLY + LATE, "gary", at("2025-03-04 19:00"))
    (system,) = memory._systems.values()
    first, second = system.notes.values()
    assert first.content == "[2025-03-03 08:30] Gary Allen: Set the seat heater to level two every morning."
    assert (first.timestamp, second.timestamp) == ("202503030830", "202503041805")  # one note per message
    assert record_of(first.category)["execmem_line_ids"] == "1"
    assert fake_amem.built[0] == {
        "model_name": "/models/minilm",
        "llm_backend": "openai",
        "llm_model": "m",
        "evo_threshold": 100,
        "storage_path": f"{tmp_path}/gary",
        "api_key": "sk-test",
    }

    (item,) = memory.search("seat heater level two", "gary", 1)
    assert item.timestamps == (at("2025-03-03 08:30"),) and item.line_ids == (1,)
    assert item.score == pytest.approx(1 / (1 + 1 - overlap("seat heater level two", first.content)))
    assert item.metadata["amem_timestamp"] == "202503030830" and item.metadata["neighbor"] is False
    assert item.metadata["written_at"] == at("2025-03-04 19:00").isoformat()

    # linked neighbours come back with score 0; the cut-off is exact below A-MEM's minutes
    hits = memory.search("jazz radio", "gary", 5)
    assert [h.metadata["neighbor"] for h in hits] == [False, True] and hits[1].score == 0.0
    assert memory.search("jazz radio drive", "gary", 5, before=at("2025-03-04 18:05")) == []
    assert memory.search("jazz radio drive", "gary", 5, before=at("2025-03-04 18:06"))

    # another process over the same directory sees the notes; foreign notes are hidden by a cut-off
    again = AMemMemory(path=str(tmp_path))
    assert again.search("seat heater", "gary", 5)
    system.add_note("seat heater written elsewhere", time="202501010000")
    assert not any(
        "elsewhere" in i.text for i in again.search("seat heater elsewhere", "gary", 5, before=CUT)
    )
    assert again.search("anything", "nobody", 5) == [] and "nobody" not in again._systems
    again.reset("gary")
    assert memory.search("seat heater", "gary", 5) == []


def test_amem_endpoint(fake_amem, monkeypatch):
    memory = AMemMemory(base_url="http://localhost:8000/v1", api_key_env="EXECMEM_UNSET_KEY")
    memory.add(EARLY, "gary", at("2025-03-03 09:00"))
    client = memory._systems["gary"].llm_controller.llm.client
    assert str(client.base_url).startswith("http://localhost:8000/v1") and client.api_key == "not-set"

    sglang = AMemMemory(llm_backend="sglang", base_url="http://gpu-box:30001")
    sglang.add(EARLY, "gary", at("2025-03-03 09:00"))
    assert (
        fake_amem.built[-1]["sglang_host"] == "http://gpu-box" and fake_amem.built[-1]["sglang_port"] == 30001
    )

    with pytest.raises(ValueError, match="no base URL"):
        AMemConfig(llm_backend="ollama", base_url="http://localhost:11434")
    with pytest.raises(ValueError, match="absolute"):
        AMemConfig(path="relative/dir")
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        AMemMemory().add(EARLY, "gary", at("2025-03-03 09:00"))
    assert AMemMemory().describe()["system"] == "amem"


def test_amem_record_text_is_opaque_to_amem():
    record = {"execmem_time": 1.5, "execmem_times": "2025-03-03T08:30:00", "execmem_line_ids": "1"}
    text = record_text(record)
    assert not text.startswith(("[", "{")) and not text.replace(".", "", 1).isdigit()  # a-mem's parsing
    assert record_of(text) == record
    assert record_of("Uncategorized") == {} and record_of(None) == {} and record_of("execmem {bad") == {}


def test_amem_missing_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "agentic_memory", None)
    monkeypatch.setitem(sys.modules, "agentic_memory.memory_system", None)
    with pytest.raises(MissingExtraError, match=r'pip install "execmem\[amem\]"'):
        AMemMemory()


# ---------------------------------------------------------------- simplemem


@pytest.fixture
def fake_simplemem(monkeypatch):
    module = types.ModuleType("simplemem")
    module.SimpleMemSystem = FakeSimpleMemSystem
    module.get_config = lambda: FakeSimpleMemSystem.config
    monkeypatch.setitem(sys.modules, "simplemem", module)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    FakeSimpleMemSystem.tables, FakeSimpleMemSystem.built = {}, []
    return FakeSimpleMemSystem


@pytest.mark.parametrize("retrieval", ["semantic", "hybrid"])
def test_simplemem_contract(fake_simplemem, retrieval):
    memory = SimpleMemMemory(retrieval=retrieval)
    exercise(memory, "gary allen", "dana")
    assert {options["table_name"] for options in fake_simplemem.built} == {
        "execmem_gary_20allen",
        "execmem_dana",
    }
    assert fake_simplemem.built[0]["enable_planning"] is (retrieval == "hybrid")
    memory.close()
    assert not os.path.exists(memory.root)


def test_simplemem_entry_mapping(fake_simplemem, tmp_path):
    memory = SimpleMemMemory(
        path=str(tmp_path), model="m", embedding_model="/models/qwen3", base_url="http://x/v1"
    )
    memory.add(
        EARLY + [msg("2025-03-03 08:45", "And warm the steering wheel.", 2)], "gary", at("2025-03-03 09:00")
    )
    built = fake_simplemem.built[0]
    assert (built["model"], built["base_url"], built["embedding_model"]) == (
        "m",
        "http://x/v1",
        "/models/qwen3",
    )
    assert built["api_key"] == "sk-test" and built["db_path"] == str(tmp_path)

    (item,) = memory.search("seat heater level", "gary", 1)
    assert (
        item.text == "Gary Allen said: Set the seat heater to level two every morning." and item.score == 1.0
    )
    # every entry of one add() call carries that call's record: all its times, its latest time
    assert item.timestamps == (at("2025-03-03 08:30"), at("2025-03-03 08:45")) and item.line_ids == (1, 2)
    assert item.metadata["simplemem_timestamp"] == "2025-03-03T08:30:00" and item.metadata["persons"] == [
        "Gary Allen"
    ]
    assert memory.search("seat heater", "gary", 5, before=at("2025-03-03 08:45")) == []
    assert memory.search("seat heater", "gary", 5, before=at("2025-03-03 08:46"))

    # the records survive the process (side file); entries without one are hidden by a cut-off
    again = SimpleMemMemory(path=str(tmp_path))
    assert [i.line_ids for i in again.search("seat heater", "gary", 5, before=CUT)] == [(1, 2)]
    fake_simplemem.tables[(str(tmp_path), "execmem_gary")].append(
        Obj(
            entry_id="foreign",
            lossless_restatement="seat heater foreign",
            timestamp=None,
            keywords=[],
            persons=[],
            location=None,
            topic=None,
        )
    )
    assert "foreign" not in {
        i.metadata["id"] for i in again.search("seat heater foreign", "gary", 5, before=CUT)
    }
    assert again.search("anything", "nobody", 5) == [] and "nobody" not in again._systems

    again.reset("gary")
    builder = again._systems["gary"].memory_builder
    assert (builder.previous_entries, builder.processed_count) == ([], 0)
    assert again.search("seat heater", "gary", 5) == [] and not os.path.exists(again._side_file("gary"))
    assert again.describe()["system"] == "simplemem"


def test_simplemem_missing_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "simplemem", None)
    with pytest.raises(MissingExtraError, match=r'pip install "execmem\[simplemem\]"'):
        SimpleMemMemory()


def test_registered_entry_points():
    from importlib.metadata import entry_points

    points = {p.name: p.value for p in entry_points(group="execmem.memory")}
    assert points.get("amem") == "execmem.memory.adapters.amem:AMemMemory [amem]"
    assert points.get("simplemem") == "execmem.memory.adapters.simplemem:SimpleMemMemory [simplemem]"


# ---------------------------------------------------------------- live (opt-in)

env = os.environ.get


def _live(flag: str):
    missing = [name for name in (flag, "EXECMEM_LIVE_MODEL") if not env(name)]
    return pytest.mark.skipif(bool(missing), reason=f"set {', '.join(missing)} to run this live adapter test")


def _run(memory: Any) -> None:
    tag = uuid.uuid4().hex[:8]
    alice, bob = f"execmem-test-{tag}-alice", f"execmem-test-{tag}-bob"
    try:
        exercise(memory, alice, bob)
    finally:
        memory.reset(alice)
        memory.reset(bob)
        memory.close()


def _endpoint() -> dict[str, Any]:
    return {
        "base_url": env("EXECMEM_LIVE_BASE_URL"),
        "api_key_env": env("EXECMEM_LIVE_KEY_ENV", "OPENAI_API_KEY"),
    }


@_live("EXECMEM_LIVE_AMEM")
def test_amem_live():
    pytest.importorskip(
        "agentic_memory.memory_system", reason='a-mem is not installed: pip install -e ".[amem]"'
    )
    options = {"llm_model": env("EXECMEM_LIVE_MODEL"), **_endpoint()}
    if env("EXECMEM_LIVE_AMEM_EMBEDDING"):
        options["model_name"] = env("EXECMEM_LIVE_AMEM_EMBEDDING")
    _run(create_memory("amem", **options))


@_live("EXECMEM_LIVE_SIMPLEMEM")
def test_simplemem_live():
    pytest.importorskip("simplemem", reason='simplemem is not installed: pip install -e ".[simplemem]"')
    options = {"model": env("EXECMEM_LIVE_MODEL"), **_endpoint()}
    if env("EXECMEM_LIVE_SIMPLEMEM_EMBEDDING"):
        options["embedding_model"] = env("EXECMEM_LIVE_SIMPLEMEM_EMBEDDING")
    _run(create_memory("simplemem", **options))
