"""End-to-end overhead of `execmem vehicle run`, measured through the CLI as a user runs it.

Usage: python benchmarks/vehicle_cli.py [--data DIR] [--latency 0.1] [--concurrency 16 64] [--repeats 3]

A scripted gold "model" (the fake server, in its own process) answers every request after
``--latency`` seconds; the CLI runs the 500 gold episodes (1,500 requests) in a subprocess into
a fresh folder. For each concurrency it reports medians of ``--repeats`` runs:

* wall time with latency, against the latency limit (requests x latency / concurrency) and
  against the zero-latency floor (the same CLI run against a server that answers at once):
  target within 1.2x of the larger of the two;
* the CLI process's CPU time per episode (user + system, from the child's resource usage, so
  the server's CPU is not counted; start-up and data loading included): target <= 2.5 ms;
* the CLI's fixed cost (the same command re-run with nothing left to do: start-up, imports,
  loading the data, writing metrics), and both figures without it;
* the gold run's ESM, which must not change (0.996).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from vehicle_run import arguments, start_server  # noqa: E402 - the script's sibling


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of a CLI subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"the CLI failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cli_run(base_url: str, concurrency: int, data: Path | None) -> dict:
    """One fresh CLI run (wall and CPU seconds, metrics), then the same command again: with nothing
    left to run, that second one is the CLI's fixed cost (start-up, loading, writing metrics)."""
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "execmem", "vehicle", "run", "--model", "fake", "--memory", "gold",
                   "--base-url", base_url, "--out", folder, "--quiet",
                   "--max-connections", str(concurrency)]  # fmt: skip
        if data:
            command += ["--data", str(data)]
        wall, cpu = timed(command)
        metrics = json.loads((Path(folder) / "metrics.json").read_text())
        fixed_wall, fixed_cpu = timed(command)
    return {"wall_s": wall, "cpu_s": cpu, "fixed_s": fixed_wall, "fixed_cpu_s": fixed_cpu, "metrics": metrics}


def measure(latency: float, concurrency: int, args) -> list[dict]:
    server, base_url = start_server(latency, args.data)
    try:
        return [cli_run(base_url, concurrency, args.data) for _ in range(args.repeats)]
    finally:
        server.terminate()
        server.wait()


def row(concurrency: int, latency: float, args) -> dict:
    loaded = measure(latency, concurrency, args)
    floor = measure(0.0, concurrency, args)
    episodes = loaded[0]["metrics"]["episodes"]["finished"]
    requests = loaded[0]["metrics"]["endpoint"]["model_calls"]
    wall = statistics.median(r["wall_s"] for r in loaded)
    floor_s = statistics.median(r["wall_s"] for r in floor)
    limit_s = requests * latency / concurrency
    cpu_ms = [r["cpu_s"] * 1000 / episodes for r in loaded + floor]
    fixed = statistics.median(r["fixed_s"] for r in loaded + floor)
    fixed_cpu = statistics.median(r["fixed_cpu_s"] for r in loaded + floor)
    esms = {r["metrics"]["overall"]["exact_match"] for r in loaded + floor}
    return {
        "concurrency": concurrency,
        "requests": requests,
        "wall_s_median": round(wall, 2),
        "wall_s_runs": [round(r["wall_s"], 2) for r in loaded],
        "latency_limit_s": round(limit_s, 2),
        "zero_latency_floor_s": round(floor_s, 2),
        "ratio": round(wall / max(limit_s, floor_s), 3),
        "fixed_cost_s": round(fixed, 2),
        "ratio_without_fixed_cost": round((wall - fixed) / max(limit_s, floor_s - fixed), 3),
        "cli_cpu_ms_per_episode_median": round(statistics.median(cpu_ms), 2),
        "cli_cpu_ms_per_episode_without_fixed_cost": round(
            statistics.median(cpu_ms) - fixed_cpu * 1000 / episodes, 2
        ),
        "esm": sorted(esms),
    }


def main() -> None:
    args = arguments(__doc__.splitlines()[0])
    if args.data is None and os.environ.get("EXECMEM_VEHICLE_DATA"):
        args.data = Path(os.environ["EXECMEM_VEHICLE_DATA"])
    rows = [row(c, args.latency, args) for c in args.concurrency]
    print(
        json.dumps(
            {"latency_s": args.latency, "targets": {"ratio": 1.2, "cpu_ms": 2.5}, "rows": rows}, indent=2
        )
    )


if __name__ == "__main__":
    main()
