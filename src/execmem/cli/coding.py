"""``execmem coding``: build the offline task set and validate task files."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from execmem.cli.common import check_out_file, comma_list, fail, open_output
from execmem.suites.coding.builder.build import BuildConfig, BuildError, TaskBuilder
from execmem.suites.coding.builder.stats import RepoStats
from execmem.suites.coding.builder.validation import TaskCheck, validate_task
from execmem.suites.coding.gitrepo import GitError
from execmem.suites.coding.paths import cache_root
from execmem.suites.coding.pypi import SdistError
from execmem.suites.coding.sandbox.config import SandboxUnavailable
from execmem.suites.coding.sources import SourceError
from execmem.suites.coding.tasks import CodingTask, TaskFileError, dump_tasks, load_tasks, select_tasks
from execmem.suites.coding.venvs import VenvBuildError, VenvCache
from execmem.suites.coding.workspace import EpisodeError

app = typer.Typer(
    help="The coding suite: real repositories, injected bugs, sandboxed tests.", no_args_is_help=True
)
_stderr = Console(stderr=True, log_path=False)
_tables = Console(stderr=True, width=max(_stderr.width, 120))  # summary tables stay readable in logs
_ERRORS = (
    TaskFileError,
    SandboxUnavailable,
    SdistError,
    VenvBuildError,
    BuildError,
    ValueError,
    OSError,
)

_TASK_ERRORS = (EpisodeError, SourceError, GitError, SdistError, VenvBuildError)
UnsafeOption = Annotated[
    bool,
    typer.Option(
        "--unsafe-local", help="Run commands without bubblewrap (NO isolation). Only if bwrap is missing."
    ),
]
StatsOption = Annotated[
    Path | None, typer.Option("--stats", help="Also write timings and counts as JSON here.")
]


@app.command("build-tasks")
def build_tasks(
    out: Annotated[Path, typer.Option("--out", "-o", help="Task file to write (JSON lines).")],
    seed: Annotated[int, typer.Option(help="Seed for bug choice, samples and dates.")] = 0,
    per_repo: Annotated[int, typer.Option("--per-repo", help="Tasks wanted per library.")] = 6,
    families: Annotated[
        int,
        typer.Option(
            "--families", min=0, help="Targets per library given an earlier same-family task (0: none)."
        ),
    ] = 2,
    repos: Annotated[str, typer.Option(help="Comma-separated built-in libraries (default: all).")] = "",
    unsafe_local: UnsafeOption = False,
    stats: StatsOption = None,
) -> None:
    """Download the pinned sdists, inject bugs their tests catch, validate each task, write them."""
    names = comma_list(repos, "--repos", "toolz,parse")
    check_out_file(out)
    check_out_file(stats, "--stats")
    config = BuildConfig(
        seed=seed, per_repo=per_repo, families_per_repo=families, repos=names, unsafe_local=unsafe_local
    )
    start = time.monotonic()
    try:
        tasks, repo_stats = TaskBuilder(config, cache_root(), progress=_stderr.log).build()
    except _ERRORS as exc:
        fail(str(exc))
    dump_tasks(tasks, out)
    _print_build(repo_stats, len(tasks), time.monotonic() - start)
    if stats is not None:
        record = {"config": config.model_dump(mode="json"), "repos": [s.to_dict() for s in repo_stats]}
        with open_output(stats, "--stats") as sink:
            sink.write(json.dumps(record, indent=2))


@app.command()
def validate(
    tasks_file: Annotated[Path, typer.Argument(help="Task file (JSON lines).", exists=True, dir_okay=False)],
    only: Annotated[str, typer.Option(help="Comma-separated instance ids to check (default: all).")] = "",
    unsafe_local: UnsafeOption = False,
    stats: StatsOption = None,
) -> None:
    """Re-check every task: the unpatched copy fails as recorded, the gold patch resolves it."""
    wanted = comma_list(only, "--only", "toolz-0.12.1__bug-01,parse-1.20.2__bug-02")
    check_out_file(stats, "--stats")
    try:
        tasks = select_tasks(load_tasks(tasks_file), wanted, None)
    except _ERRORS as exc:
        fail(str(exc))
    env_cache = VenvCache(cache_root() / "envs")
    checks: list[TaskCheck] = []
    with tempfile.TemporaryDirectory(prefix="execmem-validate-") as scratch:
        for task in tasks:
            checks.append(_check(task, Path(scratch), env_cache, unsafe_local))
            _stderr.log(f"{task.instance_id}: {checks[-1].reason}")
    _print_checks(checks)
    if stats is not None:
        with open_output(stats, "--stats") as sink:
            sink.write(json.dumps([c.to_dict() for c in checks], indent=2))
    if not all(check.ok for check in checks):
        raise typer.Exit(1)


def _check(task: CodingTask, scratch: Path, env_cache: VenvCache, unsafe_local: bool) -> TaskCheck:
    """One task's verdict; a task that cannot be prepared is invalid, not a crash of the whole run."""
    try:
        return validate_task(task, scratch, env_cache, unsafe_local=unsafe_local)
    except SandboxUnavailable as exc:
        fail(str(exc))
    except _TASK_ERRORS as exc:
        return TaskCheck.unprepared(task, f"cannot prepare: {exc}")


def _print_build(stats: list[RepoStats], total: int, elapsed: float) -> None:
    table = Table(title=f"{total} tasks built and validated in {elapsed:.0f} s")
    columns = (
        "library",
        "tests",
        "env s",
        "baseline s",
        "trials",
        "kept",
        "family trials",
        "families",
        "s/trial",
        "s/validation",
        "s/task",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "library" else "right")
    for s in stats:
        row = s.to_dict()
        env = "reused" if row["env_reused"] else f"{row['env_build_s']:.1f}"
        table.add_row(
            s.package, str(s.baseline_tests), env, f"{s.baseline_s:.1f}", str(s.trials), str(s.kept),
            str(s.family_trials), str(s.families),
            _num(row["mean_trial_s"]), _num(row["mean_validation_s"]), _num(row["s_per_task"]),
        )  # fmt: skip
    _tables.print(table)


def _print_checks(checks: list[TaskCheck]) -> None:
    passed = sum(check.ok for check in checks)
    table = Table(title=f"{passed}/{len(checks)} tasks valid")
    for column in (
        "task",
        "F2P failing before",
        "P2P broken before",
        "gold resolves",
        "prep s",
        "tests s",
        "ok",
    ):
        table.add_column(column, justify="left" if column == "task" else "right")
    for c in checks:
        prep = f"{c.prepare_s:.1f}" + ("" if c.env_reused else " +env")
        table.add_row(
            c.instance_id, f"{c.failing_before}/{c.fail_to_pass}", str(c.broken_before),
            "yes" if c.gold_resolved else "NO", prep, f"{c.buggy_s + c.gold_s:.1f}",
            "ok" if c.ok else f"[red]{c.reason}[/]",
        )  # fmt: skip
    _tables.print(table)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
