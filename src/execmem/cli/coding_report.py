"""``execmem coding report`` (every analysis of a set of run folders: Layer A and B, attribution, the
strip ablation, headroom, the gate, the dose curve) and ``execmem coding given-files`` (the strip-arm
and gate files those analyses call for); docs/attribution.md."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from execmem.cli.boundary import EXIT_INCOMPLETE, say
from execmem.cli.coding import app
from execmem.cli.common import check_out_folder, fail
from execmem.runs.coding.analysis.effects import Bootstrap
from execmem.runs.coding.analysis.outputs import report_markdown, write_given_files, write_report
from execmem.runs.coding.analysis.report import ReportSettings, coding_report
from execmem.runs.identity import CompareError
from execmem.runs.paired_stats import N_RESAMPLES
from execmem.runs.permutation_test import N_PERMUTATIONS

RunsArgument = Annotated[
    list[Path],
    typer.Argument(help="Run folders: off, frozen, controls, Layer B runs, given-text runs (any solvers)."),
]
TasksFileOption = Annotated[
    Path | None,
    typer.Option("--tasks", help="The runs' task file, when it moved (default: the one the runs name)."),
]
Threshold = Annotated[float, typer.Option(min=0.0, max=1.0)]


class Anchors(StrEnum):
    gold = "gold"
    statement = "statement"


class GivenKind(StrEnum):
    strip = "strip"
    gate = "gate"
    both = "both"


@app.command("report")
def report(
    runs: RunsArgument,
    sieve: Annotated[
        Path | None, typer.Option(help="SIEVE output folder: its funnel and frozen file.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Write report.md, report.json, attribution.json here.")
    ] = None,
    tasks: TasksFileOption = None,
    n_resamples: Annotated[int, typer.Option(min=1, max=100_000, help="Bootstrap resamples.")] = N_RESAMPLES,
    bootstrap_seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap.")] = 0,
    permutations: Annotated[
        int, typer.Option(min=1, max=1_000_000, help="Sign patterns of the permutation test.")
    ] = N_PERMUTATIONS,
    permutation_seed: Annotated[int, typer.Option(min=0, help="Seed of the permutation test.")] = 0,
    headroom_below: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Headroom predictor: a gain when off is below this.")
    ] = 0.5,
    off_below: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="The gate's memory-off threshold.")
    ] = 0.5,
) -> None:
    """The paper's tables of a set of run folders, as Markdown and JSON (docs/attribution.md)."""
    check_out_folder(out)
    if sieve is not None and not sieve.is_dir():
        fail(f"--sieve {sieve} is not a folder")
    settings = ReportSettings(
        tasks=tasks,
        sieve=sieve,
        bootstrap=Bootstrap(n_resamples, bootstrap_seed),
        n_permutations=permutations,
        permutation_seed=permutation_seed,
        headroom_below=headroom_below,
        off_below=off_below,
    )
    try:
        found = coding_report(runs, settings)
    except CompareError as exc:
        fail(str(exc))
    if out is None:
        typer.echo(report_markdown(found))
    else:
        for path in write_report(found, settings, out):
            say(f"wrote {path}")
    if found.incomplete:
        say(
            f"incomplete: {len(found.incomplete)} runs have unfinished targets; resume them for the "
            "full report"
        )
        raise typer.Exit(EXIT_INCOMPLETE)


@app.command("given-files")
def given_files(
    runs: RunsArgument,
    out: Annotated[Path, typer.Option(help="Folder for the given-text files and plan.json.")],
    kind: Annotated[
        GivenKind, typer.Option(help="strip (the ablation's arms), gate, or both.")
    ] = GivenKind.both,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the random-removed arm.")] = 0,
    off_below: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="The gate's memory-off threshold.")
    ] = 0.5,
    anchors: Annotated[
        Anchors,
        typer.Option(help="The gate's target anchors: gold (the gold patch's) or statement (leak-safe)."),
    ] = Anchors.gold,
    tasks: TasksFileOption = None,
) -> None:
    """The strip-arm and gate given-text files of Layer B runs, and the runs to make with them."""
    check_out_folder(out)
    kinds = ("strip", "gate") if kind is GivenKind.both else (kind.value,)
    try:
        planned = write_given_files(runs, out, kinds, seed, off_below, anchors.value, tasks)
    except CompareError as exc:
        fail(str(exc))
    for run in planned:
        say(f"{run.given_file}: {run.arm} of {run.source.system} ({run.source.solver}) -> run into {run.out}")
    say(f"wrote {out / 'plan.json'} ({len(planned)} runs to make)")
