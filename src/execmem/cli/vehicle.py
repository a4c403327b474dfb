"""``execmem vehicle``: replay, score and lint on the simulated car.

Errors of the input (file, line, field) are raised as the readers' own errors and printed by the
CLI boundary (``cli/boundary.py``); ``--out`` files appear whole or not at all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from execmem.cli.common import DataOption, check_out_file, open_output, print_summary
from execmem.core.jsonl import dumps, read_jsonl
from execmem.suites.vehicle.aggregate import summarize
from execmem.suites.vehicle.calls import CallSyntaxError, parse_calls
from execmem.suites.vehicle.dataset import load_questions
from execmem.suites.vehicle.lint import lint as lint_questions
from execmem.suites.vehicle.release import resolve_data_dir
from execmem.suites.vehicle.replay import replay as replay_calls
from execmem.suites.vehicle.scorebook import InputError, Scorebook, read_predictions

app = typer.Typer(help="The vehicle suite (VehicleMemBench).", no_args_is_help=True)

InputArg = Annotated[Path | None, typer.Argument(help="JSON-lines input file; '-' or omitted reads stdin.")]
OutputOption = Annotated[
    Path | None, typer.Option("--out", "-o", help="Write JSON lines here instead of stdout.")
]


@app.command()
def replay(source: InputArg = None, out: OutputOption = None) -> None:
    """Run {"setup": [...], "calls": [...]} lines on a fresh car; print each diff and call result."""
    with open_output(out) as sink:
        for where, record in read_jsonl(source):
            setup, calls = _replay_input(where, record)
            sink.write(dumps(replay_calls(setup, calls)) + "\n")


def _replay_input(where: str, record: Any) -> tuple[list, list]:
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object with 'calls'")
    try:
        return parse_calls(record.get("setup", []), "setup"), parse_calls(record.get("calls"), "calls")
    except CallSyntaxError as exc:
        raise InputError(f"{where}: field {exc}") from None


@app.command()
def score(
    source: InputArg = None,
    out: OutputOption = None,
    data: DataOption = None,
    summary: Annotated[Path | None, typer.Option(help="Also write the summary as JSON here.")] = None,
) -> None:
    """Score {"id", "scenario", "index", "calls"} lines against the gold answers."""
    check_out_file(out)
    check_out_file(summary, "--summary")
    book = Scorebook.from_release(resolve_data_dir(data))
    predictions = list(read_predictions(book, read_jsonl(source)))
    rows = [book.score_row(question, calls, row_id) for row_id, question, calls in predictions]
    result = summarize(rows)
    with open_output(out) as sink:
        sink.writelines(dumps(row) + "\n" for row in rows)
    if summary:
        with open_output(summary, "--summary") as sink:
            sink.write(json.dumps(result, indent=2) + "\n")
    print_summary(result, title=f"{len(rows)} predictions scored")


@app.command()
def gold(out: OutputOption = None, data: DataOption = None) -> None:
    """Write the gold calls of every question as score input (score them to see the ceiling)."""
    questions = load_questions(resolve_data_dir(data))
    with open_output(out) as sink:
        for q in questions:
            record = {"id": q.id, "scenario": q.scenario, "index": q.index}
            sink.write(dumps({**record, "calls": [c.to_json() for c in q.gold_calls]}) + "\n")


@app.command()
def lint(
    data: DataOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print findings as JSON lines.")] = False,
) -> None:
    """Report gold answers that fail, change nothing, or contradict each other."""
    findings = lint_questions(load_questions(resolve_data_dir(data)))
    if as_json:
        for finding in findings:
            sys.stdout.write(dumps(finding.to_json()) + "\n")
        return
    for finding in findings:
        typer.echo(f"{finding.kind:26} {' / '.join(finding.questions):22} {finding.detail}")
    typer.echo(f"{len(findings)} findings", err=True)
