"""``execmem coding sieve``: the SIEVE pipeline (docs/sieve.md), its dry run and its funnel."""

from __future__ import annotations

import asyncio
import json
from enum import StrEnum
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from execmem.cli import coding_options as opt
from execmem.cli import endpoint_options as endpoint
from execmem.cli.boundary import EXIT_INCOMPLETE, StdoutConsole, say
from execmem.cli.coding import UnsafeOption, app
from execmem.cli.common import check_out_folder, fail
from execmem.cli.executor_options import ExecutorName, ExecutorOption, RayAddressOption, chosen_executor
from execmem.cli.tables import print_tables
from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.episode_log import RunFolderError
from execmem.runs.report_tables import ReportTable
from execmem.suites.coding.screen import ScreenPolicy
from execmem.suites.coding.tasks import TaskFileError

_stderr = Console(stderr=True, log_path=False)


class Distillers(StrEnum):
    extractive = "extractive"
    llm = "llm"


class HistoryScope(StrEnum):
    shortlist = "shortlist"
    pool = "pool"


@app.command("sieve")
def sieve(
    tasks: opt.TasksOption,
    model: opt.ModelOption,
    out: Annotated[Path, typer.Option(help="SIEVE folder; re-running the same command resumes.")],
    only: opt.OnlyOption = "",
    limit: opt.LimitOption = None,
    seeds: Annotated[int, typer.Option(min=1, help="Seeds per condition in the verification.")] = 4,
    solver: Annotated[
        opt.Solver,
        typer.Option(help="The reference solver: bash (built-in) or miniswe (the [miniswe] extra)."),
    ] = opt.Solver.bash,
    history_seeds: Annotated[int, typer.Option(min=1, help="Seeds per history task.")] = 1,
    history_scope: Annotated[
        HistoryScope, typer.Option(help="Run the shortlisted history tasks, or every task of each pool.")
    ] = HistoryScope.shortlist,
    top_n: Annotated[int, typer.Option(min=1, help="Candidates shortlisted per target.")] = 3,
    min_score: Annotated[float, typer.Option(min=0, help="A candidate must score above this.")] = 0.0,
    judge: Annotated[
        bool, typer.Option(help="An LLM judge keeps the relevant shortlisted candidates.")
    ] = False,
    judge_model: Annotated[str | None, typer.Option(help="Judge model (default: --model).")] = None,
    distiller: Annotated[
        Distillers, typer.Option(help="extractive (no model) or llm.")
    ] = Distillers.extractive,
    distiller_model: Annotated[str | None, typer.Option(help="Distiller model (default: --model).")] = None,
    drop_unanchored: Annotated[bool, typer.Option(help="Drop experiences with unanchored claims.")] = False,
    dry_run: Annotated[bool, typer.Option(help="Print what each stage would run, then stop.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the funnel (or the plan) as JSON.")] = False,
    base_url: opt.BaseUrlOption = None,
    api_key_env: opt.ApiKeyEnvOption = "OPENAI_API_KEY",
    temperature: opt.TemperatureOption = 0.0,
    max_output_tokens: endpoint.MaxOutputOption = None,
    max_steps: opt.MaxStepsOption = 30,
    max_total_tokens: opt.MaxTotalTokensOption = 400_000,
    time_limit: opt.TimeLimitOption = 900.0,
    command_timeout: opt.CommandTimeoutOption = 120.0,
    context_tokens: opt.ContextTokensOption = 100_000,
    concurrency: opt.ConcurrencyOption = 4,
    max_retries: opt.MaxRetriesOption = 6,
    timeout: opt.TimeoutOption = 300.0,
    unsafe_local: UnsafeOption = False,
    sandbox: opt.SandboxOption = opt.SandboxKind.bubblewrap,
    image: opt.ImageOption = None,
    quiet: opt.QuietOption = False,
    reuse_evaluations: opt.ReuseOption = True,
    tool_choice: endpoint.ToolChoiceOption = endpoint.ToolChoice.auto,
    null_content: endpoint.NullContentOption = endpoint.NullContent.empty,
    probe: endpoint.ProbeOption = True,
    tokenizer: endpoint.TokenizerOption = "auto",
    executor: ExecutorOption = ExecutorName.local,
    ray_address: RayAddressOption = None,
) -> None:
    """Find the targets whose history holds an experience that helps: four resumable stages."""
    check_out_folder(out)
    chosen = chosen_executor(executor, ray_address)
    config = opt.checked_config(_config, locals())
    from execmem.runs.coding.sieve.pipeline import SievePipeline  # the executor: loaded only to run

    progress = (lambda message: None) if quiet else _stderr.log
    try:
        pipeline = SievePipeline(config, progress, executor=chosen)
    except (TaskFileError, RunFolderError) as exc:
        fail(str(exc))
    if dry_run:
        rows = pipeline.plan()
        typer.echo(json.dumps({"plan": rows}, indent=2)) if as_json else _print_plan(rows)
        return
    _run(pipeline, out, as_json)


def _run(pipeline, out: Path, as_json: bool) -> None:
    from execmem.runs.coding.sieve.episodes import SieveIncomplete

    try:
        document = asyncio.run(pipeline.run())
    except SieveIncomplete as exc:
        say(f"incomplete: {exc}")
        raise typer.Exit(EXIT_INCOMPLETE) from None
    except KeyboardInterrupt:
        say(f"interrupted: finished work is kept in {out}; re-run the same command to resume")
        raise typer.Exit(130) from None
    if as_json:
        typer.echo(json.dumps(document, indent=2))
    else:
        tables = [ReportTable(**table) for table in document["tables"]]
        print_tables(tables, StdoutConsole(width=max(Console().width, 160)))
    say(f"{out}: {len(document['kept'])} targets kept; frozen benchmark file {out / 'frozen.jsonl'}")


def _config(**options) -> SieveConfig:
    o = SimpleNamespace(**options)
    opt.check_sandbox(o.sandbox, o.image, o.unsafe_local)
    solver_model = opt.model_config(o)
    screen = ScreenPolicy(top_n=o.top_n, min_score=o.min_score)

    def named(name: str | None):  # the solver's endpoint settings with another model name
        return solver_model.model_copy(update={"model": name}) if name else None

    return SieveConfig(
        tasks_file=opt.tasks_path(o.tasks), out=o.out.resolve(), model=solver_model,
        solver=opt.solver_config(o), only=opt.only_ids(o.only), limit=o.limit, screen=screen, judge=o.judge,
        judge_model=named(o.judge_model),
        history_scope=o.history_scope.value, history_seeds=o.history_seeds, distiller=o.distiller.value,
        distiller_model=named(o.distiller_model),
        drop_unanchored=o.drop_unanchored, seeds=o.seeds, unsafe_local=o.unsafe_local, image=o.image,
        concurrency=o.concurrency, reuse_evaluations=o.reuse_evaluations, solver_kind=o.solver.value,
    )  # fmt: skip


def _print_plan(rows: list[dict]) -> None:
    table = Table(title="SIEVE dry run: nothing is run")
    for column in ("stage", "work", "episodes (at most)", "model calls (at most)"):
        table.add_column(column, justify="left" if column in ("stage", "work") else "right")
    for row in rows:
        table.add_row(
            row["stage"], row["work"], str(row["episodes_at_most"]), str(row["model_calls_at_most"])
        )
    StdoutConsole(width=max(Console().width, 140)).print(table)
