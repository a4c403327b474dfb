"""``execmem data``: fetch and verify benchmark releases."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from execmem.cli.boundary import EXIT_INCOMPLETE, fail
from execmem.cli.common import check_out_folder
from execmem.suites.vehicle import release

app = typer.Typer(help="Fetch and verify benchmark data.", no_args_is_help=True)

SUITES = ("vehicle",)


class Source(StrEnum):
    """Where ``execmem data fetch`` downloads from."""

    auto = "auto"
    github = "github"
    hf = "hf"


SuiteArg = Annotated[str, typer.Argument(help="Benchmark suite (only 'vehicle' for now).")]


def _check_suite(suite: str) -> None:
    """Only the vehicle suite has a downloadable release."""
    if suite not in SUITES:
        fail(f"unknown suite {suite!r}; available: {', '.join(SUITES)}")


@app.command("fetch")
def fetch_command(
    suite: SuiteArg,
    dest: Annotated[
        Path | None,
        typer.Option(
            help="Install here (default: vehiclemembench/ in $EXECMEM_CACHE, "
            "$XDG_CACHE_HOME/execmem or ~/.cache/execmem)."
        ),
    ] = None,
    source: Annotated[Source, typer.Option(help="Download source; auto = github, then hf.")] = Source.auto,
    url: Annotated[str | None, typer.Option(help="Use this archive URL instead of GitHub's.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Re-fetch even if a verified copy exists.")] = False,
) -> None:
    """Download the release, check every file against the shipped sha256 manifest, install it."""
    _check_suite(suite)
    check_out_folder(dest, "--dest")
    configured = os.environ.get("EXECMEM_VEHICLE_DATA")
    if dest is None and configured and not force and release.is_installed(Path(configured)):
        # Every command reads this copy first, so there is nothing to fetch.
        typer.echo(
            f"VehicleMemBench present and verified in $EXECMEM_VEHICLE_DATA ({configured}); nothing to fetch"
        )
        return
    target = dest.expanduser().resolve() if dest is not None else release.cache_dir()
    if not force and release.is_installed(target):
        typer.echo(f"VehicleMemBench already present and verified in {target} (--force to re-fetch)")
        return
    typer.echo(f"fetching VehicleMemBench ({source.value}) into {target} ...", err=True)
    try:
        installed = release.fetch(target, source=source.value, url=url)
    except (release.FetchError, OSError) as exc:
        fail(str(exc), EXIT_INCOMPLETE)
    typer.echo(f"installed {len(release.MANIFEST)} verified files in {installed}")


@app.command("verify")
def verify_command(
    suite: SuiteArg,
    data: Annotated[
        Path | None,
        typer.Option(help=f"Release directory (default: ${release.ENV_DATA}, else the user cache)."),
    ] = None,
) -> None:
    """Check a local copy of the release against the shipped sha256 manifest."""
    _check_suite(suite)
    try:
        path = release.resolve_data_dir(data)
        problems = release.verify(path)
    except (release.DataNotFound, OSError) as exc:
        fail(str(exc))
    if problems:
        typer.echo(f"{len(problems)} problem(s) in {path}:")
        for problem in problems:
            typer.echo(f"  {problem}")
        raise typer.Exit(1)
    typer.echo(f"OK: {len(release.MANIFEST)} files verified in {path}")
