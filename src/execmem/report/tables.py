"""Tables documents, ``{"tables": [{"id", "title", "columns", "rows", "notes"}]}``, rendered as they
come: the coding analyses (Layer A / Layer B, attribution, strip ablation, headroom, dose curves)
that ``execmem coding compare --json`` and later commands write."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from execmem.core.files import DamagedFileError, read_json_document
from execmem.core.pydantic_errors import first_error
from execmem.report.errors import ReportError
from execmem.runs.report_tables import format_cell

SKIPPED = ("manifest.json", "memory.json", "metrics.json", "config.json")
"""A run folder's own files, never tables documents."""
MAX_BYTES = 20_000_000


class ChartHint(BaseModel):
    """How a table asks to be drawn (``runs.report_tables``): columns named, never positions."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["bars", "stacked", "interval", "line"]
    x: str
    y: str
    color: str | None = None
    low: str | None = None
    high: str | None = None
    answers: str = ""

    def named(self) -> list[str]:
        return [c for c in (self.x, self.y, self.color, self.low, self.high) if c is not None]


class Table(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    title: str
    columns: list[str]
    rows: list[list[Any]]
    notes: list[str] = []
    chart: ChartHint | None = None

    @model_validator(mode="after")
    def _rows_fit(self) -> Table:
        for n, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"row {n} has {len(row)} cells for {len(self.columns)} columns")
        unknown = [c for c in (self.chart.named() if self.chart else []) if c not in self.columns]
        if unknown:
            raise ValueError(f"chart names {unknown[0]!r}, which is not one of the columns")
        if self.chart and self.chart.kind == "interval" and not (self.chart.low and self.chart.high):
            raise ValueError("an interval chart needs its 'low' and 'high' columns")
        return self


class TablesDocument(BaseModel):
    model_config = ConfigDict(extra="allow")

    tables: list[Table]


def load_tables(path: Path) -> TablesDocument:
    """A tables document; ReportError naming the file and the field when it is not one."""
    try:
        return TablesDocument.model_validate(read_json_document(path))
    except DamagedFileError as exc:
        raise ReportError(str(exc)) from None
    except ValidationError as exc:
        raise ReportError(f"{path}: not a tables document ({first_error(exc)})") from None


def folder_tables(folder: Path) -> list[tuple[Path, TablesDocument]]:
    """The tables documents a run folder holds (its top-level ``*.json`` with a ``tables`` list)."""
    found = []
    for path in sorted(folder.glob("*.json")):
        if path.name in SKIPPED or path.stat().st_size > MAX_BYTES:
            continue
        try:
            document = read_json_document(path)
        except DamagedFileError:
            continue
        if isinstance(document, dict) and isinstance(document.get("tables"), list):
            found.append((path, load_tables(path)))
    return found


def cell(value: Any) -> str:
    """A cell as text (``runs.report_tables.format_cell``: the Markdown tables read the same)."""
    return format_cell(value)
