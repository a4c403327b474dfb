"""``execmem vehicle compare``: runs side by side on the same questions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from execmem.cli.boundary import EXIT_INCOMPLETE, StdoutConsole, say
from execmem.cli.common import fail
from execmem.cli.price_options import PriceInOption, PriceOutOption, PricesOption, prices
from execmem.cli.vehicle import app
from execmem.runs.identity import CompareError

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
    resamples: Annotated[
        int, typer.Option(min=100, help="Bootstrap resamples of the ΔESM interval.")
    ] = 10_000,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap.")] = 0,
    price_in: PriceInOption = None,
    price_out: PriceOutOption = None,
    prices_file: PricesOption = None,
) -> None:
    """A table of runs on the same questions: ESM, field/value/tool F1, MemoryScore (ESM / gold ESM,
    same model), MemToken and infrastructure errors; then each run paired with the first, question
    by question: ΔESM with a bootstrap 95% interval, questions won and lost, exact McNemar p; and
    with prices, what building the memory and answering cost."""
    from execmem.runs.vehicle.compare import compare_rows, load_run  # numpy: loaded only to compare

    table = prices(price_in, price_out, prices_file)
    try:
        summaries = [load_run(folder) for folder in runs]
        rows = compare_rows(summaries, load_run(gold) if gold else None, intersect, resamples, seed, table)
    except CompareError as exc:
        fail(str(exc))
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row))
    else:
        print_compare(rows)
        print_paired(rows)
        if table is not None:
            print_costs(rows)
    for line in noise_warnings(rows):
        say(f"warning: {line}", style="yellow", prefix_only=True)
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
    labels, legend = _labels(rows)
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
    console = console or StdoutConsole()
    console.print(table)
    if legend:
        for label, r in zip(labels, rows, strict=True):
            console.print(Text(f"{label}: {r['run']}"))


def _labels(rows: list[dict]) -> tuple[list[str], bool]:
    """Runs by folder name, or R1, R2... when two share a name (then a legend is printed)."""
    labels = [Path(r["run"]).name or r["run"] for r in rows]
    if len(set(labels)) < len(labels):
        return [f"R{n}" for n in range(1, len(rows) + 1)], True
    return labels, False


def print_paired(rows: list[dict], console: Console | None = None) -> None:
    """Each run against the first, question by question (fits 80 columns)."""
    if len(rows) < 2:
        return
    labels, boot = _labels(rows)[0], rows[1]["bootstrap"]
    title = (
        f"paired with {labels[0]} on {rows[0]['n']} questions (bootstrap {boot['resamples']:,} "
        f"resamples, seed {boot['seed']}; noise floor {_number(rows[0]['noise_floor'])})"
    )
    table = Table(title=Text(title), box=None, padding=(0, 1), pad_edge=False, header_style="bold underline")
    table.add_column("run", overflow="fold")
    for header in ("ΔESM", "95% CI", "won", "lost", "McNemar p"):
        table.add_column(header, justify="right", no_wrap=True)
    for label, r in zip(labels[1:], rows[1:], strict=True):
        interval = f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]"
        table.add_row(
            Text(label),
            f"{r['delta_esm']:+.3f}",
            interval,
            str(r["won"]),
            str(r["lost"]),
            f"{r['mcnemar_p']:.3g}",
        )
    (console or StdoutConsole()).print(table)


def print_costs(rows: list[dict], console: Console | None = None) -> None:
    """What each run cost: building its memory, answering the paired questions, both."""
    table = Table(title=Text("cost (prices per million tokens)"), box=None, padding=(0, 1), pad_edge=False)
    table.add_column("run", overflow="fold")
    for header in ("memory build", "answer", "total", "per question"):
        table.add_column(header, justify="right", no_wrap=True)
    for label, r in zip(_labels(rows)[0], rows, strict=True):
        per_question = None if r["cost_answer"] is None else r["cost_answer"] / r["n"]
        cells = (
            _money(r["cost_build"]),
            _money(r["cost_answer"]),
            _money(r["cost_total"]),
            _money(per_question),
        )
        table.add_row(Text(label), *cells)
    (console or StdoutConsole()).print(table)


def noise_warnings(rows: list[dict]) -> list[str]:
    """A line for every run whose ΔESM lies within the noise floor of repeated trials."""
    return [
        f"{r['run']}: ΔESM {r['delta_esm']:+.3f} is within the noise floor {r['noise_floor']:.3f} "
        "(the largest ESM difference between two trials of one run)"
        for r in rows[1:]
        if r["within_noise"]
    ]


def _number(value: float | None) -> str:
    return "unknown: no repeated trials" if value is None else f"{value:.3f}"


def _money(value: float | None) -> str:
    return "-" if value is None else f"{value:,.4f}"
