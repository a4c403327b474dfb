"""The whole SIEVE pipeline on a task set with the planted scripted solver: wall time, per-stage time,
harness overhead per episode, and whether the funnel kept the targets the plant says it should.

Usage: python benchmarks/sieve.py [--tasks builtin] [--out DIR] [--seeds 4] [--concurrency 4]
                                  [--ceiling 0.25] [--json FILE]

The solver is ``execmem.testing.planted_coding_solver`` behind the fake OpenAI server (real HTTP),
so model time is near zero and what is measured is the harness: preparing workspaces, the sandboxed
commands, git, the evaluations' test runs, the run folders. Per episode, *harness overhead* =
episode wall time - model latency - the test command's own run time (``episode_s - model_latency_s
- test_s`` of each ``episodes.jsonl`` line). Venvs and sdists come from the coding cache: the first
run on a machine also downloads and builds them (reported apart, as ``cold``). The machine is
shared: the load average before and after is printed; quote medians.

Expected (the plant's truth, computed here without SIEVE's artifacts): a valid target is kept when
it is not at ceiling and one of its shortlisted earlier tasks fixed the same file and function
(``planted_coding_solver.fix_location``), since only then does the extractive experience name both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from execmem.agents.coding.config import SolverConfig
from execmem.core.files import complete_records, read_json_document
from execmem.llm.config import ModelConfig
from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.coding.sieve.pipeline import SievePipeline
from execmem.suites.coding.history import history_pool, target_view
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.screen import ScreenPolicy, screen
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.fake_server import FakeServer
from execmem.testing.planted_coding_solver import PlantedSolver, fix_location


def expected_kept(tasks, solver: PlantedSolver, valid: set[str], policy: ScreenPolicy) -> list[str]:
    kept = []
    for target in tasks:
        if target.instance_id not in valid or solver.plants[target.instance_id].p_off >= 1:
            continue
        pool = history_pool(target_view(target), tasks, valid)
        _, shortlist = screen(target.patch, pool, policy)
        by_id = {task.instance_id: task for task in pool}
        where = fix_location(target)
        if any(fix_location(by_id[s.history_id]) == where for s in shortlist):
            kept.append(target.instance_id)
    return kept


def stage_seconds(out: Path) -> dict[str, float]:
    document = read_json_document(out / "sieve.json")
    seconds = {}
    for name, folder in document["stages"].items():
        stage = read_json_document(out / folder / "stage.json")
        seconds[name] = _iso_seconds(stage["finished_at"]) - _iso_seconds(stage["started_at"])
    return seconds


def _iso_seconds(text: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(text).timestamp()


def episode_figures(out: Path) -> dict[str, float]:
    episodes = [e for path in (out / "episodes").rglob("episodes.jsonl") for e in complete_records(path)]
    overhead = [e["episode_s"] - e["model_latency_s"] - e["test_s"] for e in episodes]
    return {
        "episodes": len(episodes),
        "evaluations_reused": sum(bool(e.get("eval_reused")) for e in episodes),
        "median_episode_s": statistics.median(e["episode_s"] for e in episodes),
        "median_test_s": statistics.median(e["test_s"] for e in episodes),
        "median_model_latency_s": statistics.median(e["model_latency_s"] for e in episodes),
        "median_overhead_s": statistics.median(overhead),
        "p90_overhead_s": sorted(overhead)[int(0.9 * (len(overhead) - 1))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", default="builtin")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--ceiling", type=float, default=0.25)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    tasks_file = builtin_tasks_path() if args.tasks == "builtin" else Path(args.tasks).resolve()
    tasks = load_tasks(tasks_file)
    out = (args.out or Path(tempfile.mkdtemp(prefix="sieve-bench-"))).resolve()
    solver = PlantedSolver(tasks, ceiling=args.ceiling)
    load_before = os.getloadavg()
    with FakeServer(solver) as server:
        model = ModelConfig(model="planted", base_url=server.base_url, timeout_s=30.0)
        config = SieveConfig(tasks_file=tasks_file, out=out, model=model, solver=SolverConfig(max_steps=6),
                             seeds=args.seeds, concurrency=args.concurrency)  # fmt: skip
        start = time.monotonic()
        document = asyncio.run(SievePipeline(config, lambda message: None).run())
        wall = time.monotonic() - start
    valid = {
        r["instance_id"]
        for r in complete_records(next((out / "stages" / "1-validate").iterdir()) / "results.jsonl")
        if r["ok"]
    }
    expected = expected_kept(tasks, solver, valid, config.screen)
    report = {
        "tasks": len(tasks), "seeds": args.seeds, "concurrency": args.concurrency, "cpus": os.cpu_count(),
        "wall_s": round(wall, 1), "stages_s": {k: round(v, 1) for k, v in stage_seconds(out).items()},
        **{k: round(v, 3) if isinstance(v, float) else v for k, v in episode_figures(out).items()},
        "kept": document["kept"], "expected_kept": expected, "agrees": document["kept"] == expected,
        "funnel": [t["rows"] for t in document["tables"] if t["id"] == "sieve-funnel"][0],
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "out": str(out),
    }  # fmt: skip
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
