"""Report tables in one plain JSON shape, the one every report renderer reads.

``{"tables": [{"id", "title", "columns": [...], "rows": [[...], ...], "notes": [...]}]}``: ``id`` is
stable (e.g. ``sieve-funnel``, ``layer-a-resolved``), ``columns`` names each cell of a row, cells are
strings, numbers or null, ``notes`` are sentences that belong under the table. An optional
``chart`` asks the HTML report to draw the table too: ``{"kind": "bars" | "stacked" | "interval" |
"line", "x": column, "y": column, "color": column, "low": column, "high": column, "answers": text}``
(``x`` the category or the quantity along the axis, ``y`` the value; docs/report.md).
"""

from __future__ import annotations

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
