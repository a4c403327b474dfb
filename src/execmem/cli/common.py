"""Options and output helpers shared by the command groups."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, NoReturn, TextIO

import typer
from rich.console import Console
from rich.table import Table

DataOption = Annotated[
    Path | None,
    typer.Option(
        "--data",
        help="VehicleMemBench release folder (default: $EXECMEM_VEHICLE_DATA, else the fetched copy).",
        file_okay=False,
    ),
]

_stderr = Console(stderr=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error to stderr and exit (no traceback for bad input)."""
    _stderr.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@contextlib.contextmanager
def open_output(path: Path | None) -> Iterator[TextIO]:
    """stdout, or a file written line by line (lines already written survive a later error)."""
    if path is None or str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        yield handle


def print_summary(summary: dict, title: str) -> None:
    """The summary as a table on stderr: ESM and F1s, overall and per reasoning type."""
    table = Table(title=title)
    for column in ("group", "n", "ESM", "field F1", "value F1", "tool F1"):
        table.add_column(column, justify="left" if column == "group" else "right")
    rows = [("overall", summary["overall"]), *summary["by_reasoning_type"].items()]
    for name, block in rows:
        table.add_row(
            name,
            str(block["n"]),
            f"{block['exact_match']:.3f}",
            *(f"{block[m]['f1']:.3f}" for m in ("field", "value", "tool")),
        )
    _stderr.print(table)
