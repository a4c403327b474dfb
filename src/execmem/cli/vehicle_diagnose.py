"""``execmem vehicle diagnose``: why each failed episode of a run failed (docs/diagnosis.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from execmem.cli.boundary import StdoutConsole, say
from execmem.cli.common import DataOption, fail
from execmem.cli.vehicle import app
from execmem.runs.identity import CompareError
from execmem.runs.vehicle.diagnose import DIAGNOSIS_FILE, diagnose
from execmem.runs.vehicle.diagnosis_report import DiagnosisReport
from execmem.suites.vehicle.dataset import DatasetError
from execmem.suites.vehicle.release import DataNotFound

SHORT_TYPES = {
    "preference_conflict": "pref",
    "conditional_constraint": "cond",
    "coreference_resolution": "coref",
    "state_shift": "shift",
    "error_correction": "corr",
}


@app.command("diagnose")
def diagnose_run(
    run: Annotated[Path, typer.Argument(help="A vehicle run folder.", file_okay=False)],
    data: DataOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the label counts as JSON.")] = False,
) -> None:
    """Label every failed episode with the first broken link (infrastructure, no action, not stored,
    not retrieved, retrieved but not used, wrong tool, wrong value, extra action); write
    RUN/diagnosis.json with each episode's evidence, memory, calls and state diff."""
    try:
        report = diagnose(run, data)
    except (CompareError, DataNotFound, DatasetError) as exc:
        fail(str(exc))
    if as_json:
        summary = report.model_dump(mode="json", exclude={"episodes"})
        typer.echo(json.dumps(summary, indent=2))
    else:
        print_diagnosis(report)
    say(f"wrote {run / DIAGNOSIS_FILE}")


def print_diagnosis(report: DiagnosisReport, console: Console | None = None) -> None:
    """Each label's count and share of the failures, overall and per reasoning type (fits 80
    columns: the types are abbreviated, with a legend)."""
    overall = report.overall
    title = (
        f"{report.run}: {overall.failures} of {overall.episodes} episodes failed "
        f"(memory {report.memory}, stored: {report.stored_basis})"
    )
    table = Table(title=Text(title), box=None, padding=(0, 1), header_style="bold underline")
    table.add_column("first broken link", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("share", justify="right")
    types = list(report.by_reasoning_type)
    for name in types:
        table.add_column(SHORT_TYPES.get(name, name[:6]), justify="right")
    blocks = report.by_reasoning_type.values()
    for label in report.labels:
        cells = [_share(block.shares[label], block.failures) for block in blocks]
        share = _share(overall.shares[label], overall.failures)
        table.add_row(label, str(overall.counts[label]), share, *cells)
    table.add_row("failures", str(overall.failures), "", *(str(b.failures) for b in blocks), style="bold")
    console = console or StdoutConsole()
    console.print(table)
    legend = ", ".join(f"{SHORT_TYPES.get(t, t[:6])} = {t}" for t in types)
    console.print(Text(f"shares of the failures; {legend}"))


def _share(share: float, failures: int) -> str:
    return "-" if not failures else f"{100 * share:.0f}%"
