"""``execmem coding run`` and ``execmem coding compare``: paired memory runs on the coding suite."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from execmem.agents.coding.config import SolverConfig
from execmem.cli.boundary import EXIT_INCOMPLETE, StdoutConsole, say
from execmem.cli.coding import UnsafeOption, app
from execmem.cli.common import check_out_folder, comma_list, fail, finite
from execmem.cli.endpoint_options import (
    MaxOutputOption,
    NullContent,
    NullContentOption,
    ProbeOption,
    TokenizerOption,
    ToolChoice,
    ToolChoiceOption,
)
from execmem.cli.run_outcome import check_complete, run_with_progress
from execmem.core.pydantic_errors import first_error
from execmem.llm.config import ModelConfig
from execmem.llm.token_counter import TokenizerError, make_counter
from execmem.runs.coding.compare import load_coding_run, paired_report
from execmem.runs.coding.config import CodingRunConfig
from execmem.runs.episode_log import RunFolderError
from execmem.runs.identity import CompareError
from execmem.runs.paired_stats import N_RESAMPLES
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.records import RecordError, RecordPolicy
from execmem.suites.coding.sandbox.config import SandboxUnavailable
from execmem.suites.coding.tasks import TaskFileError

_console = Console(stderr=True)
BUILTIN = "builtin"
_RUN_ERRORS = (TaskFileError, SandboxUnavailable, RecordError, RunFolderError, OSError)
_SECONDS = finite(0, above=True)


class Memory(StrEnum):
    off = "off"
    record = "record"
    irrelevant = "irrelevant"


class SandboxKind(StrEnum):
    bubblewrap = "bubblewrap"
    docker = "docker"


@app.command("run")
def run(
    tasks: Annotated[str, typer.Option(help="`builtin` (the shipped set) or a task file (JSON lines).")],
    model: Annotated[str, typer.Option(help="Model name sent to the endpoint.")],
    out: Annotated[Path, typer.Option(help="Run folder; re-running the same command resumes.")],
    only: Annotated[str, typer.Option(help="Comma-separated instance ids to run (default: all).")] = "",
    limit: Annotated[int | None, typer.Option(min=1, help="Run only the first N tasks.")] = None,
    memory: Annotated[
        Memory, typer.Option(help="off, record (earlier same-repo fixes) or irrelevant.")
    ] = Memory.off,
    seeds: Annotated[int, typer.Option(min=1, help="Episodes per task (sampling seeds 0..N-1).")] = 4,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible base URL (…/v1).")] = None,
    api_key_env: Annotated[str, typer.Option(help="Variable holding the API key.")] = "OPENAI_API_KEY",
    temperature: Annotated[float, typer.Option(callback=finite(0, 2))] = 0.0,
    max_output_tokens: MaxOutputOption = None,
    max_steps: Annotated[int, typer.Option(min=1, help="Model calls per episode.")] = 30,
    max_total_tokens: Annotated[int, typer.Option(min=1, help="Input+output tokens per episode.")] = 400_000,
    time_limit: Annotated[
        float, typer.Option(callback=_SECONDS, help="Seconds of agent time per episode.")
    ] = 900.0,
    command_timeout: Annotated[
        float, typer.Option(callback=_SECONDS, help="Seconds per bash command.")
    ] = 120.0,
    context_tokens: Annotated[
        int, typer.Option(min=1, help="Prompt tokens (see --tokenizer) before stopping.")
    ] = 100_000,
    n_records: Annotated[int, typer.Option(min=1, help="Memory records inserted.")] = 3,
    max_chars: Annotated[int, typer.Option(min=1, help="Cap on the memory text, in characters.")] = 2000,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes in flight.")] = 4,
    max_retries: Annotated[int, typer.Option(min=0, help="Retries of a failing request.")] = 6,
    timeout: Annotated[float, typer.Option(callback=_SECONDS, help="Seconds per request.")] = 300.0,
    cache_dir: Annotated[Path | None, typer.Option(help="Response cache folder (default: the run).")] = None,
    keep_workspaces: Annotated[bool, typer.Option(help="Keep episode folders after scoring.")] = False,
    unsafe_local: UnsafeOption = False,
    sandbox: Annotated[
        SandboxKind,
        typer.Option(help="Where commands run: bubblewrap, or docker (podman if docker is absent)."),
    ] = SandboxKind.bubblewrap,
    image: Annotated[
        str | None, typer.Option(help="With --sandbox docker: the image commands run in (pull it first).")
    ] = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
    tool_choice: ToolChoiceOption = ToolChoice.auto,
    null_content: NullContentOption = NullContent.empty,
    probe: ProbeOption = True,
    tokenizer: TokenizerOption = "auto",
) -> None:
    """Run every (task, seed) episode under one memory condition; re-running resumes."""
    check_out_folder(out)
    check_out_folder(cache_dir, "--cache-dir")
    try:
        config = _config(**locals())
    except ValidationError as exc:
        fail(first_error(exc))
    except TokenizerError as exc:
        fail(str(exc))
    try:
        from execmem.runs.coding.run import CodingRun  # the executor and its client: loaded only to run

        coding_run = CodingRun(config, out.resolve())
    except _RUN_ERRORS as exc:
        fail(str(exc))
    metrics = run_with_progress(coding_run, out, quiet)
    episodes = metrics["episodes"]
    title = f"{out}: {episodes['finished']}/{episodes['expected']} episodes"
    scored = (
        f", resolved {metrics['resolved']} ({metrics['resolved_rate']:.3f})" if episodes["finished"] else ""
    )
    say(title + (scored or ": nothing scored"))
    check_complete(episodes, out / "infra_errors.jsonl")


def _config(**options) -> CodingRunConfig:
    """The run's config from the command's options (pydantic checks the values)."""
    o = SimpleNamespace(**options)
    only = comma_list(o.only, "--only", "toolz-0.12.1__bug-01,parse-1.20.2__bug-02")
    model_config = ModelConfig(
        model=o.model, base_url=o.base_url, api_key_env=o.api_key_env, temperature=o.temperature,
        max_tokens=o.max_output_tokens, max_retries=o.max_retries, timeout_s=o.timeout,
        tool_choice=o.tool_choice.value, null_content=o.null_content.value, probe=o.probe,
    )  # fmt: skip
    solver = SolverConfig(
        max_steps=o.max_steps, max_total_tokens=o.max_total_tokens, time_limit_s=o.time_limit,
        command_timeout_s=o.command_timeout, context_tokens=o.context_tokens, tokenizer=o.tokenizer,
    )  # fmt: skip
    make_counter(o.tokenizer, o.model)  # TokenizerError (a ValueError) now rather than in every episode
    check_sandbox(o.sandbox, o.image, o.unsafe_local)
    return CodingRunConfig(
        model=model_config, tasks_file=tasks_path(o.tasks), only=only, limit=o.limit,
        memory=o.memory.value, seeds=o.seeds, solver=solver,
        records=RecordPolicy(n_records=o.n_records, max_chars=o.max_chars), unsafe_local=o.unsafe_local,
        concurrency=o.concurrency, cache_dir=o.cache_dir.resolve() if o.cache_dir else None,
        keep_workspaces=o.keep_workspaces, image=o.image,
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


@app.command("compare")
def compare(
    runs: Annotated[list[Path], typer.Argument(help="RUN_OFF RUN_RECORD [RUN_IRRELEVANT]")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    n_resamples: Annotated[int, typer.Option(min=1, max=100_000, help="Bootstrap resamples.")] = N_RESAMPLES,
    bootstrap_seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap.")] = 0,
    allow_incomplete: Annotated[
        bool, typer.Option(help="Pair only targets finished for every seed in every run.")
    ] = False,
) -> None:
    """Resolved rates, paired differences with bootstrap 95% CIs, targets gained and lost."""
    try:
        report = paired_report(
            [load_coding_run(folder) for folder in runs], n_resamples, bootstrap_seed, allow_incomplete
        )
    except CompareError as exc:
        fail(str(exc))
    for warning in report["warnings"]:  # on stderr, so --json output stays one document
        _console.print(f"[yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        _print_report(report)
    if report["dropped_targets"]:
        say(
            f"incomplete: {len(report['dropped_targets'])} targets left out; resume the runs (re-run "
            "their `execmem coding run` commands) for the full comparison"
        )
        raise typer.Exit(EXIT_INCOMPLETE)


def _print_report(report: dict) -> None:
    console = StdoutConsole()
    title = f"{report['n_targets']} targets x {len(report['seeds'])} seeds"
    conditions = Table(title=title)
    for column in ("memory", "run", "episodes", "resolved", "suspect", "input tok", "output tok", "steps"):
        conditions.add_column(column, justify="left" if column in ("memory", "run") else "right")
    for role, c in report["conditions"].items():
        conditions.add_row(
            role, c["run"], str(c["episodes"]), f"{c['resolved_rate']:.3f}", str(c["evaluation_suspect"]),
            f"{c['mean_input_tokens']:.0f}", f"{c['mean_output_tokens']:.0f}", f"{c['mean_steps']:.1f}",
        )  # fmt: skip
    console.print(conditions)
    boot = report["bootstrap"]
    effects = Table(
        title=f"paired differences (bootstrap {boot['n_resamples']} resamples, seed {boot['seed']})"
    )
    for column in ("comparison", "difference", "95% CI", "gained", "lost"):
        effects.add_column(column, justify="left" if column == "comparison" else "right")
    for e in report["effects"]:
        ci = f"[{e['low']:+.3f}, {e['high']:+.3f}]" + (" *" if e["low"] > 0 or e["high"] < 0 else "")
        effects.add_row(e["comparison"], f"{e['estimate']:+.3f}", ci, str(e["gained"]), str(e["lost"]))
    console.print(effects)
    if report["dropped_targets"]:
        _console.print(f"left out (incomplete): {', '.join(report['dropped_targets'])}")
