"""Asking a model for one JSON object that a pydantic model validates, with one repair turn.

The reply's text may wrap the object in a Markdown code fence or in prose: the first ``{`` to the
last ``}`` is parsed. A reply that does not parse or validate gets one more turn naming what was
wrong; a second failure is a :class:`JsonReplyError` (the caller records it, nothing is guessed).
Replies come through the project's client, so they are cached like every other request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from execmem.core.protocols import Model
from execmem.core.pydantic_errors import first_error

Schema = TypeVar("Schema", bound=BaseModel)
REPAIR = "Your reply could not be used ({problem}). Reply with only the JSON object, nothing else."


class JsonReplyError(ValueError):
    """The model gave no valid JSON object, even after the repair turn."""


def parse_object(text: str, schema: type[Schema]) -> Schema:
    """The object in ``text`` validated by ``schema``; ValueError saying what is wrong."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the reply")
    try:
        raw = json.loads(text[start : end + 1])
    except ValueError as exc:
        raise ValueError(f"not valid JSON: {exc}") from None
    try:
        return schema.model_validate(raw)
    except ValidationError as exc:
        raise ValueError(first_error(exc)) from None


async def ask_json(
    model: Model, messages: Sequence[dict[str, Any]], schema: type[Schema], repairs: int = 1
) -> Schema:
    """Ask until the reply validates (at most ``1 + repairs`` calls)."""
    conversation = list(messages)
    problem = ""
    for _ in range(1 + repairs):
        reply = await model.complete(conversation, None)
        text = reply.content or ""
        try:
            return parse_object(text, schema)
        except ValueError as exc:
            problem = str(exc)
        conversation += [
            {"role": "assistant", "content": text},
            {"role": "user", "content": REPAIR.format(problem=problem)},
        ]
    raise JsonReplyError(f"no valid JSON object after {1 + repairs} replies: {problem}")
