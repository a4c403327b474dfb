"""``execmem vehicle diagnose``: every failed episode of a run folder with its first broken link.

Reads the run folder and the release it used; calls no model. The rules are docs/diagnosis.md,
applied by ``suites.vehicle.diagnosis``; this module gathers their facts (what memory stored and
showed, what the calls did to the car) and writes ``diagnosis.json`` (``diagnosis_report``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execmem.agents.vehicle.transcript import MEMORY_REFERENCE, memory_tool_calls, prompt_memory, shown_memory
from execmem.core.files import write_json_atomic
from execmem.runs.vehicle.diagnosis_report import (
    DiagnosisReport,
    EpisodeDiagnosis,
    MemoryCall,
    MemoryShown,
    summary_blocks,
)
from execmem.runs.vehicle.diagnosis_sources import RunSources, read_run
from execmem.runs.vehicle.diagnosis_views import calls_view, diff_view, evidence_view
from execmem.runs.vehicle.trials import split_episode_id
from execmem.suites.vehicle.calls import CallSyntaxError, ToolCall, parse_calls
from execmem.suites.vehicle.dataset import Question, load_history, load_questions
from execmem.suites.vehicle.delivery import Delivery, QuoteIndex, delivery, evidence_lines
from execmem.suites.vehicle.diagnosis import (
    EpisodeFacts,
    FieldChange,
    compare_states,
    first_broken_link,
    missing_gold_tool,
    reached_the_car,
    unused_values,
)
from execmem.suites.vehicle.evidence import HistoryIndex, PlacedEvent, locate, memory_values
from execmem.suites.vehicle.retrieval import Evidence, make_evidence

DIAGNOSIS_FILE = "diagnosis.json"
MAX_PROMPT_LINES = 20
VERBATIM_SYSTEMS = frozenset({"bm25", "dense", "hybrid", "fusion"})
"""Built-in systems known to keep every history line word for word."""
KINDS = {
    "none": "none",
    "gold": "gold",
    "full-history": "prompt",
    "summary": "prompt",
    "key-value": "key-value",
}


def memory_kind(memory: str) -> str:
    """How *stored* is judged for a memory condition (docs/diagnosis.md)."""
    return KINDS.get(memory) or ("verbatim-system" if memory in VERBATIM_SYSTEMS else "system")


class ScenarioEvidence:
    """One scenario's history, for placing its questions' events."""

    def __init__(self, data_dir: Path, scenario: int) -> None:
        history = load_history(data_dir, scenario)
        self.lines = {line.line_no: line for line in history}
        self.index = HistoryIndex(history)
        self.texts = {line.line_no: line.text for line in history}

    def locate(self, question: Question) -> tuple[list[PlacedEvent], Evidence]:
        placed = locate(question, self.index)
        return placed, make_evidence(placed, (), self.texts, {})


@dataclass
class Reading:
    """What one episode's memory showed, and what the rules conclude from it."""

    shown: Delivery
    stored: bool
    delivered: bool


@dataclass
class Examined:
    """One episode as the rules saw it: the question, its evidence, what memory showed, the calls
    and what they did to the car, and the first broken link (None when exact)."""

    record: dict[str, Any]
    question: Question
    placed: list[PlacedEvent]
    evidence: Evidence
    values: tuple
    reading: Reading
    calls: list[ToolCall]
    changes: dict[str, FieldChange]
    infra: bool
    label: str | None


