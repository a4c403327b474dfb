"""A memory system's slot, target by target: ingestion once into the target's own space, the declared
query under the cut-off, the ranking memory.json keeps, the records joined in rank order."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from execmem.core.protocols import MemoryItem
from execmem.core.tokens import estimate_tokens
from execmem.runs.coding.layer_b.config import SystemMemoryConfig
from execmem.runs.coding.layer_b.history import SieveHistory
from execmem.runs.coding.layer_b.ingest import user_space
from execmem.runs.coding.layer_b.memories import SystemMemories
from execmem.runs.coding.layer_b.slot import fill_slot, ranking
from execmem.suites.coding.history import TargetView
from execmem.suites.coding.tasks import load_tasks
from tests.coding.layer_b_support import write_sieve_history
from tests.coding.paired_support import make_tasks

INTERFACE_KEYS = {"condition", "system", "describe", "write_policy", "retrieval_trigger", "insertion_rule",
                  "truncation_rule", "top_k", "query", "history"}  # fmt: skip
ENTRY_KEYS = {"text", "chars", "lines", "tokens", "sources", "query", "ranking", "ingested", "ingest"}


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("layer-b-memory")
    tasks = load_tasks(make_tasks(root))
    return write_sieve_history(root / "sieve", tasks), {t.instance_id: t for t in tasks}


def open_memories(history_dir: Path, folder: Path, saved=None, **settings) -> tuple[SystemMemories, list]:
    config = SystemMemoryConfig(name=settings.pop("name", "bm25"), history_dir=history_dir, **settings)
    memories = SystemMemories(config, folder, SieveHistory(history_dir), [])  # tasks: for workers only
    changes: list[dict] = []
    memories.resume(saved or {}, ["alpha__double", "alpha__neg"], changes.append)
    return memories, changes


def prepare(memories: SystemMemories, task) -> dict:
    asyncio.run(memories.memory(task))
    return memories.entries[task.instance_id]


def test_a_target_s_history_is_ingested_and_its_best_records_fill_the_slot(history, tmp_path):
    sieve, tasks = history
    memories, changes = open_memories(sieve, tmp_path / "run", top_k=2)
    entry = prepare(memories, tasks["alpha__neg"])
    assert set(entry) >= ENTRY_KEYS and entry["query"] == tasks["alpha__neg"].problem_statement
    assert entry["ingested"] == ["alpha__double", "alpha__inc"]  # oldest first, the target's pool
    assert entry["ingest"]["items"] == 2 and entry["ingest"]["llm_calls"] == 0
    assert entry["user_space"] == user_space("alpha__neg") and "alpha__neg" not in entry["user_space"]
    ranked = entry["ranking"]
    assert entry["search"]["asked"] == 10 and entry["search"]["returned"] == len(ranked) > 2  # max(2, 10)
    assert [r["rank"] for r in ranked] == list(range(1, len(ranked) + 1))
    assert [r["score"] for r in ranked] == sorted((r["score"] for r in ranked), reverse=True)
    assert all(r["history_ids"] and set(r["history_ids"]) <= set(entry["ingested"]) for r in ranked)
    assert [r["injected"] for r in ranked] == [True, True] + [False] * (len(ranked) - 2)
    assert entry["text"] == ranked[0]["text"].strip() + "\n\n" + ranked[1]["text"].strip()
    assert (entry["chars"], entry["lines"]) == (len(entry["text"]), len(entry["text"].splitlines()))
    assert entry["tokens"] == estimate_tokens(entry["text"])
    assert entry["sources"] == list(dict.fromkeys(ranked[0]["history_ids"] + ranked[1]["history_ids"]))
    assert all(r["tokens"] == estimate_tokens(r["text"]) for r in ranked)
    assert changes[-1] == {"alpha__neg": entry}


def test_a_target_without_history_gets_nothing(history, tmp_path):
    sieve, tasks = history
    memories, _ = open_memories(sieve, tmp_path / "run")
    entry = prepare(memories, tasks["alpha__double"])
    assert entry["text"] is None and entry["ranking"] == [] and entry["ingested"] == []
    assert asyncio.run(memories.memory(tasks["alpha__double"])).text is None


def test_a_resume_neither_searches_nor_ingests_a_prepared_target_again(history, tmp_path, monkeypatch):
    sieve, tasks = history
    first, changes = open_memories(sieve, tmp_path / "run")
    entry = prepare(first, tasks["alpha__neg"])
    first.close()
    again, _ = open_memories(sieve, tmp_path / "run", saved=changes[-1])
    monkeypatch.setattr(again.system, "search", lambda *a, **k: pytest.fail("searched again"))
    assert asyncio.run(again.memory(tasks["alpha__neg"])).text == entry["text"]
    again.close()
    # cut off after ingesting, before memory.json had the entry: the system's state on disk is reused
    third, _ = open_memories(sieve, tmp_path / "run")
    monkeypatch.setattr(third.system, "add", lambda *a, **k: pytest.fail("ingested again"))
    redone = prepare(third, tasks["alpha__neg"])
    assert redone["ingest"]["reused"] is True and redone["ranking"] == entry["ranking"]
    third.close()


def test_the_cap_and_the_depth(history, tmp_path):
    sieve, tasks = history
    memories, _ = open_memories(sieve, tmp_path / "run", top_k=12, truncate_chars=80)
    entry = prepare(memories, tasks["alpha__neg"])
    assert len(entry["text"]) == 80 and entry["search"]["asked"] == 12
    assert sum(r["injected"] for r in entry["ranking"]) == min(12, len(entry["ranking"]))


def test_the_manifest_block_declares_the_policy_and_the_history(history, tmp_path):
    sieve, _ = history
    memories, _ = open_memories(sieve, tmp_path / "run", top_k=3, query="title")
    block = memories.block()
    assert set(block) >= INTERFACE_KEYS and block["condition"] == "system" and block["system"] == "bm25"
    assert (block["top_k"], block["query"], block["truncation_rule"]) == (3, "title", "none")
    assert block["describe"]["path"] == "<run>/memory-system/memory.sqlite"  # where, not what
    assert set(block["history"]) == {"sieve_dir_sha", "history_stage_key"}
    assert block["history"]["history_stage_key"] == "handmade"


VIEW = TargetView(instance_id="pkg__f-12", repo="local/pkg", problem_statement="f fails",
                  created_at=datetime(2024, 5, 1, tzinfo=UTC))  # fmt: skip
RANGES = [{"history_id": "pkg__f-3", "first_line": 1, "last_line": 4},
          {"history_id": "pkg__g-5", "first_line": 5, "last_line": 9}]  # fmt: skip


def test_records_naming_the_target_or_empty_are_skipped_and_sources_come_from_line_ids():
    items = [
        MemoryItem("see pkg__f-12 for the answer", 3.0, line_ids=(2,)),
        MemoryItem("   ", 2.5, line_ids=(6,)),
        MemoryItem("fix f in pkg/f.py", 2.0, line_ids=(3, 7)),
        MemoryItem("as PR #12 did", 1.5, line_ids=(8,)),
        MemoryItem("g too", 1.0, metadata={"history_id": "pkg__g-5"}),
    ]
    entries = ranking(items, RANGES, VIEW)
    assert entries[0]["leaks"] == ["pkg__f-12"] and entries[3]["leaks"] == ["issue 12"]
    assert entries[2]["history_ids"] == ["pkg__f-3", "pkg__g-5"] and entries[4]["history_ids"] == ["pkg__g-5"]
    text, sources = fill_slot(entries, 2, None)
    assert text == "fix f in pkg/f.py\n\ng too" and sources == ["pkg__f-3", "pkg__g-5"]
    assert [e["injected"] for e in entries] == [False, False, True, False, True]
    assert fill_slot(ranking([], RANGES, VIEW), 1, None) == (None, [])
