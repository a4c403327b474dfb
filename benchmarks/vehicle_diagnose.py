"""Time of the retrieval audit and of `execmem vehicle diagnose`, before and after a change.

Usage: python benchmarks/vehicle_diagnose.py [--baseline-src /work/main/src] [--repeats 3] [--data DIR]

* **audit**: `execmem vehicle audit --memory bm25 --out DIR --quiet` (all 50 scenarios, hour units)
  run with this checkout's code and, interleaved, with ``--baseline-src`` (another checkout's
  ``src``): medians of wall and CPU seconds (the child's user + system), and their ratio. Target:
  the extended audit within 2x of the baseline.
* **diagnose**: the scripted reader (``execmem.testing.vehicle_reader``, the fake server in this
  process) fills a `bm25` and a `full-history` run over all 50 scenarios once; then
  `execmem vehicle diagnose RUN` is timed on each (medians), against the baseline audit's time.
  Target: within 2x of it. Neither calls a model.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def timed(command: list[str], src: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of ``python -m execmem ...`` with ``src`` on the path."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "execmem", *command], env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"execmem {' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_pair(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def audit_times(baseline: Path, repeats: int, data: list[str]) -> dict[str, tuple[float, float]]:
    found: dict[str, list] = {"baseline": [], "this": []}
    with tempfile.TemporaryDirectory() as folder:
        for n in range(repeats):
            for name, src in (("baseline", baseline), ("this", SRC)):
                out = Path(folder) / f"{name}-{n}"
                found[name].append(
                    timed(["vehicle", "audit", "--memory", "bm25", "--out", str(out), "--quiet", *data], src)
                )
    return {name: median_pair(samples) for name, samples in found.items()}


def reader_runs(root: Path, data: Path | None) -> dict[str, Path]:
    """A bm25 and a full-history run of the scripted reader over all 50 scenarios."""
    sys.path.insert(0, str(SRC))
    from execmem.llm.config import ModelConfig
    from execmem.runs.vehicle.config import VehicleRunConfig
    from execmem.runs.vehicle.run import VehicleRun
    from execmem.suites.vehicle.dataset import load_questions
    from execmem.suites.vehicle.release import resolve_data_dir
    from execmem.testing.fake_server import FakeServer
    from execmem.testing.vehicle_reader import ReaderPolicy

    data_dir = resolve_data_dir(data)
    runs = {}
    with FakeServer(ReaderPolicy(load_questions(data_dir))) as server:
        for memory in ("bm25", "full-history"):
            model = ModelConfig(model="scripted-reader", base_url=server.base_url, probe=False)
            config = VehicleRunConfig(model=model, memory=memory, data_dir=data_dir)
            asyncio.run(VehicleRun(config, root / memory).run())
            runs[memory] = root / memory
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline-src", type=Path, default=Path("/work/main/src"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path)
    args = parser.parse_args()
    data = ["--data", str(args.data)] if args.data else []
    audits = audit_times(args.baseline_src.resolve(), args.repeats, data)
    base_wall, base_cpu = audits["baseline"]
    for name, (wall, cpu) in audits.items():
        ratios = f"{wall / base_wall:.2f}x / {cpu / base_cpu:.2f}x"
        print(f"audit bm25 ({name}): wall {wall:.2f} s, CPU {cpu:.2f} s; vs baseline {ratios}")
    with tempfile.TemporaryDirectory() as folder:
        for memory, run in reader_runs(Path(folder), args.data).items():
            wall, cpu = median_pair(
                [timed(["vehicle", "diagnose", str(run), *data], SRC) for _ in range(args.repeats)]
            )
            print(
                f"diagnose {memory} (500 episodes): wall {wall:.2f} s, CPU {cpu:.2f} s; "
                f"vs the baseline audit {wall / base_wall:.2f}x / {cpu / base_cpu:.2f}x"
            )


if __name__ == "__main__":
    main()
