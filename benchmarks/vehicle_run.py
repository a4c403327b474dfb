"""Vehicle run throughput against a scripted server in another process.

Usage: python benchmarks/vehicle_run.py [--data DIR] [--latency 0.1] [--concurrency 16 64] [--repeats 3]

1. With ``--latency`` seconds added to every answer: wall time of a gold run over all
   500 episodes against the ideal, requests x latency / concurrency (target: within 1.2x).
2. With zero latency: the harness's CPU time per episode (the server runs in its own
   process, so only the harness is measured; target <= 2.5 ms, the reference harness needs ~12 ms).
   ``benchmarks/vehicle_cli.py`` measures the same through the CLI.
3. Prompt tokens per episode for the gold condition (as reported by the server's usage).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from execmem.llm.config import ModelConfig
from execmem.runs.vehicle.config import VehicleRunConfig
from execmem.runs.vehicle.run import VehicleRun


def start_server(latency: float, data: Path | None) -> tuple[subprocess.Popen, str]:
    """The scripted gold server, answering after ``latency`` seconds."""
    return start_fake_server(["--latency", str(latency), "--data", *([str(data)] if data else [])])


def start_fake_server(arguments: list[str]) -> tuple[subprocess.Popen, str]:
    """``python -m execmem.testing.fake_server ARGUMENTS`` in its own process, and its base URL."""
    command = [sys.executable, "-m", "execmem.testing.fake_server", *arguments]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("READY "):
        process.kill()
        raise SystemExit(f"fake server did not start: {line!r}")
    return process, line.split(" ", 1)[1]


def one_run(base_url: str, concurrency: int, data: Path | None) -> dict:
    """A fresh gold run (new folder, so nothing is cached); wall and CPU seconds, requests, tokens."""
    with tempfile.TemporaryDirectory() as folder:
        model = ModelConfig(model="fake", base_url=base_url, max_connections=concurrency)
        config = VehicleRunConfig(model=model, memory="gold", data_dir=data)
        run = VehicleRun(config, Path(folder))
        wall, cpu = time.perf_counter(), time.process_time()
        metrics = asyncio.run(run.run())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        requests = run.model.stats.requests
    assert metrics["episodes"]["complete"], metrics["episodes"]
    return {"wall_s": wall, "cpu_s": cpu, "requests": requests, "metrics": metrics}


def latency_section(args) -> list[dict]:
    server, base_url = start_server(args.latency, args.data)
    try:
        rows = []
        for concurrency in args.concurrency:
            runs = [one_run(base_url, concurrency, args.data) for _ in range(args.repeats)]
            wall = statistics.median(r["wall_s"] for r in runs)
            ideal = runs[0]["requests"] * args.latency / concurrency
            rows.append(
                {
                    "concurrency": concurrency,
                    "requests": runs[0]["requests"],
                    "wall_s_median": round(wall, 2),
                    "ideal_s": round(ideal, 2),
                    "ratio_to_ideal": round(wall / ideal, 3),
                }
            )
        return rows
    finally:
        server.terminate()


def cpu_section(args) -> dict:
    server, base_url = start_server(0.0, args.data)
    try:
        runs = [one_run(base_url, 16, args.data) for _ in range(args.repeats)]
    finally:
        server.terminate()
    episodes = runs[0]["metrics"]["episodes"]["finished"]
    per_episode = [r["cpu_s"] * 1000 / episodes for r in runs]
    overall = runs[0]["metrics"]["overall"]
    return {
        "episodes": episodes,
        "harness_cpu_ms_per_episode_median": round(statistics.median(per_episode), 2),
        "reference_cpu_ms_per_episode": 12,
        "target_cpu_ms_per_episode": 2.5,
        "gold_prompt_tokens_per_episode": round(overall["mean_input_tokens"], 1),
        "gold_memory_tokens_per_episode": round(overall["mean_memory_tokens"], 1),
        "gold_esm": overall["exact_match"],
    }


def arguments(description: str) -> argparse.Namespace:
    """The options both benchmark scripts take."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--repeats", type=int, default=3)
    return parser.parse_args()


def main() -> None:
    args = arguments(__doc__.splitlines()[0])
    if args.data is None and not os.environ.get("EXECMEM_VEHICLE_DATA"):
        print(
            "note: using the fetched release (set EXECMEM_VEHICLE_DATA or --data to choose)", file=sys.stderr
        )
    report = {
        "latency_s": args.latency,
        "with_latency": latency_section(args),
        "zero_latency": cpu_section(args),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
