"""Time of the paired statistics of `execmem vehicle compare`: 500 questions x 5 runs.

Usage: python benchmarks/vehicle_compare.py [--questions 500] [--runs 5] [--resamples 10000] [--repeats 5]

Five synthetic runs (one trial each, outcomes drawn at random) are compared in-process with
``compare_rows``: each run after the first paired with it (ΔESM, a 10,000-resample bootstrap 95%
interval, won/lost, exact McNemar p), plus the plain scores. Reports the median wall time of
``--repeats`` calls, and their median CPU time (what the wall time is on an idle machine: numpy runs
it on one thread). Target: under 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from execmem.runs.vehicle.compare import RunSummary, compare_rows  # noqa: E402


def synthetic(name: str, questions: int, esm: float, rng: np.random.Generator) -> RunSummary:
    episodes = {}
    for index, exact in enumerate(rng.random(questions) < esm):
        key = f"{1 + index // 10}-{index % 10}"
        episodes[key] = {
            "id": key,
            "scenario": 1 + index // 10,
            "index": index % 10,
            "reasoning_type": "state_shift",
            "exact_match": bool(exact),
            **{m: {"precision": 1.0, "recall": 1.0, "f1": 1.0} for m in ("field", "value", "tool")},
            "memory_tokens": 100,
            "input_tokens": 1000,
            "output_tokens": 50,
        }
    scenarios = tuple(range(1, questions // 10 + 1))
    return RunSummary(Path(name), "m", name, scenarios, episodes, questions, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    runs = [synthetic(f"run{n}", args.questions, 0.4 + 0.05 * n, rng) for n in range(args.runs)]
    times, cpu = [], []
    for _ in range(args.repeats):
        started, cpu_started = time.perf_counter(), time.process_time()
        rows = compare_rows(runs, n_resamples=args.resamples, seed=0)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    print(
        f"compare {args.questions} questions x {args.runs} runs, {args.resamples:,} resamples: "
        f"median {statistics.median(times):.3f} s (min {min(times):.3f}, max {max(times):.3f}), "
        f"CPU {statistics.median(cpu):.3f} s; "
        f"last ΔESM {rows[-1]['delta_esm']:+.3f} [{rows[-1]['ci_low']:+.3f}, {rows[-1]['ci_high']:+.3f}]"
    )


if __name__ == "__main__":
    main()
