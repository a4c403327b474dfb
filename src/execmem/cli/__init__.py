"""The typer commands: one module per command group (see ``main``), thin over ``runs`` and the suites."""
