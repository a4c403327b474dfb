"""Printing report tables (the ``report_tables`` shape) as rich tables."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from execmem.runs.report_tables import ReportTable


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def print_tables(tables: list[ReportTable], console: Console) -> None:
    """Each table with its title, then its notes in grey."""
    for table in tables:
        shown = Table(title=table.title)
        for index, column in enumerate(table.columns):
            shown.add_column(column, justify="left" if index == 0 else "right")
        for row in table.rows:
            shown.add_row(*(_cell(value) for value in row))
        console.print(shown)
        for note in table.notes:
            console.print(f"[dim]{note}[/]", highlight=False, soft_wrap=True)
