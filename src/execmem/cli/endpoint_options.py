"""Options that adapt the runs to an endpoint, and the warnings a finished run gives about it."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

MaxOutputOption = Annotated[
    int | None, typer.Option(min=1, help="Cap on tokens per reply (max_tokens); a cut reply is recorded.")
]


class ToolChoice(StrEnum):
    auto = "auto"
    required = "required"
    omit = "omit"


class NullContent(StrEnum):
    empty = "empty"
    null = "null"


ToolChoiceOption = Annotated[
    ToolChoice,
    typer.Option(
        help="tool_choice sent with the tools (llama-cpp-python ignores tools without it); omit: none."
    ),
]
NullContentOption = Annotated[
    NullContent, typer.Option(help='Assistant messages without text are sent back as "" (empty) or null.')
]
TokenizerOption = Annotated[
    str,
    typer.Option(
        help="How --context-tokens is counted: auto, chars, tiktoken:ENCODING or a tokenizer.json path."
    ),
]
ProbeOption = Annotated[
    bool, typer.Option(help="Send one small request first: a wrong URL, key or model fails in seconds.")
]


def endpoint_warnings(metrics: dict[str, Any], limit: int = 3) -> list[str]:
    """What the user should know about how the endpoint served the run, one line each."""
    lines = []
    infra = metrics["episodes"]["infra_errors"]
    if infra:
        reasons = sorted(metrics.get("infra_error_reasons", {}).items(), key=lambda item: -item[1])
        said = "; ".join(f"{count} x {reason}" for reason, count in reasons[:limit])
        lines.append(f"{infra} episodes hit infrastructure errors ({said}); re-run to retry them")
    served = metrics.get("endpoint", {})
    replied = served.get("episodes_with_replies", 0)
    if replied and served.get("episodes_without_tool_calls") == replied:
        lines.append(
            "the model called no tool in any episode: does the endpoint pass tools to it? "
            "(docs/endpoints.md; --tool-choice)"
        )
    if served.get("context_length_failures"):
        lines.append(f"{served['context_length_failures']} episodes ended at the model's context window")
    if served.get("truncated_replies"):
        lines.append(f"{served['truncated_replies']} replies were cut at --max-output-tokens")
    return lines
