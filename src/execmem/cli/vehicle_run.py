"""``execmem vehicle run``."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from execmem.cli.boundary import say
from execmem.cli.common import DataOption, check_out_folder, fail, finite, print_summary
from execmem.cli.endpoint_options import (
    MaxOutputOption,
    NullContent,
    NullContentOption,
    ProbeOption,
    TokenizerOption,
    ToolChoice,
    ToolChoiceOption,
    endpoint_warnings,
)
from execmem.cli.executor_options import ExecutorName, ExecutorOption, RayAddressOption, chosen_executor
from execmem.cli.memory_options import (
    MemoryOptionsOption,
    Window,
    WindowLinesOption,
    parse_memory_options,
    windowing,
)
from execmem.cli.price_options import PriceInOption, PriceOutOption, PricesOption, prices
from execmem.cli.run_outcome import check_complete, run_with_progress
from execmem.cli.vehicle import app
from execmem.core.text import slug
from execmem.llm.config import ModelConfig
from execmem.runs.episode_log import RunFolderError
from execmem.runs.prices import PriceTable
from execmem.runs.vehicle.conditions import BUILT, PROTOCOL_A, ConditionError, check_condition
from execmem.runs.vehicle.config import VehicleRunConfig
from execmem.suites.vehicle.dataset import DatasetError
from execmem.suites.vehicle.release import DataNotFound


class MemoryStyle(StrEnum):
    execmem = "execmem"
    release = "release"


def parse_scenarios(text: str) -> list[int]:
    """``1-50``, ``3``, ``1,4,10-12`` -> sorted scenario numbers within 1..50."""
    chosen: set[int] = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not match:
            raise typer.BadParameter(f"{part[:40]!r} is not a number or a range like 1-50", param_hint=_HINT)
        low, high = _number(match.group(1)), _number(match.group(2) or match.group(1))
        if not 1 <= low <= high <= 50:
            raise typer.BadParameter(f"{part[:40]!r} is outside scenarios 1-50", param_hint=_HINT)
        chosen.update(range(low, high + 1))
    if not chosen:
        raise typer.BadParameter(f"{text!r} names no scenario; e.g. 1-50 or 1,3,7-9", param_hint=_HINT)
    return sorted(chosen)


_HINT = "'--scenarios'"


def _number(digits: str) -> int:
    return int(digits) if len(digits) <= 6 else 10**6  # longer ones are out of range anyway


@app.command()
def run(
    model: Annotated[str, typer.Option(help="Model name sent to the endpoint.")],
    memory: Annotated[
        str,
        typer.Option(help="none, gold, full-history, summary, key-value, or a memory system (bm25, ...)."),
    ] = "none",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible base URL (…/v1).")] = None,
    api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    scenarios: Annotated[str, typer.Option(help="Scenarios, e.g. 1-50 or 1,3,7-9.")] = "1-50",
    out: Annotated[Path | None, typer.Option(help="Run folder (default runs/vehicle-MEMORY-MODEL).")] = None,
    max_connections: Annotated[int, typer.Option(min=1, help="Concurrent requests to the endpoint.")] = 16,
    max_steps: Annotated[int, typer.Option(min=1, help="Model calls per episode.")] = 10,
    context_tokens: Annotated[
        int, typer.Option(min=1, help="Prompt budget for full-history memory.")
    ] = 100_000,
    max_retries: Annotated[int, typer.Option(min=0, help="Retries of a failing request.")] = 6,
    timeout: Annotated[
        float, typer.Option(callback=finite(0, above=True), help="Seconds per request.")
    ] = 120.0,
    temperature: Annotated[float, typer.Option(callback=finite(0, 2))] = 0.0,
    trials: Annotated[
        int, typer.Option(min=1, help="Run every question this many times (trial t sends seed SEED+t-1).")
    ] = 1,
    seed: Annotated[
        int | None, typer.Option(help="Request seed of trial 1 (default: none sent; later trials 1, 2, ...).")
    ] = None,
    cache_dir: Annotated[Path | None, typer.Option(help="Share response and memory caches here.")] = None,
    data: DataOption = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
    window: Annotated[
        Window | None, typer.Option(help="Memory systems: how history becomes units (default hour).")
    ] = None,
    window_lines: WindowLinesOption = 8,
    memory_option: MemoryOptionsOption = None,
    top_k: Annotated[int, typer.Option(min=1, help="Memory systems: default top_k of search_memory.")] = 5,
    memory_style: Annotated[
        MemoryStyle,
        typer.Option(help="summary, key-value: execmem's prompts, or the release's method (paper numbers)."),
    ] = MemoryStyle.execmem,
    max_output_tokens: MaxOutputOption = None,
    tool_choice: ToolChoiceOption = ToolChoice.auto,
    null_content: NullContentOption = NullContent.empty,
    tokenizer: TokenizerOption = "auto",
    probe: ProbeOption = True,
    price_in: PriceInOption = None,
    price_out: PriceOutOption = None,
    prices_file: PricesOption = None,
    executor: ExecutorOption = ExecutorName.local,
    ray_address: RayAddressOption = None,
) -> None:
    """Run the benchmark against an endpoint; re-running the same command resumes."""
    model_config = ModelConfig(
        model=model,
        base_url=base_url,
        api_key_env=api_key_env,
        max_connections=max_connections,
        max_retries=max_retries,
        timeout_s=timeout,
        temperature=temperature,
        seed=seed,
        max_tokens=max_output_tokens,
        tool_choice=tool_choice.value,
        null_content=null_content.value,
        probe=probe,
    )
    config = VehicleRunConfig(
        tokenizer=tokenizer,
        model=model_config,
        memory=memory,
        memory_options=_memory_options(memory, window, window_lines, memory_option),
        memory_style=_style(memory, memory_style),
        top_k=top_k,
        scenarios=parse_scenarios(scenarios),
        max_steps=max_steps,
        context_tokens=context_tokens,
        data_dir=data,
        cache_dir=cache_dir,
        trials=trials,
        prices=_price_dict(prices(price_in, price_out, prices_file)),
    )
    if tokenizer != "auto":  # auto always has a counter (characters / 4 at worst)
        from execmem.llm.token_counter import make_counter

        make_counter(tokenizer, model)  # TokenizerError (a ValueError) now, not in the first episode
    folder = out or Path("runs") / f"vehicle-{slug(memory).strip('_')}-{slug(model).strip('_')}"
    check_out_folder(folder)
    check_out_folder(cache_dir, "--cache-dir")
    chosen = chosen_executor(executor, ray_address)
    try:
        check_condition(memory)  # before anything is created
        from execmem.runs.vehicle.run import VehicleRun  # the executor and its client: loaded only to run

        vehicle_run = VehicleRun(config, folder)
    except (RunFolderError, ConditionError, DataNotFound, DatasetError) as exc:
        fail(str(exc))
    metrics = run_with_progress(vehicle_run, folder, quiet, chosen)
    episodes = metrics["episodes"]
    title = f"{folder}: {episodes['finished']}/{episodes['expected']} episodes"
    if metrics["overall"]["n"]:
        print_summary(metrics, title=title)
    else:
        say(f"{title}: nothing scored")
    cost = metrics["cost"]
    if cost["total"] is not None:
        parts = (cost["memory_build"], cost["answer"], cost["total"])
        say("cost: memory build {:,.4f} + answering {:,.4f} = {:,.4f}".format(*parts))
    for line in endpoint_warnings(metrics):
        say(f"warning: {line}", style="yellow", prefix_only=True)
    check_complete(episodes, folder / "infra_errors.jsonl")


def _style(memory: str, style: MemoryStyle) -> str:
    if style is not MemoryStyle.execmem and memory not in BUILT:
        raise typer.BadParameter(
            f"applies to summary and key-value, not {memory!r}", param_hint="--memory-style"
        )
    return style.value


def _price_dict(table: PriceTable | None) -> dict | None:
    return None if table is None else table.root


def _memory_options(memory: str, window: Window | None, lines: int, pairs: list[str] | None) -> dict:
    """Options for a memory system (protocol B); protocol A conditions take none."""
    if memory in PROTOCOL_A:
        if window is not None or pairs:
            raise typer.BadParameter(f"--window and --memory-option apply to memory systems, not {memory!r}")
        return {}
    chosen = {"windowing": windowing(window, lines)} if window else {}
    return {**chosen, **parse_memory_options(pairs)}
