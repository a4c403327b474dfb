"""The Ray executor against the local one on one machine: wall time, and Ray's overhead per episode.

Usage: python benchmarks/executors.py [--data DIR] [--latency 0.1] [--connections 16] [--repeats 3]
                                      [--coding-tasks 8] [--coding-seeds 2] [--skip-coding]

1. Vehicle: the 500 gold episodes (1,500 requests) against the scripted server in its own process,
   answering after ``--latency`` seconds, into a fresh folder each time: in this process (local)
   and on a Ray instance started here with 2 CPUs (started once, before the timings; its start is
   reported apart). Target: Ray's wall time within 1.3x of local. Ray's overhead per episode is
   (Ray - local) / episodes; its workers' start (processes, imports, the runner copy) is part of
   every Ray run and is estimated from the first episode's arrival, and the same figures are given
   for the time after the first episode (the episodes themselves).
2. Coding: a slice of the shipped tasks (``--coding-tasks`` x ``--coding-seeds``) with the scripted
   GoldPatcher solver (the server in its own process), on both; one untimed run first builds the
   environments and fills the downloads.

Medians of ``--repeats`` runs; the machine may be shared, so the load average is reported with
each figure. Figures are offline (scripted server and solver).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from vehicle_run import start_fake_server, start_server  # noqa: E402 - the script's sibling

from execmem.llm.config import ModelConfig  # noqa: E402
from execmem.runs.coding.config import CodingRunConfig  # noqa: E402
from execmem.runs.coding.run import CodingRun  # noqa: E402
from execmem.runs.executors.ray_executor import RayExecutor  # noqa: E402
from execmem.runs.vehicle.config import VehicleRunConfig  # noqa: E402
from execmem.runs.vehicle.run import VehicleRun  # noqa: E402
from execmem.suites.coding.paths import builtin_tasks_path  # noqa: E402


def timed(make_run, executor) -> dict:
    """One run into a fresh folder: wall seconds, the first episode's arrival, the metrics."""
    with tempfile.TemporaryDirectory() as folder:
        run = make_run(Path(folder) / "run")
        load = os.getloadavg()[0]
        started, first = time.perf_counter(), []

        def hook(_record) -> None:
            if not first:
                first.append(time.perf_counter() - started)

        metrics = asyncio.run(run.run(hook, executor))
        wall = time.perf_counter() - started
    assert metrics["episodes"]["complete"], metrics["episodes"]
    return {"wall_s": wall, "first_s": first[0], "load": load, "metrics": metrics}


def compare(make_run, repeats: int) -> dict:
    """Local and Ray, alternating so both see the same load; medians and the ratio."""
    runs: dict[str, list[dict]] = {"local": [], "ray": []}
    for _ in range(repeats):
        runs["local"].append(timed(make_run, None))
        runs["ray"].append(timed(make_run, RayExecutor()))
    local, remote = (statistics.median(r["wall_s"] for r in runs[k]) for k in ("local", "ray"))
    after = {k: statistics.median(r["wall_s"] - r["first_s"] for r in runs[k]) for k in runs}
    episodes = runs["local"][0]["metrics"]["episodes"]["finished"]
    return {
        "episodes": episodes,
        "local_wall_s": {"median": round(local, 2), "runs": [round(r["wall_s"], 2) for r in runs["local"]]},
        "ray_wall_s": {"median": round(remote, 2), "runs": [round(r["wall_s"], 2) for r in runs["ray"]]},
        "ratio": round(remote / local, 3),
        "ray_overhead_ms_per_episode": round((remote - local) * 1000 / episodes, 2),
        "first_episode_s": {k: round(statistics.median(r["first_s"] for r in runs[k]), 2) for k in runs},
        "after_first_episode_s": {k: round(v, 2) for k, v in after.items()},
        "after_first_episode_ratio": round(after["ray"] / after["local"], 3),
        "ray_overhead_ms_per_episode_after_start": round(
            (after["ray"] - after["local"]) * 1000 / episodes, 2
        ),
        "load_average": [round(r["load"], 2) for k in runs for r in runs[k]],
        "same_scores": len(
            {
                json.dumps(r["metrics"].get("overall", r["metrics"].get("resolved")))
                for k in runs
                for r in runs[k]
            }
        )
        == 1,
    }


def vehicle(args, base_url: str) -> dict:
    model = ModelConfig(model="fake", base_url=base_url, max_connections=args.connections)

    def make(folder: Path) -> VehicleRun:
        return VehicleRun(VehicleRunConfig(model=model, memory="gold", data_dir=args.data), folder)

    report = compare(make, args.repeats)
    ideal = 1500 * args.latency / args.connections
    report["latency_limit_s"] = round(ideal, 2)
    report["ray_worker_start_s_estimate"] = round(report["first_episode_s"]["ray"] - 3 * args.latency, 2)
    return report


def coding(args) -> dict:
    server, base_url = start_fake_server(["--policy", "execmem.testing.coding_policies:gold_patcher"])
    try:
        model = ModelConfig(model="fake", base_url=base_url)
        config = CodingRunConfig(
            model=model, tasks_file=builtin_tasks_path(), limit=args.coding_tasks, seeds=args.coding_seeds
        )

        def make(folder: Path) -> CodingRun:
            return CodingRun(config, folder)

        timed(make, None)  # builds the environments, fetches the sources: not timed
        return compare(make, args.repeats)
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--coding-tasks", type=int, default=8)
    parser.add_argument("--coding-seeds", type=int, default=2)
    parser.add_argument("--skip-coding", action="store_true")
    args = parser.parse_args()
    if args.data is None and os.environ.get("EXECMEM_VEHICLE_DATA"):
        args.data = Path(os.environ["EXECMEM_VEHICLE_DATA"])
    import ray

    began = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    report = {"ray_init_s": round(time.perf_counter() - began, 2), "cpus": os.cpu_count()}
    server, base_url = start_server(args.latency, args.data)
    try:
        report["vehicle"] = {
            "latency_s": args.latency,
            "connections": args.connections,
            **vehicle(args, base_url),
        }
    finally:
        server.terminate()
        server.wait()
    if not args.skip_coding:
        report["coding"] = {"tasks": args.coding_tasks, "seeds": args.coding_seeds, **coding(args)}
    ray.shutdown()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
