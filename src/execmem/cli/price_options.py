"""Price options shared by ``vehicle run`` and ``vehicle compare``: what tokens cost."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from execmem.cli.common import fail, finite
from execmem.runs.prices import PriceError, PriceTable, price_table

PriceInOption = Annotated[
    float | None,
    typer.Option("--price-in", callback=finite(0), help="Price per million input tokens (with --price-out)."),
]
PriceOutOption = Annotated[
    float | None,
    typer.Option(
        "--price-out", callback=finite(0), help="Price per million output tokens (with --price-in)."
    ),
]
PricesOption = Annotated[
    Path | None,
    typer.Option(
        "--prices",
        dir_okay=False,
        help='JSON prices by model: {"MODEL": {"input": X, "output": Y}, "*": ...}.',
    ),
]


def prices(price_in: float | None, price_out: float | None, path: Path | None) -> PriceTable | None:
    """The prices the options give (None without any); one error line when they are wrong."""
    try:
        return price_table(price_in, price_out, path)
    except PriceError as exc:
        fail(str(exc))
