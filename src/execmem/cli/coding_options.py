"""Options shared by ``execmem coding run`` and ``execmem coding sieve``: the endpoint, the solver's
budgets, the sandbox, the task selection, and how they become configs."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from execmem.agents.coding.config import SolverConfig
from execmem.cli.common import comma_list, fail, finite
from execmem.core.pydantic_errors import first_error
from execmem.llm.config import ModelConfig
from execmem.llm.token_counter import TokenizerError, make_counter
from execmem.suites.coding.paths import builtin_tasks_path

BUILTIN = "builtin"
_SECONDS = finite(0, above=True)


class Solver(StrEnum):
    bash = "bash"
    miniswe = "miniswe"


class SandboxKind(StrEnum):
    bubblewrap = "bubblewrap"
    docker = "docker"


TasksOption = Annotated[str, typer.Option(help="`builtin` (the shipped set) or a task file (JSON lines).")]
ModelOption = Annotated[str, typer.Option(help="Model name sent to the endpoint.")]
OnlyOption = Annotated[str, typer.Option(help="Comma-separated instance ids to run (default: all).")]
LimitOption = Annotated[int | None, typer.Option(min=1, help="Run only the first N tasks.")]
SeedsOption = Annotated[int, typer.Option(min=1, help="Episodes per task (sampling seeds 0..N-1).")]
BaseUrlOption = Annotated[str | None, typer.Option(help="OpenAI-compatible base URL (…/v1).")]
ApiKeyEnvOption = Annotated[str, typer.Option(help="Variable holding the API key.")]
TemperatureOption = Annotated[float, typer.Option(callback=finite(0, 2))]
MaxStepsOption = Annotated[int, typer.Option(min=1, help="Model calls per episode.")]
MaxTotalTokensOption = Annotated[int, typer.Option(min=1, help="Input+output tokens per episode.")]
TimeLimitOption = Annotated[float, typer.Option(callback=_SECONDS, help="Seconds of agent time per episode.")]
CommandTimeoutOption = Annotated[float, typer.Option(callback=_SECONDS, help="Seconds per bash command.")]
ContextTokensOption = Annotated[
    int, typer.Option(min=1, help="Prompt tokens (see --tokenizer) before stopping.")
]
ConcurrencyOption = Annotated[int, typer.Option(min=1, help="Episodes in flight.")]
MaxRetriesOption = Annotated[int, typer.Option(min=0, help="Retries of a failing request.")]
TimeoutOption = Annotated[float, typer.Option(callback=_SECONDS, help="Seconds per request.")]
SandboxOption = Annotated[
    SandboxKind, typer.Option(help="Where commands run: bubblewrap, or docker (podman if docker is absent).")
]
ImageOption = Annotated[
    str | None, typer.Option(help="With --sandbox docker: the image commands run in (pull it first).")
]
QuietOption = Annotated[bool, typer.Option(help="No progress output.")]
ReuseOption = Annotated[
    bool, typer.Option(help="Identical diffs of a task share one evaluation (their tests run once).")
]


def checked_config(build: Callable[..., Any], options: dict[str, Any]) -> Any:
    """``build(**options)``; a value pydantic or the tokenizer refuses is one ``error:`` line."""
    try:
        return build(**options)
    except ValidationError as exc:
        fail(first_error(exc))
    except TokenizerError as exc:
        fail(str(exc))


def only_ids(only: str) -> list[str]:
    return comma_list(only, "--only", "toolz-0.12.1__bug-01,parse-1.20.2__bug-02")


def model_config(o: SimpleNamespace) -> ModelConfig:
    """The endpoint's config from the command's options."""
    return ModelConfig(
        model=o.model, base_url=o.base_url, api_key_env=o.api_key_env, temperature=o.temperature,
        max_tokens=o.max_output_tokens, max_retries=o.max_retries, timeout_s=o.timeout,
        tool_choice=o.tool_choice.value, null_content=o.null_content.value, probe=o.probe,
    )  # fmt: skip


def solver_config(o: SimpleNamespace) -> SolverConfig:
    """The solver's budgets; a bad --tokenizer fails now (TokenizerError), not in every episode."""
    make_counter(o.tokenizer, o.model)
    return SolverConfig(
        max_steps=o.max_steps, max_total_tokens=o.max_total_tokens, time_limit_s=o.time_limit,
        command_timeout_s=o.command_timeout, context_tokens=o.context_tokens, tokenizer=o.tokenizer,
    )  # fmt: skip


def check_sandbox(kind: SandboxKind, image: str | None, unsafe_local: bool) -> None:
    """--image goes with --sandbox docker and only with it; --unsafe-local only with bubblewrap."""
    if kind is SandboxKind.docker and not image:
        raise typer.BadParameter("--sandbox docker needs the image to run in", param_hint="'--image'")
    if kind is not SandboxKind.docker and image:
        raise typer.BadParameter("an image is used only with --sandbox docker", param_hint="'--image'")
    if kind is SandboxKind.docker and unsafe_local:
        raise typer.BadParameter("applies to --sandbox bubblewrap only", param_hint="'--unsafe-local'")


def tasks_path(tasks: str) -> Path:
    """The shipped set for ``builtin``, else the named file (which must exist)."""
    if tasks == BUILTIN:
        return builtin_tasks_path()
    path = Path(tasks).expanduser().resolve()
    if not path.is_file():
        fail(f"--tasks: {tasks} is not a file (give a task file, or `{BUILTIN}` for the shipped set)")
    return path
