"""Adapter pieces that need no service: source records, the cut-off, ids, configs, missing extras."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from execmem.core.protocols import MemoryItem
from execmem.memory import MissingExtraError, create_memory
from execmem.memory.adapters.common import (
    keep_before,
    make_item,
    name_id,
    posix,
    safe_id,
    source_metadata,
    source_of,
    visible,
)
from execmem.memory.adapters.mem0 import Mem0Config
from execmem.memory.adapters.memobase import MemobaseConfig
from execmem.memory.adapters.supermemory import SupermemoryConfig
from tests.memory.conftest import at, msg

LINES = [
    msg("2025-03-03 08:30", "Seat heater to two.", 7),
    msg("2025-03-03 08:31", "Done.", None, speaker="Car"),
    msg("2025-03-03 08:31", "Thanks.", 9),
]


def test_source_record_round_trips_times_and_line_ids():
    record = source_metadata(LINES, at("2025-03-03 09:00"))
    assert record == {
        "execmem_time": posix(at("2025-03-03 08:31")),
        "execmem_times": "2025-03-03T08:30:00,2025-03-03T08:31:00",
        "execmem_line_ids": "7,9",
        "execmem_written_at": "2025-03-03T09:00:00",
    }
    assert source_of(record) == ((at("2025-03-03 08:30"), at("2025-03-03 08:31")), (7, 9))
    assert source_of(None) == ((), ())
    item = make_item("text", 0.5, record, id="x")
    assert (item.timestamps, item.line_ids) == ((at("2025-03-03 08:30"), at("2025-03-03 08:31")), (7, 9))
    assert item.metadata == {"written_at": "2025-03-03T09:00:00", "id": "x"}


def test_naive_times_count_as_utc_and_aware_ones_keep_their_zone():
    naive = datetime(2025, 3, 3, 8, 30)
    assert posix(naive) == posix(naive.replace(tzinfo=UTC))
    assert posix(naive.replace(tzinfo=timezone(timedelta(hours=2)))) == posix(naive) - 7200


def test_cutoff_is_strict_and_hides_what_cannot_be_placed():
    record = source_metadata(LINES, at("2025-03-03 09:00"))
    assert visible(record, None) and visible(None, None)
    assert visible(record, at("2025-03-03 08:32"))
    assert not visible(record, at("2025-03-03 08:31"))  # the latest line is at the cut-off itself
    assert not visible(None, at("2030-01-01 00:00"))
    assert not visible({"execmem_time": "not a number"}, at("2030-01-01 00:00"))


def test_keep_before_filters_items_then_cuts_to_top_k():
    def item(stamp: str | None) -> MemoryItem:
        return MemoryItem("t", 1.0, (at(stamp),) if stamp else ())

    items = [item("2025-03-05 10:00"), item(None), item("2025-03-01 10:00"), item("2025-03-02 10:00")]
    assert keep_before(items, None, 2) == items[:2]
    assert keep_before(items, at("2025-03-03 00:00"), 5) == items[2:]
    assert keep_before(items, at("2025-03-03 00:00"), 1) == items[2:3]


def test_ids_are_safe_and_one_to_one():
    assert safe_id("gary allen") == "gary%20allen" and safe_id("a%20b") == "a%2520b"
    assert name_id("gary allen") == "gary_20allen" and name_id("gary_20allen") == "gary_5f20allen"
    assert name_id("Jörg.1") == "J_c3_b6rg_2e1"
    for make in (safe_id, name_id):
        with pytest.raises(ValueError):
            make("")


def test_mem0_config_validates_and_builds_mem0s_dictionary(monkeypatch):
    monkeypatch.setenv("EXECMEM_TEST_KEY", "k")
    with pytest.raises(ValidationError, match="absolute"):
        Mem0Config(path="relative/qdrant")
    with pytest.raises(ValidationError, match="extra"):
        Mem0Config(colection="typo")
    config = Mem0Config(
        base_url="http://llm/v1", api_key_env="EXECMEM_TEST_KEY", embedding_dims=64, path="/tmp/q"
    )
    built = config.mem0_config(on_response=print)
    assert built["vector_store"] == {
        "provider": "qdrant",
        "config": {"collection_name": "execmem", "embedding_model_dims": 64, "path": "/tmp/q"},
    }
    assert (
        built["llm"]["config"]["openai_base_url"]
        == built["embedder"]["config"]["openai_base_url"]
        == "http://llm/v1"
    )
    assert built["llm"]["config"]["api_key"] == "k" and built["llm"]["config"]["response_callback"] is print
    assert "embedding_dims" not in built["embedder"]["config"]  # only sent when send_dimensions
    with_dims = Mem0Config(send_dimensions=True, api_key_env="EXECMEM_TEST_KEY").mem0_config(None)
    assert with_dims["embedder"]["config"]["embedding_dims"] == 1536


def test_mem0_chat_messages_carry_time_speaker_and_role():
    from execmem.memory.adapters.mem0 import Mem0Memory

    memory = Mem0Memory.__new__(Mem0Memory)  # formatting needs only the config
    memory.config = Mem0Config(assistant_speakers=("Car",))
    assert memory.chat_message(LINES[0]) == {
        "role": "user",
        "content": "[2025-03-03 08:30] Gary Allen: Seat heater to two.",
        "name": "Gary Allen",
    }
    assert memory.chat_message(LINES[1])["role"] == "assistant"


def test_service_configs_refuse_bad_values():
    with pytest.raises(ValidationError):
        MemobaseConfig()  # base_url is required
    with pytest.raises(ValidationError):
        SupermemoryConfig(threshold=1.5)
    with pytest.raises(ValidationError):
        SupermemoryConfig(search_mode="everything")


def test_supermemory_without_a_key_says_which_variable_to_set(monkeypatch):
    pytest.importorskip("supermemory")
    monkeypatch.delenv("EXECMEM_UNSET_KEY", raising=False)
    with pytest.raises(ValueError, match="set EXECMEM_UNSET_KEY"):
        create_memory("supermemory", api_key_env="EXECMEM_UNSET_KEY")


@pytest.mark.parametrize(
    ("name", "module", "config"),
    [
        ("mem0", "mem0", {}),
        ("langmem", "langmem", {}),
        ("supermemory", "supermemory", {}),
        ("letta", "letta_client", {}),
        ("memobase", "memobase", {"base_url": "http://memobase.test"}),
    ],
)
def test_a_missing_library_names_the_extra(monkeypatch, name, module, config):
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    with pytest.raises(MissingExtraError, match=rf'pip install "execmem\[{name}\]"'):
        create_memory(name, **config)


def test_openai_key_placeholder_for_local_servers_and_clear_error_otherwise(monkeypatch):
    from execmem.memory.adapters.common import LOCAL_SERVER_KEY, openai_key

    monkeypatch.delenv("SOME_KEY", raising=False)
    assert openai_key("SOME_KEY", "http://127.0.0.1:8000/v1", "mem0") == LOCAL_SERVER_KEY
    with pytest.raises(ValueError, match=r"mem0 needs an API key: set \$SOME_KEY"):
        openai_key("SOME_KEY", None, "mem0")
    monkeypatch.setenv("SOME_KEY", "sk-1")
    assert openai_key("SOME_KEY", None, "mem0") == "sk-1"
