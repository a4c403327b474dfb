"""Every episode of a vehicle run for the episode browser, and the run's diagnosis.

The diagnosis is the run's ``diagnosis.json`` when it covers the run as it is now, else it is
computed with the rules of ``execmem vehicle diagnose`` (and not written: the report changes no
run folder). Each episode, exact ones too, shows its query, the evidence lines, what memory
returned, the calls the agent made and the state diff against gold; long memory texts are cut to
``memory_chars``, keeping the lines that hold a memory value or an evidence line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from execmem.core.files import DamagedFileError, read_json_document
from execmem.runs.vehicle.diagnose import DIAGNOSIS_FILE, Diagnoser, Examined, ScenarioEvidence
from execmem.runs.vehicle.diagnosis_report import DiagnosisReport, MemoryShown
from execmem.runs.vehicle.diagnosis_sources import RunSources
from execmem.runs.vehicle.trials import split_episode_id
from execmem.suites.vehicle.delivery import evidence_lines

EXACT = "exact"
HistoryCache = dict[Path, dict[int, ScenarioEvidence]]
MAX_LINES = 12
"""Lines that hold a value or evidence, kept per memory text."""


@dataclass
class RunEpisodes:
    """A run's diagnosis and its episodes as the browser shows them."""

    diagnosis: DiagnosisReport
    source: str
    """``diagnosis.json``, or why it was computed."""
    episodes: list[dict[str, Any]]
    questions: dict[str, dict[str, Any]]
    """question id -> query, reasoning type, evidence and memory values (shared by the runs)."""


def run_episodes(
    sources: RunSources, data_dir: Path | None, memory_chars: int, histories: HistoryCache
) -> RunEpisodes:
    """Diagnose (or read the diagnosis of) every episode of the run and lay them out for the page.
    ``histories``: the scenarios read so far, by release folder (shared by the runs)."""
    release = sources.data_dir(data_dir)
    diagnoser = Diagnoser(sources, release, histories.setdefault(release.resolve(), {}))
    examined = [diagnoser.examine(record) for record in sources.records()]
    saved, source = _saved_diagnosis(sources.folder, len(examined))
    diagnosis = saved or diagnoser.report(examined)
    labels = {e.id: e.label for e in diagnosis.episodes}
    episodes, questions = [], {}
    for found in examined:
        view = diagnoser.describe(found)
        question_id = split_episode_id(found.record["id"])[0]
        questions.setdefault(question_id, _question(view))
        label = labels.get(found.record["id"], EXACT)
        episodes.append(_episode(found, view, question_id, label, _cutter(diagnoser, found, memory_chars)))
    return RunEpisodes(diagnosis, source, episodes, questions)


def _saved_diagnosis(folder: Path, episodes: int) -> tuple[DiagnosisReport | None, str]:
    path = folder / DIAGNOSIS_FILE
    if not path.is_file():
        return None, f"computed ({DIAGNOSIS_FILE} absent; not written)"
    try:
        saved = DiagnosisReport.model_validate(read_json_document(path))
    except (DamagedFileError, ValidationError):
        return None, f"computed ({DIAGNOSIS_FILE} unreadable or of another format; not written)"
    if saved.overall.episodes != episodes:
        why = f"{DIAGNOSIS_FILE} covers {saved.overall.episodes} episodes, the run has {episodes}"
        return None, f"computed ({why}; not written)"
    return saved, DIAGNOSIS_FILE


def _question(view: dict[str, Any]) -> dict[str, Any]:
    evidence = [
        {"when": e.when, "text": e.text, "lines": [[x.line, x.time, x.speaker, x.text] for x in e.lines]}
        for e in view["evidence"]
    ]
    return {
        "scenario": view["scenario"],
        "index": view["index"],
        "type": view["reasoning_type"],
        "query": view["query"],
        "evidence": evidence,
        "values": view["memory_values"],
    }


def _episode(found: Examined, view: dict[str, Any], question_id: str, label: str, cut: Any) -> dict[str, Any]:
    record = found.record
    scores = {
        key: record[key]["f1"] for key in ("field", "value", "tool") if isinstance(record.get(key), dict)
    }
    return {
        "id": record["id"],
        "q": question_id,
        "trial": view["trial"],
        "label": label,
        "f1": scores,
        "end": view["end_reason"],
        "steps": view["steps"],
        "delivered": view["delivered"],
        "stored": view["stored"],
        "shown": view["values_shown"],
        "memory": _memory(view["memory"], cut),
        "calls": [[c.name, c.args, c.success, c.message] for c in view["calls"]],
        "diff": [[path, d.initial, d.gold, d.agent, d.status] for path, d in view["state_diff"].items()],
        "error": view["error"],
    }


def _cutter(diagnoser: Diagnoser, found: Examined, limit: int) -> Any:
    """A text cut to ``limit`` characters, with its lines that hold a value or evidence."""

    def cut(text: str) -> dict[str, Any]:
        if len(text) <= limit:
            return {"text": text, "chars": len(text)}
        index = diagnoser.quote_index(text)
        lines = evidence_lines(index, found.evidence, found.values)[:MAX_LINES]
        return {"text": text[:limit], "chars": len(text), "lines": [line[:limit] for line in lines]}

    return cut


def _memory(memory: MemoryShown, cut: Any) -> dict[str, Any]:
    shown: dict[str, Any] = {"calls": [[c.name, c.arguments, cut(c.result)] for c in memory.tool_calls]}
    if memory.prompt is not None:
        shown["prompt"] = cut(memory.prompt)
    if memory.prompt_ref is not None:
        shown["prompt"] = {
            "ref": memory.prompt_ref,
            "chars": memory.prompt_chars,
            "lines": memory.prompt_lines,
        }
    return shown
