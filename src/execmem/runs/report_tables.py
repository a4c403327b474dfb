"""Report tables in one plain JSON shape, the one every report renderer reads.

``{"tables": [{"id", "title", "columns": [...], "rows": [[...], ...], "notes": [...]}]}``: ``id`` is
stable (e.g. ``sieve-funnel``, ``layer-a-resolved``), ``columns`` names each cell of a row, cells are
strings, numbers or null, ``notes`` are sentences that belong under the table. An optional
``chart`` asks the HTML report to draw the table too: ``{"kind": "bars" | "stacked" | "interval" |
"line", "x": column, "y": column, "color": column, "low": column, "high": column, "answers": text}``
(``x`` the category or the quantity along the axis, ``y`` the value; docs/report.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ReportTable:
    id: str
    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    chart: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        table = {
            "id": self.id,
            "title": self.title,
            "columns": list(self.columns),
            "rows": [list(row) for row in self.rows],
            "notes": list(self.notes),
        }
        return table | ({"chart": dict(self.chart)} if self.chart else {})


def tables_document(tables: Iterable[ReportTable]) -> dict[str, Any]:
    """The ``{"tables": [...]}`` document."""
    return {"tables": [table.to_dict() for table in tables]}


def format_cell(value: Any) -> str:
    """A cell as text: numbers to four significant decimals, nothing as a dash, the rest as JSON."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 1000 else f"{value:.4g}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def markdown_cell(value: Any) -> str:
    """``format_cell`` on one line, with ``|`` escaped."""
    return format_cell(value).replace("|", "\\|").replace("\n", " ")


def markdown(tables: Iterable[ReportTable]) -> str:
    """The tables as Markdown: a heading per table, its rows, its notes as a list."""
    parts = []
    for table in tables:
        lines = [f"## {table.title}", "", f"`{table.id}`", ""]
        lines.append("| " + " | ".join(markdown_cell(c) for c in table.columns) + " |")
        lines.append("|" + "---|" * len(table.columns))
        lines += ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in table.rows]
        if not table.rows:
            lines.append("| " + " | ".join(["–"] * len(table.columns)) + " |")
        lines += ["", *(f"- {note}" for note in table.notes)]
        parts.append("\n".join(lines).rstrip() + "\n")
    return "\n".join(parts)
