"""``execmem coding run`` and ``execmem coding compare``: paired memory runs on the coding suite."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from execmem.cli.boundary import EXIT_INCOMPLETE, StdoutConsole, say
from execmem.cli.coding import UnsafeOption, app
from execmem.cli.coding_memory import (
    HistoryOption,
    MemoryOption,
    QueryOption,
    TopKOption,
    TruncateOption,
    memory_choice,
)
from execmem.cli.coding_options import (
    ApiKeyEnvOption,
    BaseUrlOption,
    CommandTimeoutOption,
    ConcurrencyOption,
    ContextTokensOption,
    ImageOption,
    LimitOption,
    MaxRetriesOption,
    MaxStepsOption,
    MaxTotalTokensOption,
    ModelOption,
    OnlyOption,
    ReuseOption,
    SandboxKind,
    SandboxOption,
    SeedsOption,
    Solver,
    TasksOption,
    TemperatureOption,
    TimeLimitOption,
    TimeoutOption,
    check_sandbox,
    checked_config,
    model_config,
    only_ids,
    solver_config,
    tasks_path,
)
from execmem.cli.common import check_out_folder, fail
from execmem.cli.endpoint_options import (
    MaxOutputOption,
    NullContent,
    NullContentOption,
    ProbeOption,
    TokenizerOption,
    ToolChoice,
    ToolChoiceOption,
)
from execmem.cli.executor_options import ExecutorName, ExecutorOption, RayAddressOption, chosen_executor
from execmem.cli.memory_options import MemoryOptionsOption
from execmem.cli.run_outcome import check_complete, run_with_progress
from execmem.cli.tables import print_tables
from execmem.runs.coding.compare import compare_runs, load_coding_run
from execmem.runs.coding.config import CodingRunConfig
from execmem.runs.coding.layer_a import layer_a_tables
from execmem.runs.coding.sieve.history_items import HistoryArtifactError
from execmem.runs.episode_log import RunFolderError
from execmem.runs.identity import CompareError
from execmem.runs.paired_stats import N_RESAMPLES
from execmem.runs.report_tables import tables_document
from execmem.suites.coding.frozen import FrozenFileError
from execmem.suites.coding.given import GivenFileError
from execmem.suites.coding.records import RecordError, RecordPolicy
from execmem.suites.coding.sandbox.config import SandboxUnavailable
from execmem.suites.coding.tasks import TaskFileError

_console = Console(stderr=True)
_RUN_ERRORS = (TaskFileError, FrozenFileError, GivenFileError, SandboxUnavailable, RecordError,
               RunFolderError, OSError, HistoryArtifactError)  # fmt: skip


@app.command("run")
def run(
    tasks: TasksOption,
    model: ModelOption,
    out: Annotated[Path, typer.Option(help="Run folder; re-running the same command resumes.")],
    only: OnlyOption = "",
    limit: LimitOption = None,
    memory: MemoryOption = "off",
    frozen: Annotated[
        Path | None,
        typer.Option(
            help="Frozen benchmark file (SIEVE's frozen.jsonl): its targets are run, its texts are the "
            "treatment that irrelevant/other-repo match in length. Give it to every run of a comparison."
        ),
    ] = None,
    given: Annotated[
        Path | None,
        typer.Option(
            help="Given-text file (JSON lines {target, text, arm, derived_from}): with --memory given, "
            "each target's slot text; its targets are run (docs/attribution.md)."
        ),
    ] = None,
    history: HistoryOption = None,
    top_k: TopKOption = None,
    query: QueryOption = None,
    truncate_chars: TruncateOption = None,
    memory_option: MemoryOptionsOption = None,
    seeds: SeedsOption = 4,
    solver: Annotated[
        Solver, typer.Option(help="bash (built-in) or miniswe (mini-swe-agent: the [miniswe] extra).")
    ] = Solver.bash,
    base_url: BaseUrlOption = None,
    api_key_env: ApiKeyEnvOption = "OPENAI_API_KEY",
    temperature: TemperatureOption = 0.0,
    max_output_tokens: MaxOutputOption = None,
    max_steps: MaxStepsOption = 30,
    max_total_tokens: MaxTotalTokensOption = 400_000,
    time_limit: TimeLimitOption = 900.0,
    command_timeout: CommandTimeoutOption = 120.0,
    context_tokens: ContextTokensOption = 100_000,
    n_records: Annotated[int, typer.Option(min=1, help="Memory records inserted.")] = 3,
    max_chars: Annotated[int, typer.Option(min=1, help="Cap on the memory text, in characters.")] = 2000,
    concurrency: ConcurrencyOption = 4,
    max_retries: MaxRetriesOption = 6,
    timeout: TimeoutOption = 300.0,
    cache_dir: Annotated[Path | None, typer.Option(help="Response cache folder (default: the run).")] = None,
    keep_workspaces: Annotated[bool, typer.Option(help="Keep episode folders after scoring.")] = False,
    reuse_evaluations: ReuseOption = False,
    unsafe_local: UnsafeOption = False,
    sandbox: SandboxOption = SandboxKind.bubblewrap,
    image: ImageOption = None,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
    tool_choice: ToolChoiceOption = ToolChoice.auto,
    null_content: NullContentOption = NullContent.empty,
    probe: ProbeOption = True,
    tokenizer: TokenizerOption = "auto",
    executor: ExecutorOption = ExecutorName.local,
    ray_address: RayAddressOption = None,
) -> None:
    """Run every (task, seed) episode under one memory condition; re-running resumes."""
    check_out_folder(out)
    check_out_folder(cache_dir, "--cache-dir")
    chosen = chosen_executor(executor, ray_address)
    config = checked_config(_config, locals())
    try:
        from execmem.runs.coding.run import CodingRun  # the executor and its client: loaded only to run

        coding_run = CodingRun(config, out.resolve())
    except _RUN_ERRORS as exc:
        fail(str(exc))
    metrics = run_with_progress(coding_run, out, quiet, chosen)
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
    check_sandbox(o.sandbox, o.image, o.unsafe_local)
    memory, system = memory_choice(o.memory, o.history, o.top_k, o.query, o.truncate_chars, o.memory_option)
    return CodingRunConfig(
        model=model_config(o), tasks_file=tasks_path(o.tasks), only=only_ids(o.only), limit=o.limit,
        memory=memory, system=system, frozen_file=input_path(o.frozen, "--frozen"),
        given_file=input_path(o.given, "--given"), seeds=o.seeds, solver=solver_config(o),
        solver_kind=o.solver.value,
        records=RecordPolicy(n_records=o.n_records, max_chars=o.max_chars), unsafe_local=o.unsafe_local,
        concurrency=o.concurrency, cache_dir=o.cache_dir.resolve() if o.cache_dir else None,
        keep_workspaces=o.keep_workspaces, image=o.image, reuse_evaluations=o.reuse_evaluations,
    )  # fmt: skip


def input_path(path: Path | None, option: str) -> Path | None:
    """An input file (--frozen, --given), which must exist."""
    if path is None:
        return None
    if not path.is_file():
        raise typer.BadParameter(f"{path} is not a file", param_hint=f"'{option}'")
    return path.expanduser().resolve()


@app.command("compare")
def compare(
    runs: Annotated[
        list[Path],
        typer.Argument(help="Run folders: per solver RUN_OFF, a record or frozen run, any controls."),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    n_resamples: Annotated[int, typer.Option(min=1, max=100_000, help="Bootstrap resamples.")] = N_RESAMPLES,
    bootstrap_seed: Annotated[int, typer.Option(min=0, help="Seed of the bootstrap.")] = 0,
    allow_incomplete: Annotated[
        bool, typer.Option(help="Pair only targets finished for every seed in every run.")
    ] = False,
) -> None:
    """Resolved rates, paired differences with bootstrap 95% CIs, targets gained and lost (Layer A)."""
    try:
        loaded = [load_coding_run(folder) for folder in runs]
        reports = compare_runs(loaded, n_resamples, bootstrap_seed, allow_incomplete)
    except CompareError as exc:
        fail(str(exc))
    tables = layer_a_tables(reports)
    for warning in sorted({w for r in reports for w in r["warnings"]}):  # stderr: --json stays one document
        _console.print(f"[yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    if as_json:
        document = reports[0] if len(reports) == 1 else {"solvers": reports}
        typer.echo(json.dumps({**document, **tables_document(tables)}, indent=2))
    else:
        console = StdoutConsole(width=max(Console().width, 160))  # wide tables stay readable in logs
        for report in reports:
            _print_report(report, console)
        print_tables(tables, console)
    dropped = sum(len(r["dropped_targets"]) for r in reports)
    if dropped:
        say(
            f"incomplete: {dropped} targets left out; resume the runs (re-run "
            "their `execmem coding run` commands) for the full comparison"
        )
        raise typer.Exit(EXIT_INCOMPLETE)


def _print_report(report: dict, console: Console) -> None:
    title = f"{report['solver']}: {report['n_targets']} targets x {len(report['seeds'])} seeds"
    conditions = Table(title=title)
    for column in ("memory", "run", "episodes", "resolved", "suspect", "input tok", "output tok", "steps"):
        conditions.add_column(column, justify="left" if column in ("memory", "run") else "right")
    for role, c in report["conditions"].items():
        label = f"{role} ({c['system']})" if "system" in c else role
        conditions.add_row(
            label, c["run"], str(c["episodes"]), f"{c['resolved_rate']:.3f}", str(c["evaluation_suspect"]),
            f"{c['mean_input_tokens']:.0f}", f"{c['mean_output_tokens']:.0f}", f"{c['mean_steps']:.1f}",
        )  # fmt: skip
    console.print(conditions)
    boot = report["bootstrap"]
    effects = Table(
        title=f"paired differences (bootstrap {boot['n_resamples']} resamples, seed {boot['seed']})"
    )
    for column in ("comparison", "difference", "95% CI", "gained", "lost", "gained N/N", "lost N/N"):
        effects.add_column(column, justify="left" if column == "comparison" else "right")
    for e in report["effects"]:
        ci = f"[{e['low']:+.3f}, {e['high']:+.3f}]" + (" *" if e["low"] > 0 or e["high"] < 0 else "")
        effects.add_row(
            e["comparison"], f"{e['estimate']:+.3f}", ci, str(e["gained"]), str(e["lost"]),
            str(e["gained_full"]), str(e["lost_full"]),
        )  # fmt: skip
    console.print(effects)
    if report["dropped_targets"]:
        _console.print(f"left out (incomplete): {', '.join(report['dropped_targets'])}")
