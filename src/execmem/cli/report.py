"""``execmem report``: one self-contained HTML file of vehicle runs, coding runs, audits and tables
(docs/report.md)."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from execmem.cli.boundary import EXIT_INCOMPLETE, say
from execmem.cli.common import DataOption, check_out_file, open_output

app = typer.Typer(add_completion=False)


@app.command("report")
def report(
    inputs: Annotated[
        list[Path] | None,
        typer.Argument(help="Vehicle or coding run folders, audit folders or audit.json, tables documents."),
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.", dir_okay=False)] = ...,
    open_it: Annotated[bool, typer.Option("--open", help="Open the report in the default browser.")] = False,
    audit: Annotated[
        list[Path] | None,
        typer.Option("--audit", help="A retrieval audit (folder or audit.json); repeatable."),
    ] = None,
    tables: Annotated[
        list[Path] | None,
        typer.Option("--tables", help='A tables document ({"tables": [...]}, e.g. coding compare --json).'),
    ] = None,
    gold: Annotated[
        Path | None, typer.Option(help="The gold vehicle run for MemoryScore.", file_okay=False)
    ] = None,
    data: DataOption = None,
    memory_chars: Annotated[
        int,
        typer.Option(min=100, help="Characters of each memory text kept per episode (its key lines kept)."),
    ] = 1000,
    output_chars: Annotated[
        int, typer.Option(min=100, help="Characters of each command output kept.")
    ] = 1500,
    resamples: Annotated[int, typer.Option(min=100, help="Bootstrap resamples of every interval.")] = 10_000,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap.")] = 0,
    title: Annotated[str, typer.Option(help="The report's title.")] = "execmem report",
) -> None:
    """One self-contained HTML report of runs, audits and tables.

    Scripts, styles, charts and data are inline: it opens offline. Vehicle: leaderboard, charts, paired
    differences, diagnosis and the episode browser; coding: resolved rates, paired effects, analysis
    tables and trajectories. A run still going is shown as far as it got (exit 1)."""
    from execmem.report.build import build_report  # numpy, jinja2, vl-convert: only here
    from execmem.report.inputs import classify
    from execmem.report.options import ReportOptions

    check_out_file(out, "--out")
    found = classify(inputs or [], audit or [], tables or [])
    options = ReportOptions(data, gold, memory_chars, output_chars, resamples, seed, title)
    built = build_report(found, options)
    with open_output(out, "--out") as sink:
        sink.write(built.html)
    say(f"wrote {out} ({len(built.html.encode('utf-8')) / 1e6:.2f} MB)")
    if open_it:
        webbrowser.open(out.resolve().as_uri())
    if not built.complete:
        say("incomplete: " + "; ".join(built.notes) + "; the report shows what exists so far")
        raise typer.Exit(EXIT_INCOMPLETE)
