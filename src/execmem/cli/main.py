"""The ``execmem`` command: a thin typer app, one module per command group."""

from __future__ import annotations

from typing import Annotated

import typer

from execmem import __version__
from execmem.cli import (  # noqa: F401 - *_run, *_audit and *_compare add commands to their group
    coding,
    coding_run,
    data,
    vehicle,
    vehicle_audit,
    vehicle_compare,
    vehicle_run,
)
from execmem.cli.boundary import ExecmemGroup, set_debug

app = typer.Typer(
    name="execmem",
    help="Executable benchmarks for agent long-term memory.",
    no_args_is_help=True,
    add_completion=False,
    cls=ExecmemGroup,
)
app.add_typer(vehicle.app, name="vehicle")
app.add_typer(data.app, name="data")
app.add_typer(coding.app, name="coding")


@app.callback()
def root(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the traceback of an internal error (or EXECMEM_DEBUG=1).")
    ] = False,
) -> None:
    """Executable benchmarks for agent long-term memory."""
    set_debug(debug)


@app.command()
def version() -> None:
    """Print the execmem version."""
    typer.echo(__version__)
