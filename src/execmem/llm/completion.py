"""Check a chat-completion body and read its first choice.

A 200 body is trusted only after this check: a reply the harness cannot read (no choices, a
message that is not an object, usage counts that are not numbers...) is the endpoint's fault,
retried like an error, and never cached. Lone surrogates (``"\\ud800"`` escapes that pair with
nothing) are valid JSON but not text: they become U+FFFD, so what the model wrote can always be
run, written to disk and sent back.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from execmem.core.jsonl import without_lone_surrogates
from execmem.core.protocols import ToolRequest, Usage

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class MalformedResponse(Exception):
    """A 200 answer that is not a usable chat completion."""


@dataclass(frozen=True)
class Completion:
    content: str | None
    tool_calls: tuple[ToolRequest, ...]
    usage: Usage
    finish_reason: str | None
    message: dict[str, Any]


def parse_completion(text: str) -> Completion:
    """The first choice of a chat-completion JSON text; MalformedResponse when it is not one."""
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        raise MalformedResponse(f"response body is not JSON: {text[:120]!r}") from None
    if _SURROGATE_ESCAPE.search(text):
        body = without_lone_surrogates(body)
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedResponse(f"response has no choices: {text[:120]!r}")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise MalformedResponse(f"choice has no message object: {text[:120]!r}")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise MalformedResponse(f"message content is {type(content).__name__}, not a string")
    finish_reason = choices[0].get("finish_reason")
    return Completion(
        content=content,
        tool_calls=_tool_calls(message.get("tool_calls")),
        usage=_usage(body.get("usage")),
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        message=message,
    )


def _tool_calls(calls: Any) -> tuple[ToolRequest, ...]:
    if calls is None:
        return ()
    if not isinstance(calls, list):
        raise MalformedResponse(f"tool_calls is {type(calls).__name__}, not a list")
    return tuple(_tool_call(i, call) for i, call in enumerate(calls))


def _tool_call(index: int, call: Any) -> ToolRequest:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name", ""), str):
        raise MalformedResponse(f"tool call {index} has no function name")
    arguments = function.get("arguments")
    if isinstance(arguments, dict):  # some servers send the object itself
        arguments = json.dumps(arguments, ensure_ascii=False)
    if arguments is not None and not isinstance(arguments, str):
        raise MalformedResponse(f"arguments of tool call {index} are {type(arguments).__name__}")
    call_id = call.get("id")
    return ToolRequest(
        id=call_id if isinstance(call_id, str) and call_id else f"call_{index}",
        name=function.get("name", ""),
        arguments=arguments or "",
    )


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    if not isinstance(usage, dict):
        raise MalformedResponse(f"usage is {type(usage).__name__}, not an object")
    return Usage(_count(usage, "prompt_tokens"), _count(usage, "completion_tokens"))


def _count(usage: dict[str, Any], name: str) -> int:
    value = usage.get(name)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise MalformedResponse(f"usage.{name} is {value!r}, not a token count")
    return value
