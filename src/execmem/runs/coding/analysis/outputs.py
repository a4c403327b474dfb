"""What ``execmem coding report`` and ``execmem coding given-files`` write: the report's Markdown,
its tables document and the attribution's per-pair evidence; the given-text files of the strip arms
and the gate with the plan of the runs they call for."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from execmem.core.files import write_json_atomic
from execmem.runs.coding.analysis.ablation import strip_files
from execmem.runs.coding.analysis.gating import AnchorSource, gate_files
from execmem.runs.coding.analysis.given_runs import PlannedRun
from execmem.runs.coding.analysis.report import CodingReport, ReportSettings
from execmem.runs.coding.analysis.runset import group_runs, load_analysis_run
from execmem.runs.coding.analysis.sources import solvers_tasks
from execmem.runs.identity import CompareError
from execmem.runs.report_tables import markdown, tables_document

REPORT_FILES = ("report.md", "report.json", "attribution.json")


def report_markdown(report: CodingReport) -> str:
    head = "# Coding report\n\n"
    if report.incomplete:
        head += "Runs with unfinished targets (paired on the finished ones): " + ", ".join(report.incomplete)
        head += "\n\n"
    return head + markdown(report.tables)


def write_report(report: CodingReport, settings: ReportSettings, out: Path) -> list[Path]:
    """``OUT/report.md``, ``OUT/report.json`` (``{"tables": [...]}``) and ``OUT/attribution.json``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(report_markdown(report), encoding="utf-8")
    write_json_atomic(out / "report.json", tables_document(report.tables))
    write_json_atomic(out / "attribution.json", report.pairs_document(settings))
    return [out / name for name in REPORT_FILES]


def write_given_files(
    folders: list[Path],
    out: Path,
    kinds: tuple[str, ...] = ("strip", "gate"),
    seed: int = 0,
    off_below: float = 0.5,
    anchors: AnchorSource = "gold",
    tasks_file: Path | None = None,
) -> list[PlannedRun]:
    """The strip-arm and gate files of the Layer B runs among ``folders`` and ``OUT/plan.json``: one
    entry per run to make, with its ``execmem coding run`` command."""
    groups = group_runs([load_analysis_run(folder) for folder in folders])
    if not any(group.systems for group in groups):
        raise CompareError("no Layer B run among the folders (memory.condition 'system')")
    planned: list[PlannedRun] = []
    if "strip" in kinds:
        planned += strip_files(groups, out, seed)
    if "gate" in kinds:
        with_off = [g for g in groups if g.off is not None and g.systems]
        if with_off:
            tasks = solvers_tasks([group.off for group in with_off], tasks_file)
            planned += gate_files(groups, tasks, out, off_below, anchors)
    out.mkdir(parents=True, exist_ok=True)
    plan = {"seed": seed, "off_below": off_below, "anchors": anchors,
            "runs": [{**p.to_dict(), "command": run_command(p)} for p in planned]}  # fmt: skip
    write_json_atomic(out / "plan.json", plan)
    return planned


_OPTIONS = (  # (option, section of the invocation, field): what fixes the protocol of a run
    ("--base-url", "model", "base_url"), ("--api-key-env", "model", "api_key_env"),
    ("--temperature", "model", "temperature"), ("--max-output-tokens", "model", "max_tokens"),
    ("--tool-choice", "model", "tool_choice"), ("--null-content", "model", "null_content"),
    ("--solver", None, "solver_kind"), ("--max-steps", "solver", "max_steps"),
    ("--max-total-tokens", "solver", "max_total_tokens"), ("--time-limit", "solver", "time_limit_s"),
    ("--command-timeout", "solver", "command_timeout_s"), ("--context-tokens", "solver", "context_tokens"),
    ("--tokenizer", "solver", "tokenizer"), ("--image", None, "image"), ("--frozen", None, "frozen_file"),
)  # fmt: skip


def run_command(planned: PlannedRun) -> str:
    """The source run's invocation as ``execmem coding run`` with ``--memory given --given FILE --out
    FOLDER`` instead of its memory (the same model, solver, budgets, seeds and frozen file, so the
    run pairs with the source's; the API key stays in its environment variable)."""
    invocation: dict[str, Any] = planned.source.data.manifest.get("invocation", {})
    parts = ["execmem", "coding", "run", "--tasks", str(invocation.get("tasks_file", "TASKS")),
             "--model", str((invocation.get("model") or {}).get("model", "MODEL"))]  # fmt: skip
    for option, section, name in _OPTIONS:
        value = (invocation.get(section) or {}).get(name) if section else invocation.get(name)
        if value is not None:
            parts += [option, str(value)]
    flags = {
        "--unsafe-local": invocation.get("unsafe_local"),
        "--no-probe": (invocation.get("model") or {}).get("probe") is False,
    }
    parts += [flag for flag, on in flags.items() if on]
    parts += [
        "--seeds",
        str(len(planned.source.seeds)),
        "--memory",
        "given",
        "--given",
        str(planned.given_file),
        "--out",
        str(planned.out),
    ]
    return shlex.join(parts)
