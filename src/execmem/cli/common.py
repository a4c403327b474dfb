"""Options and output helpers shared by the command groups."""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, TextIO

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from execmem.cli.boundary import fail
from execmem.core.files import atomic_write

__all__ = [
    "DataOption",
    "check_out_file",
    "check_out_folder",
    "comma_list",
    "fail",
    "finite",
    "open_output",
    "print_summary",
]

DataOption = Annotated[
    Path | None,
    typer.Option(
        "--data",
        help="VehicleMemBench release folder (default: $EXECMEM_VEHICLE_DATA, else the fetched copy).",
        file_okay=False,
    ),
]

_stderr = Console(stderr=True)


@contextlib.contextmanager
def open_output(path: Path | None, option: str = "--out") -> Iterator[TextIO]:
    """stdout, or a file that appears whole when the command succeeds: an error midway leaves no
    half-written file, and an existing file as it was."""
    if path is None or str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    check_out_file(path, option)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        yield handle


def comma_list(text: str, option: str, example: str) -> list[str]:
    """The names of a comma-separated option (none when it is not given); a value naming nothing
    (``,``) is refused rather than read as "all"."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if text.strip() and not names:
        raise typer.BadParameter(f"{text!r} names nothing; e.g. {example}", param_hint=f"'{option}'")
    return names


def check_out_file(path: Path | None, option: str = "--out") -> None:
    """Refuse an existing folder given where a file is wanted."""
    if path is not None and path.is_dir():
        fail(f"{option} {path} is a folder; give a file name")


def check_out_folder(path: Path | None, option: str = "--out") -> None:
    """Refuse an existing file given where a folder is wanted (before anything is created)."""
    if path is not None and path.exists() and not path.is_dir():
        fail(f"{option} {path} is a file; give a folder")


def finite(low: float | None = None, high: float | None = None, above: bool = False) -> Callable:
    """A typer callback for a float option: a finite number (not nan or inf), at least ``low`` (more
    than ``low`` with ``above``) and at most ``high``."""

    def check(value: float | None) -> float | None:
        if value is None:
            return value
        if not math.isfinite(value):
            raise typer.BadParameter(f"{value} is not a finite number")
        if low is not None and (value <= low if above else value < low):
            raise typer.BadParameter(f"{value} must be {'more than' if above else 'at least'} {low}")
        if high is not None and value > high:
            raise typer.BadParameter(f"{value} must be at most {high}")
        return value

    return check


def print_summary(summary: dict, title: str) -> None:
    """The summary as a table on stderr: ESM and F1s, overall and per reasoning type."""
    table = Table(title=title)
    for column in ("group", "n", "ESM", "field F1", "value F1", "tool F1"):
        table.add_column(column, justify="left" if column == "group" else "right")
    rows = [("overall", summary["overall"]), *summary["by_reasoning_type"].items()]
    for name, block in rows:
        table.add_row(
            Text(name),
            str(block["n"]),
            f"{block['exact_match']:.3f}",
            *(f"{block[m]['f1']:.3f}" for m in ("field", "value", "tool")),
        )
    _stderr.print(table)