class Diagnoser:
    """The facts of every episode of one run, and its report."""

    def __init__(
        self, sources: RunSources, data_dir: Path, histories: dict[int, ScenarioEvidence] | None = None
    ) -> None:
        """``histories``: scenarios of ``data_dir`` already read (by another run's diagnoser), shared."""
        self.sources, self.data_dir = sources, data_dir
        self.kind = memory_kind(sources.memory)
        questions = load_questions(data_dir, sources.scenarios)
        self.questions = {(q.scenario, q.index): q for q in questions}
        self._scenarios = histories if histories is not None else {}
        self._indexes: dict[str, QuoteIndex] = {}

    def report(self, examined: list[Examined] | None = None) -> DiagnosisReport:
        """The run's report; ``examined``: its episodes already examined (else they are)."""
        if examined is None:
            examined = [self.examine(record) for record in self.sources.records()]
        failures = [EpisodeDiagnosis(label=f.label, **self.describe(f)) for f in examined if f.label]
        types = {f.record["id"]: f.question.reasoning_type for f in examined}
        overall, by_type = summary_blocks(types, failures)
        return DiagnosisReport(
            run=str(self.sources.folder),
            model=self.sources.model,
            memory=self.sources.memory,
            memory_kind=self.kind,
            stored_basis="estimated" if self.kind == "system" else "known",
            overall=overall,
            by_reasoning_type=by_type,
            episodes=failures,
        )

    def question(self, record: dict[str, Any]) -> Question:
        return self.questions[(record["scenario"], record["index"])]

    def scenario(self, number: int) -> ScenarioEvidence:
        if number not in self._scenarios:
            self._scenarios[number] = ScenarioEvidence(self.data_dir, number)
        return self._scenarios[number]

    def quote_index(self, text: str) -> QuoteIndex:
        if text not in self._indexes:
            self._indexes[text] = QuoteIndex(text)
        return self._indexes[text]

    def episode(self, record: dict[str, Any]) -> EpisodeDiagnosis | None:
        """The diagnosis of one episode (scored, or an infrastructure error), None when exact."""
        found = self.examine(record)
        return None if found.label is None else EpisodeDiagnosis(label=found.label, **self.describe(found))

    def examine(self, record: dict[str, Any]) -> Examined:
        """The facts of one episode and its first broken link (None when exact)."""
        question = self.question(record)
        placed, evidence = self.scenario(question.scenario).locate(question)
        values = memory_values(question)
        reading = self.read_memory(record, question, evidence, values)
        infra = record.get("error_kind") is not None and "exact_match" not in record
        calls = [] if infra else _calls(record)
        changes = {} if infra else compare_states(question.gold_calls, calls)
        facts = EpisodeFacts(
            infra_error=infra,
            acted=reached_the_car(calls),
            stored=reading.stored,
            delivered=reading.delivered,
            unused_shown_values=bool(unused_values(reading.shown.values, calls)),
            missing_gold_tool=missing_gold_tool(question.gold_calls, calls),
            changes=changes,
        )
        return Examined(record, question, placed, evidence, values, reading, calls, changes, infra,
                        first_broken_link(facts))  # fmt: skip

    def describe(self, found: Examined) -> dict[str, Any]:
        """Every field of the episode's ``diagnosis.json`` entry but its label (exact episodes too)."""
        record, question, infra = found.record, found.question, found.infra
        return {
            "id": record["id"],
            "scenario": question.scenario,
            "index": question.index,
            "trial": split_episode_id(record["id"])[1],
            "reasoning_type": question.reasoning_type,
            "query": question.query,
            "evidence": evidence_view(found.placed, self.scenario(question.scenario).lines),
            "memory_values": list(found.values),
            "values_shown": list(found.reading.shown.values),
            "events_shown": sorted(found.reading.shown.events),
            "delivered": None if infra else found.reading.delivered,
            "stored": None if infra else found.reading.stored,
            "memory": self.memory_view(record["id"], question.scenario, found.evidence, found.values),
            "calls": calls_view(found.calls),
            "state_diff": diff_view(found.changes),
            "end_reason": record.get("end_reason"),
            "steps": record.get("steps"),
            "error_kind": record.get("error_kind") if infra else None,
            "error": record.get("reason") if infra else None,
        }

    def read_memory(
        self, record: dict[str, Any], question: Question, evidence: Evidence, values: tuple
    ) -> Reading:
        """What the agent was shown, whether it delivered the evidence, and whether it was stored."""
        messages = self.sources.messages(record["id"])
        resolve = self.sources.resolver(question.scenario)
        shown = delivery(self.quote_index(shown_memory(messages, resolve)), evidence, values)
        delivered = shown.delivered or self.kind == "gold"
        stored = self.stored(question.scenario, evidence, values, delivered)
        return Reading(shown, stored, delivered)

    def stored(self, scenario: int, evidence: Evidence, values: tuple, delivered: bool) -> bool:
        """Whether the evidence reached the memory, by the memory's kind (docs/diagnosis.md)."""
        if self.kind in ("none", "gold", "verbatim-system"):
            return self.kind != "none"
        if self.kind == "prompt":
            return delivered
        text = self.sources.store_text(scenario) if self.kind == "key-value" else self._all_results(scenario)
        return delivery(self.quote_index(text), evidence, values).delivered

    def _all_results(self, scenario: int) -> str:
        """Every memory-tool result of the run's episodes of ``scenario``: what search can return."""
        return "\n".join(
            call.result
            for record in self.sources.records()
            if record["scenario"] == scenario
            for call in memory_tool_calls(self.sources.messages(record["id"]))
        )

    def memory_view(self, episode: str, scenario: int, evidence: Evidence, values: tuple) -> MemoryShown:
        """What memory returned: the prompt memory (a long one by reference, with its lines that
        matter) and every memory-tool call."""
        messages, resolve = self.sources.messages(episode), self.sources.resolver(scenario)
        prompt = prompt_memory(messages)
        reference = MEMORY_REFERENCE.match(prompt or "")
        tool_calls = [
            MemoryCall(name=c.name, arguments=c.arguments, result=c.result)
            for c in memory_tool_calls(messages)
        ]
        if reference is None:
            return MemoryShown(prompt=prompt, tool_calls=tool_calls)
        text = resolve(prompt)
        return MemoryShown(
            prompt_ref=f"{reference.group('path')}#text",
            prompt_chars=len(text),
            prompt_lines=evidence_lines(self.quote_index(text), evidence, values)[:MAX_PROMPT_LINES],
            tool_calls=tool_calls,
        )


def _calls(record: dict[str, Any]) -> list[ToolCall]:
    try:
        return parse_calls(record.get("calls") or [], "calls")
    except CallSyntaxError:  # a hand-edited line; the run itself only writes parseable calls
        return []


def diagnose(folder: Path, data_dir: Path | None = None, write: bool = True) -> DiagnosisReport:
    """Diagnose the run in ``folder`` against the release (``data_dir``, else the one it used);
    write ``folder/diagnosis.json`` when ``write``."""
    sources = read_run(folder)
    report = Diagnoser(sources, sources.data_dir(data_dir)).report()
    if write:
        write_json_atomic(folder / DIAGNOSIS_FILE, report.model_dump(mode="json"))
    return report
