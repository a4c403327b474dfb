"""``python -m execmem``: the same command line as ``execmem``."""

from execmem.cli.main import app

app(prog_name="execmem")
