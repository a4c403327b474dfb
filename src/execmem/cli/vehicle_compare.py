"""``execmem vehicle compare``: runs side by side on the same questions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from execmem.cli.boundary import EXIT_INCOMPLETE, say
from execmem.cli.common import fail
from execmem.cli.vehicle import app
from execmem.runs.identity import CompareError
from execmem.runs.vehicle.compare import compare_rows, load_run

_NUMBER_HEADERS = (
    "n", "ESM", "field\nF1", "value\nF1", "tool\nF1", "Memory\nScore", "Mem\nToken", "infra\nerrors",
)  # fmt: skip


@app.command()
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Run folders.")],
    gold: Annotated[
        Path | None, typer.Option(help="The gold run for MemoryScore (default: a gold run given).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print rows as JSON lines.")] = False,
    intersect: Annotated[
        bool, typer.Option(help="Pair runs on the questions all of them finished (else refuse).")
    ] = False,
) -> None:
    """A table of runs on the same questions: ESM, field/value/tool F1, MemoryScore (ESM / gold ESM,
    same model), MemToken and infrastructure errors."""
    try:
        summaries = [load_run(folder) for folder in runs]
        rows = compare_rows(summaries, load_run(gold) if gold else None, intersect)
    except CompareError as exc:
        fail(str(exc))
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row))
    else:
        print_compare(rows)
    incomplete = [r for r in rows if r["missing"] != 0]
    if incomplete:
        say(
            f"incomplete: paired on {rows[0]['n']} questions; "
            + "; ".join(f"{r['run']} misses {_missing(r)}" for r in incomplete)
            + "; resume those runs (re-run their `execmem vehicle run` commands) for the full comparison"
        )
        raise typer.Exit(EXIT_INCOMPLETE)


def _missing(row: dict) -> str:
    if row["missing"] is None:
        return "its metrics (it never finished)"
    return f"{row['missing']} episodes ({row['infra_errors']} infra errors)"


def print_compare(rows: list[dict], console: Console | None = None) -> None:
    """The comparison as a table that fits 80 columns: runs by folder name (full paths in a legend
    when names repeat), the model in the title when all runs share it."""
    labels = [Path(r["run"]).name or r["run"] for r in rows]
    legend = len(set(labels)) < len(labels)
    if legend:
        labels = [f"R{n}" for n in range(1, len(rows) + 1)]
    models = {r["model"] for r in rows}
    title = f"{rows[0]['n']} questions" + (f", model {rows[0]['model']}" if len(models) == 1 else "")
    table = Table(title=Text(title), box=None, padding=(0, 1), pad_edge=False, header_style="bold underline")
    table.add_column("run", overflow="fold")
    table.add_column("memory" if len(models) == 1 else "memory / model", overflow="fold")
    for header in _NUMBER_HEADERS:
        table.add_column(header, justify="right", no_wrap=True)
    for label, r in zip(labels, rows, strict=True):
        memory = r["memory"] if len(models) == 1 else f"{r['memory']} / {r['model']}"
        score = "-" if r["memory_score"] is None else f"{r['memory_score']:.3f}"
        f1s = (f"{r[key]:.3f}" for key in ("esm", "field_f1", "value_f1", "tool_f1"))
        numbers = (*f1s, score, f"{r['memtoken']:.0f}", str(r["infra_errors"]))
        table.add_row(Text(label), Text(memory), str(r["n"]), *numbers)
    console = console or Console()
    console.print(table)
    if legend:
        for label, r in zip(labels, rows, strict=True):
            console.print(Text(f"{label}: {r['run']}"))
