"""The ``execmem`` command: a thin typer app, one module per command group, each loaded when used.

A command group's modules are imported only when that group runs (or when the root help lists
them): ``execmem vehicle run`` never pays for the coding builder or numpy, ``execmem version``
for neither.
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from execmem import __version__
from execmem.cli.boundary import ExecmemGroup, set_debug

GROUPS: dict[str, tuple[str, ...]] = {
    # group -> its modules, in the order help lists the groups; the first module holds the group's
    # ``app``, the others add commands to it
    "vehicle": ("execmem.cli.vehicle", "execmem.cli.vehicle_run", "execmem.cli.vehicle_audit",
                "execmem.cli.vehicle_compare", "execmem.cli.vehicle_diagnose"),
    "data": ("execmem.cli.data",),
    "coding": ("execmem.cli.coding", "execmem.cli.coding_run", "execmem.cli.coding_sieve",
               "execmem.cli.coding_report"),
}  # fmt: skip
COMMANDS: dict[str, str] = {"report": "execmem.cli.report"}
"""Top-level commands that are no group: command -> the module whose ``app`` holds just that command."""


def load_group(name: str) -> TyperGroup:
    """Import a command group's modules and build its group (typer's own click: click itself need
    not be installed)."""
    modules = [importlib.import_module(module) for module in GROUPS[name]]
    group = typer.main.get_group(modules[0].app)
    group.name = name
    return group


def load_command(name: str) -> TyperCommand:
    """Import a top-level command's module and build its command."""
    command = typer.main.get_command(importlib.import_module(COMMANDS[name]).app)
    command.name = name
    return command


class LazyGroups(ExecmemGroup):
    """The root group: the command groups of ``GROUPS`` and the commands of ``COMMANDS`` are loaded
    on first use."""

    def list_commands(self, ctx: typer.Context) -> list[str]:
        return list(dict.fromkeys([*super().list_commands(ctx), *GROUPS, *COMMANDS]))

    def get_command(self, ctx: typer.Context, cmd_name: str) -> Any:
        if cmd_name not in self.commands and (cmd_name in GROUPS or cmd_name in COMMANDS):
            loaded = load_group(cmd_name) if cmd_name in GROUPS else load_command(cmd_name)
            self.add_command(loaded, cmd_name)
        return super().get_command(ctx, cmd_name)


app = typer.Typer(
    name="execmem",
    help="Executable benchmarks for agent long-term memory.",
    no_args_is_help=True,
    add_completion=False,
    cls=LazyGroups,
)


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
