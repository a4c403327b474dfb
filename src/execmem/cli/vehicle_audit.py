"""``execmem vehicle audit``: how well a memory system retrieves each question's gold evidence."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from execmem.cli.boundary import StdoutConsole
from execmem.cli.common import DataOption, check_out_folder, fail
from execmem.cli.memory_options import (
    MemoryOptionsOption,
    Window,
    WindowLinesOption,
    parse_ks,
    parse_memory_options,
)
from execmem.cli.vehicle import app
from execmem.cli.vehicle_run import parse_scenarios
from execmem.core.protocols import MemorySystem
from execmem.memory import MemoryRegistryError, MemorySetupError, MissingExtraError, memory_factory
from execmem.runs.vehicle.audit import (
    AUDIT_FILE,
    DEFAULT_BUDGETS,
    AuditConfig,
    open_audit_memory,
    run_audit,
)
from execmem.suites.vehicle.dataset import DatasetError
from execmem.suites.vehicle.evidence import EVENT_WINDOW_MINUTES, EvidenceError
from execmem.suites.vehicle.release import DataNotFound
from execmem.suites.vehicle.retrieval import EVENT_METRICS, METRICS

_ERRORS = (
    MemoryRegistryError,
    MissingExtraError,
    MemorySetupError,
    DataNotFound,
    DatasetError,
    EvidenceError,
    ValidationError,
)
_stderr = Console(stderr=True)
ORACLE_NOTE = (
    "Each cell: the search with the question's query (in brackets: with the oracle query, the "
    "question's gold-memory events without dates, the retriever's ceiling)."
)


@app.command()
def audit(
    memory: Annotated[str, typer.Option(help="A registered memory system: bm25, dense, hybrid, ...")],
    top_k: Annotated[str, typer.Option(help="The Ks to score, e.g. 1,3,5,10.")] = "1,3,5,10",
    budget_tokens: Annotated[
        str, typer.Option(help="Token budgets for evidence recall within a budget, e.g. 250,1000.")
    ] = ",".join(map(str, DEFAULT_BUDGETS)),
    scenarios: Annotated[str, typer.Option(help="Scenarios, e.g. 1-50 or 1,3,7-9.")] = "1-50",
    out: Annotated[Path | None, typer.Option(help=f"Write {AUDIT_FILE} (and the memory state) here.")] = None,
    data: DataOption = None,
    window: Annotated[
        Window | None, typer.Option(help="How history becomes memory units (default hour).")
    ] = None,
    window_lines: WindowLinesOption = 8,
    memory_option: MemoryOptionsOption = None,
    event_minutes: Annotated[
        int, typer.Option(min=0, help="Evidence lines: an event's minute and this many after.")
    ] = EVENT_WINDOW_MINUTES,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Search every question with its query and with its gold memory; score evidence recall@K,
    value coverage@K, noise@K and MemToken@K against the history lines the gold memory came from."""
    chosen = parse_scenarios(scenarios)
    check_out_folder(out)
    try:
        memory_factory(memory)  # an unknown name or a missing extra, before any folder is made
        config = AuditConfig(
            memory=memory,
            memory_options=parse_memory_options(memory_option),
            windowing=window.value if window else None,
            window_lines=window_lines,
            top_k=parse_ks(top_k),
            budget_tokens=parse_budgets(budget_tokens),
            scenarios=chosen,
            event_minutes=event_minutes,
            data_dir=data,
        )
        started = time.perf_counter()
        system = open_audit_memory(config, out)
        report = _audit_with_progress(config, out, system, quiet)
    except _ERRORS as exc:
        fail(str(exc))
    print_audit(report, config.top_k, time.perf_counter() - started, config.budget_tokens)
    if out is not None:
        _stderr.print(f"wrote {out / AUDIT_FILE}")


