"""The LightMem adapter against an in-process fake of ``LightMemory`` (``execmem.testing.fake_lightmem``).

LightMem installs only from its repository, which these machines cannot reach, so the library
itself runs only in the opt-in live test (``test_live_adapters.py``).
"""

from __future__ import annotations

import sys

import pytest

from execmem.core.protocols import MemorySystem
from execmem.memory import MissingExtraError, create_memory
from execmem.memory.adapters.call_meter import ModelCallError
from execmem.memory.adapters.common import TIME, posix
from execmem.memory.adapters.lightmem import LightMemConfig, LightMemMemory, lightmem_messages
from execmem.memory.adapters.lightmem_config import lightmem_config
from execmem.testing.fake_lightmem import fake_modules
from tests.memory.adapters.contract import CUT, EARLY, LATE, exercise
from tests.memory.conftest import at, msg


@pytest.fixture
def fake(monkeypatch):
    for name, module in fake_modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def entries(memory: LightMemMemory, user: str) -> list[dict]:
    return [p["payload"] for p in memory.system(user).embedding_retriever.get_all(with_vectors=False)]


def test_contract_and_registry(fake, tmp_path):
    memory = create_memory("lightmem", path=str(tmp_path))
    assert isinstance(memory, MemorySystem)
    exercise(memory, "gary allen", "dana")
    assert (tmp_path / "dana").is_dir() and not (
        tmp_path / "gary_20allen"
    ).exists()  # reset removed the folder
    memory.close()


def test_messages_alternate_user_and_assistant_with_their_own_times():
    config = LightMemConfig(assistant_speakers=("Car Assistant",))
    history = [
        msg("2025-03-03 08:30", "Seat heater to two.", 1),
        msg("2025-03-03 08:31", "Done, level two.", 2, speaker="Car Assistant"),
        msg("2025-03-03 08:40", "Jazz, please.", 3),
        msg("2025-03-03 08:41", "And louder.", 4, speaker="Dana Lee"),
    ]
    sent = lightmem_messages(history, config)
    assert [(m["role"], m["time_stamp"], m.get("speaker_name")) for m in sent] == [
        ("user", "2025-03-03T08:30:00", "Gary Allen"),
        ("assistant", "2025-03-03T08:31:00", "Car Assistant"),
        ("user", "2025-03-03T08:41:00", None),  # two speakers: their names go into the text
        ("assistant", "2025-03-03T08:41:00", None),  # nobody answered: the other side's time
    ]
    assert [m["content"] for m in sent] == [
        "Seat heater to two.",
        "Done, level two.",
        "Gary Allen: Jazz, please.\nDana Lee: And louder.",
        "(no reply)",
    ]


def test_lightmem_config_follows_lightmem_s_own_keys():
    settings = LightMemConfig(
        base_url="http://endpoint/v1", model="m", embedder="openai", embedding_model="e"
    )
    config = lightmem_config(settings, "key", "/runs/x/gary", "execmem")
    assert config["precomp_topic_shared"] is True and config["topic_segmenter"] == {
        "model_name": "llmlingua-2",
        "configs": {},
    }
    assert config["pre_compressor"]["configs"]["compress_config"]["rate"] == 0.7
    assert config["memory_manager"] == {
        "model_name": "openai",
        "configs": {
            "model": "m",
            "api_key": "key",
            "max_tokens": 2000,
            "openai_base_url": "http://endpoint/v1",
        },
    }
    assert config["text_embedder"]["configs"]["openai_base_url"] == "http://endpoint/v1"
    assert config["embedding_retriever"]["configs"] == {
        "collection_name": "execmem", "embedding_model_dims": 384, "path": "/runs/x/gary", "on_disk": True
    }  # fmt: skip
    plain = lightmem_config(LightMemConfig(pre_compress=False, topic_segment=False), "key", "/f", "c")
    assert plain["pre_compressor"] is None and plain["topic_segmenter"] is None
    with pytest.raises(ValueError, match="topic_segment needs pre_compress"):
        LightMemConfig(pre_compress=False)


