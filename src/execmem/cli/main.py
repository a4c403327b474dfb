"""The ``execmem`` command: a thin typer app, one module per command group."""

from __future__ import annotations

import typer

from execmem import __version__
from execmem.cli import coding, coding_run, data, vehicle, vehicle_audit, vehicle_run  # noqa: F401 - *_run/*_audit add commands

app = typer.Typer(
    name="execmem",
    help="Executable benchmarks for agent long-term memory.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(vehicle.app, name="vehicle")
app.add_typer(data.app, name="data")
app.add_typer(coding.app, name="coding")


@app.command()
def version() -> None:
    """Print the execmem version."""
    typer.echo(__version__)