def _audit_with_progress(
    config: AuditConfig, out: Path | None, memory: MemorySystem, quiet: bool
) -> dict[str, Any]:
    columns = (TextColumn("scenarios"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=_stderr, disable=quiet) as progress:
        task = progress.add_task("scenarios", total=len(config.scenarios))
        return run_audit(config, out, memory, on_scenario=lambda _n: progress.advance(task))


def parse_budgets(text: str) -> list[int]:
    """``250,1000`` -> [250, 1000]; a bad list is reported against ``--budget-tokens``."""
    try:
        return parse_ks(text)
    except typer.BadParameter as exc:
        raise typer.BadParameter(exc.message.replace("K", "budget"), param_hint="--budget-tokens") from None


def headline_k(ks: list[int]) -> int:
    """The K the per-type table shows: 5 when scored, else the largest."""
    return 5 if 5 in ks else max(ks)


def print_audit(report: dict[str, Any], ks: list[int], seconds: float, budgets: list[int] = ()) -> None:
    """Overall numbers per K, recall within each token budget, then each reasoning type at the
    headline K beside its budget recalls (query only: the oracle's are in audit.json)."""
    overall = report["overall"]
    table = Table(
        title=Text(f"{report['config']['memory']}: retrieval audit, overall"),
        caption=ORACLE_NOTE,
        caption_justify="left",
    )
    for column in ("K", "evidence recall", "value coverage", "noise", "MemToken"):
        table.add_column(column, justify="right")
    for k in ks:
        table.add_row(str(k), *(_pair(overall, f"{metric}@{k}") for metric in METRICS))
    StdoutConsole().print(table)
    if budgets:
        StdoutConsole().print(budget_table(overall, budgets))
    k = headline_k(ks)
    by_type = Table(title=f"by reasoning type @{k}", caption=ORACLE_NOTE, caption_justify="left")
    by_type.add_column("reasoning type", no_wrap=True)
    for column in ("evidence recall", "value coverage", "noise", "MemToken"):
        by_type.add_column(column, justify="right")
    for budget in budgets:
        by_type.add_column(f"recall ≤{budget} tok", justify="right")
    for name, block in report["by_reasoning_type"].items():
        cells = [_pair(block, f"{metric}@{k}") for metric in METRICS]
        by_type.add_row(name, *cells, *(_number(block[f"budget_recall@{b}"]) for b in budgets))
    StdoutConsole().print(by_type)
    StdoutConsole().print(events_table(report, k))
    latency = report["latency_ms"]
    _stderr.print(
        f"{report['config']['questions']} questions, {report['config']['events']} events "
        f"({report['unplaced_events']} unplaced); ingest {report['ingest_s']:.1f} s; "
        f"search p50 {latency['p50']} ms, p95 {latency['p95']} ms; total {seconds:.1f} s"
    )


def events_table(report: dict[str, Any], k: int) -> Table:
    """Which events the top K hit: all of them, the latest, or an earlier one without the latest."""
    table = Table(
        title=f"which events @{k}: all, the latest, or stale (an earlier one without the latest)",
        caption=ORACLE_NOTE,
        caption_justify="left",
    )
    table.add_column("reasoning type", no_wrap=True)
    for column in ("evidence recall", "all-events recall", "latest-event recall", "stale rate"):
        table.add_column(column, justify="right")
    blocks = [("overall", report["overall"]), *report["by_reasoning_type"].items()]
    metrics = ("evidence_recall", *EVENT_METRICS)
    for name, block in blocks:
        table.add_row(name, *(_pair(block, f"{metric}@{k}") for metric in metrics))
    return table


def budget_table(overall: dict[str, Any], budgets: list[int]) -> Table:
    """Evidence recall of the items that fit in each token budget, and the tokens they hold."""
    table = Table(title="evidence recall within a token budget (items in rank order while they fit)")
    for column in ("budget", "evidence recall", "tokens used"):
        table.add_column(column, justify="right")
    for budget in budgets:
        table.add_row(
            str(budget),
            _pair(overall, f"budget_recall@{budget}"),
            _pair(overall, f"budget_tokens@{budget}"),
        )
    return table


def _pair(block: dict[str, Any], key: str) -> str:
    return f"{_number(block[key])} ({_number(block['oracle'][key])})"


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if value >= 10 else f"{value:.3f}"
