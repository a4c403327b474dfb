"""Token prices, and what a run's tokens cost.

Prices are per million tokens, input and output apart, in whatever currency the user gives them.
They come from two options (one price for every model) or from a small JSON file naming models:

    {"gpt-4o-mini": {"input": 0.15, "output": 0.60}, "*": {"input": 1.0, "output": 2.0}}

``*`` prices every model the file does not name. A model without a price gets no cost (None),
never a guessed one.
"""

from __future__ import annotations

import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, field_validator

from execmem.core.jsonl import JsonlError, decode_utf8, loads
from execmem.core.pydantic_errors import first_error

ANY_MODEL = "*"
PER = 1_000_000


class PriceError(ValueError):
    """A prices file or option that cannot be read; the message names the file and field."""


class Price(BaseModel):
    """Price per million input and output tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    output: float = Field(ge=0)

    @field_validator("input", "output")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    def cost(self, input_tokens: float, output_tokens: float) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / PER


class PriceTable(RootModel[dict[str, Price]]):
    """Prices by model name (``*``: any other model)."""

    def price_for(self, model: str) -> Price | None:
        return self.root.get(model) or self.root.get(ANY_MODEL)


def load_prices(path: Path) -> PriceTable:
    """The prices file at ``path``; PriceError naming the file and the field when it is wrong."""
    try:
        document = loads(decode_utf8(path.read_bytes(), str(path)), str(path))
        return PriceTable.model_validate(document)
    except OSError as exc:
        raise PriceError(f"{path}: cannot read ({exc.strerror})") from None
    except JsonlError as exc:
        raise PriceError(str(exc)) from None
    except ValidationError as exc:
        raise PriceError(f"{path}: {first_error(exc)} (expected {{MODEL: {{input, output}}}})") from None


def price_table(price_in: float | None, price_out: float | None, path: Path | None) -> PriceTable | None:
    """The prices the options give: a file, or one price for every model (both halves needed)."""
    if path is not None and (price_in is not None or price_out is not None):
        raise PriceError("--prices and --price-in/--price-out exclude each other: give one or the other")
    if path is not None:
        return load_prices(path)
    if price_in is None and price_out is None:
        return None
    if price_in is None or price_out is None:
        raise PriceError("--price-in and --price-out go together: give both (per million tokens)")
    return PriceTable({ANY_MODEL: Price(input=price_in, output=price_out)})


def token_costs(
    price: Price | None, answer: tuple[float, float], build: tuple[float, float]
) -> dict[str, float | None]:
    """Memory build, answering and their total, from (input, output) token counts."""
    if price is None:
        return {"build": None, "answer": None, "total": None}
    costs = {"build": price.cost(*build), "answer": price.cost(*answer)}
    return {key: round(value, 6) for key, value in {**costs, "total": sum(costs.values())}.items()}
