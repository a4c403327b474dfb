"""How an episode's facts are shown in ``diagnosis.json``: evidence lines, calls replayed on a fresh
car, the state diff against gold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from execmem.runs.vehicle.diagnosis_report import CarCall, EvidenceEvent, EvidenceLine, FieldDiff
from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.dataset import HistoryLine
from execmem.suites.vehicle.diagnosis import FieldChange
from execmem.suites.vehicle.evidence import PlacedEvent
from execmem.suites.vehicle.execution import MISSING
from execmem.suites.vehicle.world import VehicleWorld


def evidence_view(placed: Sequence[PlacedEvent], lines: Mapping[int, HistoryLine]) -> list[EvidenceEvent]:
    return [
        EvidenceEvent(
            when=p.event.when.isoformat(),
            text=p.event.text,
            lines=[_line(lines[n]) for n in p.line_ids if n in lines],
        )
        for p in placed
    ]


def _line(line: HistoryLine) -> EvidenceLine:
    return EvidenceLine(
        line=line.line_no, time=f"{line.timestamp:%Y-%m-%d %H:%M}", speaker=line.speaker, text=line.text
    )


def calls_view(calls: Sequence[ToolCall]) -> list[CarCall]:
    """The agent's calls replayed in order on one fresh car, each with what the car answered."""
    world = VehicleWorld(report_state=False)
    shown = []
    for call in calls:
        result = world.call(call.name, call.args)
        shown.append(CarCall(name=call.name, args=call.args, success=result.success, message=result.message))
    return shown


def diff_view(changes: Mapping[str, FieldChange]) -> dict[str, FieldDiff]:
    return {
        path: FieldDiff(
            initial=_shown(c.initial), gold=_shown(c.gold), agent=_shown(c.agent), status=c.status
        )
        for path, c in changes.items()
    }


def _shown(value: Any) -> Any:
    return None if value is MISSING else value
