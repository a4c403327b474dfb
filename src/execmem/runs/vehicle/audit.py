"""The retrieval audit: does a memory system bring back the lines a question's gold memory came from?

No agent and no model (for embedded systems): each scenario's history is written into its own
user space (``<space>-<scenario>``, one ``add()`` per clock hour), then every question is searched
twice at the largest K: with its query text, and with an *oracle query*, its gold-memory events
without their dates and times (the retriever's ceiling: the query knows exactly what to look
for). Each search is scored at every K (``suites.vehicle.retrieval``) and averaged over questions
(``audit_report``). See docs/audit.md.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from execmem import __version__
from execmem.agents.vehicle.conditions.base import format_lines
from execmem.agents.vehicle.conditions.ingest import ingest_history
from execmem.agents.vehicle.conditions.memory_system import open_system
from execmem.core.files import write_json_atomic
from execmem.core.hashing import file_sha256
from execmem.core.protocols import MemoryItem, MemorySystem
from execmem.core.tokens import estimate_tokens
from execmem.memory.store import IN_MEMORY
from execmem.runs.vehicle.audit_report import aggregate, percentiles
from execmem.suites.vehicle.dataset import (
    SCENARIOS,
    HistoryLine,
    Question,
    history_path,
    load_history,
    load_questions,
    qa_path,
)
from execmem.suites.vehicle.evidence import (
    EVENT_WINDOW_MINUTES,
    HistoryIndex,
    PlacedEvent,
    gold_values,
    locate,
    split_events,
)
from execmem.suites.vehicle.release import MANIFEST, resolve_data_dir
from execmem.suites.vehicle.retrieval import (
    Evidence,
    Judged,
    judge_all,
    make_evidence,
    score,
    score_budgets,
    value_share,
)

AUDIT_FILE = "audit.json"
DEFAULT_BUDGETS = (250, 1000)
STATE_FILE = "memory.sqlite"


class AuditConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    memory: str
    memory_options: dict[str, Any] = Field(default_factory=dict)
    windowing: Literal["hour", "turn", "window"] | None = Field(
        None, description="how history becomes units; None offers the default (hour)"
    )
    window_lines: int = Field(8, ge=1, description="lines per unit with windowing 'window'")
    top_k: list[int] = Field(default_factory=lambda: [1, 3, 5, 10])
    budget_tokens: list[int] = Field(
        default_factory=lambda: list(DEFAULT_BUDGETS), description="token budgets for budget recall"
    )
    scenarios: list[int] = Field(default_factory=lambda: list(SCENARIOS))
    event_minutes: int = Field(EVENT_WINDOW_MINUTES, ge=0, description="evidence window after an event")
    space: str = "audit"
    data_dir: Path | None = None

    @field_validator("top_k")
    @classmethod
    def _ks(cls, value: list[int]) -> list[int]:
        if not value or min(value) < 1:
            raise ValueError("top_k needs at least one K, each at least 1")
        return sorted(set(value))

    @field_validator("budget_tokens")
    @classmethod
    def _budgets(cls, value: list[int]) -> list[int]:
        if min(value, default=1) < 1:
            raise ValueError("budget_tokens: each budget must be at least 1 token")
        return sorted(set(value))

    def system_options(self) -> dict[str, Any]:
        """``memory_options``, plus the windowing when one was chosen."""
        if self.windowing is None:
            return dict(self.memory_options)
        windowing: dict[str, Any] = {"mode": self.windowing}
        if self.windowing == "window":
            windowing["window_lines"] = self.window_lines
        return {"windowing": windowing, **self.memory_options}


@dataclass
class Tally:
    """What the audit gathers while it runs."""

    records: list[dict[str, Any]] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    ingest_s: float = 0.0
    unplaced: int = 0
    events: int = 0


ScenarioHook = Callable[[int], None]


def run_audit(
    config: AuditConfig,
    out: Path | None = None,
    memory: MemorySystem | None = None,
    on_scenario: ScenarioHook | None = None,
) -> dict[str, Any]:
    """Audit ``config.memory`` (or the given ``memory``); write ``out/audit.json`` when ``out`` is set."""
    data_dir = resolve_data_dir(config.data_dir)
    questions = load_questions(data_dir, config.scenarios)
    if memory is None:
        memory = open_audit_memory(config, out)
    tally = Tally()
    for scenario in config.scenarios:
        scenario_questions = [q for q in questions if q.scenario == scenario]
        audit_scenario(memory, config, load_history(data_dir, scenario), scenario_questions, tally)
        if on_scenario:
            on_scenario(scenario)
    report = build_report(config, memory, data_dir, tally)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(out / AUDIT_FILE, report)
    return report


def open_audit_memory(config: AuditConfig, out: Path | None = None) -> MemorySystem:
    """The audited system, on a fresh SQLite file in ``out`` (scratch state), else in memory."""
    return open_system(config.memory, _state_path(out), config.system_options())


def _state_path(out: Path | None) -> str:
    """A fresh SQLite file in ``out`` (the audit's scratch state), or in memory."""
    if out is None:
        return IN_MEMORY
    out.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        stale = out / f"{STATE_FILE}{suffix}"
        if stale.is_file():
            stale.unlink()
    return str((out / STATE_FILE).resolve())


def audit_scenario(
    memory: MemorySystem,
    config: AuditConfig,
    history: list[HistoryLine],
    questions: Sequence[Question],
    tally: Tally,
) -> None:
    """Ingest one scenario into a clean space, then search and score each of its questions."""
    if not history:
        return
    user_id = f"{config.space}-{history[0].scenario}"
    memory.reset(user_id)
    tally.ingest_s += ingest_history(memory, user_id, history).seconds
    index = HistoryIndex(history)
    texts = {line.line_no: line.text for line in history}
    sizes = {line.line_no: estimate_tokens(format_lines([line])) for line in history}
    for question in questions:
        placed = locate(question, index, config.event_minutes)
        evidence = make_evidence(placed, gold_values(question), texts, sizes)
        started = time.perf_counter()
        items = memory.search(question.query, user_id, max(config.top_k))
        tally.latencies_ms.append((time.perf_counter() - started) * 1000)
        oracle = memory.search(oracle_query(question), user_id, max(config.top_k))
        tally.records.append(
            question_record(question, placed, evidence, items, oracle, config.top_k, config.budget_tokens)
        )
        tally.events += len(placed)
        tally.unplaced += sum(not p.placed for p in placed)


def oracle_query(question: Question) -> str:
    """The gold memory's events without their ``[date] At time,`` openings."""
    return "\n".join(event.text for event in split_events(question.gold_memory))


def question_record(
    question: Question,
    placed: Sequence[PlacedEvent],
    evidence: Evidence,
    items: Sequence[MemoryItem],
    oracle: Sequence[MemoryItem],
    ks: Sequence[int],
    budgets: Sequence[int] = (),
) -> dict[str, Any]:
    """One question's numbers and what was retrieved, for drill-down: enough to recompute every
    figure (each item's tokens and the events it hits; each event's time)."""
    return {
        "id": question.id,
        "scenario": question.scenario,
        "index": question.index,
        "reasoning_type": question.reasoning_type,
        "events": [{"when": p.event.when.isoformat(), "line_ids": list(p.line_ids)} for p in placed],
        "latest_events": sorted(evidence.latest),
        "values": list(evidence.values),
        "values_in_evidence": value_share(evidence.values, evidence.text),
        **search_record(items, evidence, ks, budgets),
        "oracle": search_record(oracle, evidence, ks, budgets),
    }


def search_record(
    items: Sequence[MemoryItem], evidence: Evidence, ks: Sequence[int], budgets: Sequence[int]
) -> dict[str, Any]:
    """One search scored at every K and budget, with its items (each item judged once)."""
    judged = judge_all(items, evidence)
    return {
        **score(items, evidence, ks, judged),
        **score_budgets(items, evidence, budgets, judged),
        "items": [item_record(item, j) for item, j in zip(items, judged, strict=True)],
    }


def item_record(item: MemoryItem, judged: Judged) -> dict[str, Any]:
    ident = item.metadata.get("unit_id", item.metadata.get("id"))
    return {
        "id": ident if isinstance(ident, int | str) else None,
        "score": round(float(item.score), 6),
        "line_ids": list(item.line_ids),
        "tokens": judged.tokens,
        "events": sorted(judged.events),
    }


def build_report(config: AuditConfig, memory: MemorySystem, data_dir: Path, tally: Tally) -> dict[str, Any]:
    """audit.json: aggregates, placement, latency, ingest time, config, and every question."""
    return {
        **aggregate(tally.records, config.top_k, config.budget_tokens),
        "unplaced_events": tally.unplaced,
        "latency_ms": percentiles(tally.latencies_ms),
        "ingest_s": round(tally.ingest_s, 3),
        "config": {
            "memory": config.memory,
            "system": memory.describe(),
            "windowing": memory.describe().get("windowing"),
            "top_k": config.top_k,
            "budget_tokens": config.budget_tokens,
            "scenarios": config.scenarios,
            "user_space": f"{config.space}-<scenario>",
            "event_window_minutes": config.event_minutes,
            "events": tally.events,
            "questions": len(tally.records),
            "data": data_fingerprint(data_dir, config.scenarios),
            "execmem": __version__,
        },
        "questions": tally.records,
    }


def data_fingerprint(data_dir: Path, scenarios: Sequence[int]) -> dict[str, Any]:
    """A sha256 over the files read (each file's name and sha256), and whether they are the release's."""
    digest = hashlib.sha256()
    verified = True
    for scenario in scenarios:
        for path in (qa_path(data_dir, scenario), history_path(data_dir, scenario)):
            key = f"{path.parent.name}/{path.name}"
            file_hash = file_sha256(path)
            digest.update(f"{key} {file_hash}\n".encode())
            verified = verified and MANIFEST.get(key) == file_hash
    return {"dir": str(data_dir), "sha256": digest.hexdigest(), "release_files_verified": verified}
