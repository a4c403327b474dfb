"""One-line descriptions of pydantic validation errors, for messages that name the field."""

from __future__ import annotations

from pydantic import ValidationError


def first_error(exc: ValidationError) -> str:
    """``field a.b: what is wrong (and N more errors)``: the first error on one line."""
    errors = exc.errors()
    first = errors[0]
    field = ".".join(str(part) for part in first["loc"]) or "<record>"
    more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
    return f"field {field}: {first['msg']}{more}"