def test_entries_carry_the_call_s_source_and_the_cut_off_is_strict(fake):
    memory = LightMemMemory(overfetch=3)
    memory.add(EARLY, "gary", at("2025-03-03 09:00"))
    memory.add(LATE, "gary", at("2025-03-04 19:00"))
    first, second = sorted(entries(memory, "gary"), key=lambda p: p[TIME])
    assert first["memory"] == "Gary Allen said: Set the seat heater to level two every morning."
    assert (first[TIME], first["execmem_line_ids"]) == (posix(at("2025-03-03 08:30")), "1")
    assert second["execmem_written_at"] == "2025-03-04T19:00:00"

    (hit,) = memory.search("seat heater level two", "gary", 1)
    assert (
        hit.text
        == "2025-03-03T08:30:00.000 Mon Gary Allen said: Set the seat heater to level two every morning."
    )
    assert hit.timestamps == (at("2025-03-03 08:30"),) and hit.line_ids == (1,) and 0 < hit.score <= 1
    assert hit.metadata["lightmem_time_stamp"] == "2025-03-03T08:30:00.000"

    assert [h.line_ids for h in memory.search("jazz radio", "gary", 5, before=at("2025-03-04 18:05"))] == [
        (1,)
    ]
    assert len(memory.search("jazz radio", "gary", 5, before=at("2025-03-04 18:06"))) == 2


def test_offline_update_restamps_what_it_rewrites(fake):
    memory = LightMemMemory(offline_update=True)
    memory.add([msg("2025-03-03 08:30", "Heater on level two.", 1)], "gary", at("2025-03-03 09:00"))
    memory.add([msg("2025-03-05 08:30", "Heater on level three now.", 2)], "gary", at("2025-03-05 09:00"))
    rewritten = next(p for p in entries(memory, "gary") if "(now:" in p["memory"])
    assert rewritten[TIME] == posix(at("2025-03-05 08:30")) and rewritten["execmem_line_ids"] == "2"
    assert not any(
        "(now:" in h.text for h in memory.search("heater level", "gary", 5, before=at("2025-03-04 00:00"))
    )


def test_failed_extraction_raises_instead_of_storing_nothing(fake):
    memory = LightMemMemory()
    memory.add(EARLY, "gary", at("2025-03-03 09:00"))
    memory.system("gary").manager.client.chat.completions.fail = True
    with pytest.raises(ModelCallError, match="LightMem add\\(\\).*fake endpoint is down"):
        memory.add(LATE, "gary", at("2025-03-04 19:00"))
    assert len(entries(memory, "gary")) == 1
    assert memory.usage() == {"llm_calls": 1, "input_tokens": 10, "output_tokens": 5, "failed_calls": 1}


def test_reset_releases_the_folder_and_state_survives_a_new_adapter(fake, tmp_path):
    first = LightMemMemory(path=str(tmp_path))
    first.add(EARLY, "gary", at("2025-03-03 09:00"))
    first.add(LATE, "dana", at("2025-03-04 19:00"))
    first.reset("gary")
    first.add(LATE, "gary", at("2025-03-04 19:00"))  # the folder is usable again at once
    assert [h.line_ids for h in first.search("seat heater jazz", "gary", 5)] == [(2,)]
    first.close()
    again = LightMemMemory(path=str(tmp_path))
    assert again.search("jazz radio", "dana", 5) and again.search("anything", "nobody", 5) == []
    assert "nobody" not in again._systems
    assert again.search("jazz radio", "gary", 5, before=CUT) == []


def test_refusals_describe_and_missing_library(fake, monkeypatch):
    described = LightMemMemory().describe()
    assert described["system"] == "lightmem" and described["package"].startswith("lightmem==")
    assert described["topic_segment"] is True and "api_key_env" not in described
    with pytest.raises(ValueError, match="absolute"):
        LightMemConfig(path="relative")
    monkeypatch.setenv("OPENROUTER_API_KEY", "x")
    with pytest.raises(ValueError, match="OpenRouter"):
        LightMemMemory()
    monkeypatch.delenv("OPENROUTER_API_KEY")
    monkeypatch.setitem(sys.modules, "lightmem.memory.lightmem", None)
    with pytest.raises(MissingExtraError, match=r'pip install "execmem\[lightmem\]"'):
        LightMemMemory()
