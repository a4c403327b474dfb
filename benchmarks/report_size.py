"""Size and time of `execmem report` on 5 vehicle runs of 500 episodes (docs/report.md).

Usage: python benchmarks/report_size.py [--work DIR] [--repeats 3] [--data DIR]

The scripted reader (``execmem.testing.vehicle_reader``, the fake server in this process) fills five
runs over all 50 scenarios: ``none``, ``gold``, ``bm25``, ``full-history`` and ``summary`` (kept in
``--work`` when given, so a second call reuses them). Then, medians of ``--repeats``:

* `execmem report RUN x5 -o report.html`: wall and CPU seconds (the child's user + system), with and
  without a ``diagnosis.json`` in the folders (read, or computed with the diagnose rules);
* the file's size (target: under 5 MB), and how much of it each run's packed episodes take;
* in headless Chromium (``/usr/bin/chromium`` through playwright, when both are there): the time
  from opening the file until the episode browser has unpacked every episode, and the time one
  filter takes to redraw the list.
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
MEMORIES = ("none", "gold", "bm25", "full-history", "summary")
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


def reader_runs(root: Path, data: Path | None) -> list[Path]:
    """The five runs (made once: a finished folder is resumed with nothing to do)."""
    sys.path.insert(0, str(SRC))
    from execmem.llm.config import ModelConfig
    from execmem.runs.vehicle.config import VehicleRunConfig
    from execmem.runs.vehicle.run import VehicleRun
    from execmem.suites.vehicle.dataset import load_questions
    from execmem.suites.vehicle.release import resolve_data_dir
    from execmem.testing.fake_server import FakeServer
    from execmem.testing.vehicle_reader import ReaderPolicy

    data_dir = resolve_data_dir(data)
    with FakeServer(ReaderPolicy(load_questions(data_dir))) as server:
        for memory in MEMORIES:
            model = ModelConfig(model="scripted-reader", base_url=server.base_url, probe=False)
            config = VehicleRunConfig(model=model, memory=memory, data_dir=data_dir)
            asyncio.run(VehicleRun(config, root / memory).run())
    return [root / memory for memory in MEMORIES]


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -m execmem ...`` (this checkout's code)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "execmem", *command]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"execmem {' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def report_times(runs: list[Path], out: Path, repeats: int, data: list[str]) -> tuple[float, float]:
    samples = [timed(["report", *map(str, runs), "-o", str(out), *data]) for _ in range(repeats)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def blob_sizes(html: str) -> dict[str, int]:
    """Bytes of each run's packed episodes (and the shared questions) in the page."""
    import json
    import re

    found = re.search(r'<script type="application/json" id="vehicle-data">(.*?)</script>', html, re.S)
    data = json.loads(found.group(1))
    return {"questions": len(data["questions"]), **{run: len(b) for run, b in data["episodes"].items()}}


def browser_times(page_file: Path, repeats: int) -> tuple[float, float] | None:
    """Median seconds until the episodes are unpacked, and for one filter to redraw."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(CHROMIUM).is_file():
        return None
    opened, filtered = [], []
    with sync_playwright() as p, tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        browser = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=FLAGS, viewport={"width": 1280, "height": 900}
        )
        for _ in range(repeats):
            page = browser.new_page()
            started = time.perf_counter()
            page.goto(page_file.resolve().as_uri())
            page.wait_for_selector("html[data-ready=yes]", timeout=120_000)
            opened.append(time.perf_counter() - started)
            started = time.perf_counter()
            page.locator("#episodes select[data-filter=label]").select_option("not_retrieved")
            page.locator("#episodes [data-count]").inner_text()
            filtered.append(time.perf_counter() - started)
            page.close()
        browser.close()
    return statistics.median(opened), statistics.median(filtered)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, help="keep the runs here (default: a temporary folder)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path)
    args = parser.parse_args()
    data = ["--data", str(args.data)] if args.data else []
    with tempfile.TemporaryDirectory() as scratch:
        root = args.work or Path(scratch)
        runs = reader_runs(root, args.data)
        for run in runs:
            (run / "diagnosis.json").unlink(missing_ok=True)
        out = root / "report.html"
        wall, cpu = report_times(runs, out, args.repeats, data)
        print(f"report of 5 x 500 episodes, diagnosis computed: wall {wall:.1f} s, CPU {cpu:.1f} s")
        for run in runs:
            timed(["vehicle", "diagnose", str(run), "--json", *data])
        wall, cpu = report_times(runs, out, args.repeats, data)
        html = out.read_text(encoding="utf-8")
        print(f"report of 5 x 500 episodes, diagnosis.json read: wall {wall:.1f} s, CPU {cpu:.1f} s")
        print(f"file: {len(html.encode('utf-8')) / 1e6:.2f} MB (target < 5 MB)")
        print("packed episodes (MB): " + ", ".join(f"{k} {v / 1e6:.2f}" for k, v in blob_sizes(html).items()))
        shown = browser_times(out, args.repeats)
        if shown is None:
            print("browser: skipped (playwright or /usr/bin/chromium missing)")
        else:
            opened, filtered = shown
            print(f"browser: episodes unpacked {opened:.2f} s after opening; a filter {filtered:.3f} s")


if __name__ == "__main__":
    main()
