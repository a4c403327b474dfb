"""Layer B offline on a task set, with the planted scripted solver: SIEVE with every pool task executed,
the Layer A off and frozen runs, one Layer B run per memory system, a dose curve (one system at
--top-k 1..5) and that system with whole conversations as records (windowing=hour),
each compared with off; and the retrieval figures per system (ingest and search seconds per target,
the injected record's lines and tokens).

Usage: python benchmarks/layer_b.py [--tasks builtin] [--out DIR] [--systems bm25,dense,fusion]
                                    [--dose bm25] [--seeds 4] [--concurrency 4] [--retrieval-all]
                                    [--json FILE]

Everything goes through the command line as a user would run it (``execmem coding sieve
--history-scope pool``, ``execmem coding run --frozen F --memory off`` and ``--memory SYSTEM
--history DIR [--top-k K]``, ``execmem coding compare --json``) against the fake OpenAI server serving
``execmem.testing.planted_coding_solver`` (real HTTP). The retrieval figures come from the runs'
memory.json (the frozen targets each run prepared); with ``--retrieval-all`` each system is also
opened on its own (``runs.coding.layer_b.SystemMemories``) over every target with eligible history,
with no episode. Ingest seconds are the system's ``add()`` calls (model loading excluded). Re-running
with the same ``--out`` resumes the runs. The figures are the scripted solver's; the machine is shared:
the load average is printed, quote medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from execmem.core.files import read_json_document
from execmem.core.tokens import estimate_tokens
from execmem.runs.coding.layer_b.config import SystemMemoryConfig
from execmem.runs.coding.layer_b.history import SieveHistory
from execmem.runs.coding.layer_b.memories import SystemMemories
from execmem.suites.coding.paths import builtin_tasks_path
from execmem.suites.coding.tasks import CodingTask, load_tasks
from execmem.testing.fake_server import FakeServer
from execmem.testing.planted_coding_solver import names_fix, planted

MAX_STEPS = "6"
_HEADER = re.compile(r"^\[[^\]]*\] (user|assistant): ", re.MULTILINE)


def execmem(*args: str) -> float:
    """Run one command; its wall seconds (a failure stops the benchmark)."""
    print(f"$ execmem {' '.join(args)}", file=sys.stderr, flush=True)
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "execmem", *args], check=True, stdout=sys.stderr
    )  # stdout: the JSON
    return round(time.monotonic() - start, 1)


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 4) if values else None


def _p90(values: list[float]) -> float | None:
    return round(sorted(values)[int(0.9 * (len(values) - 1))], 4) if values else None


def unit_kind(text: str) -> str:
    """What a record is, from its message headers: a whole ``conversation``, or one message: the
    ``issue``, the final ``patch`` or a ``step``."""
    speakers = _HEADER.findall(text)
    if len(speakers) > 1:
        return "conversation"
    if "Final patch:" in text:
        return "patch"
    return "issue" if speakers == ["user"] else "step"


def slot_figures(memory: dict[str, dict], tasks: dict[str, CodingTask]) -> dict:
    """Over memory.json entries: ingest and search time, the injected text's size, what its first
    record is, and in how many slots it names the target's fix (file and function: what the planted
    solver needs, ``planted_coding_solver.names_fix``)."""
    entries = list(memory.values())
    injected = [e for e in entries if e["text"]]
    first = [next(r["text"] for r in e["ranking"] if r["injected"]) for e in injected]
    return {
        "targets": len(entries), "empty_slots": len(entries) - len(injected),
        "names_fix": sum(names_fix(tasks[t], e["text"]) for t, e in memory.items() if e["text"]),
        "first_record": dict(Counter(map(unit_kind, first)).most_common()),
        "history_items_median": _median([e["ingest"]["items"] for e in entries]),
        "ingest_s_median": _median([e["ingest"]["seconds"] for e in entries]),
        "ingest_s_p90": _p90([e["ingest"]["seconds"] for e in entries]),
        "search_s_median": _median([e["search"]["seconds"] for e in entries]),
        "search_s_p90": _p90([e["search"]["seconds"] for e in entries]),
        "injected_lines_median": _median([e["lines"] for e in injected]),
        "injected_lines_max": max((e["lines"] for e in injected), default=None),
        "injected_tokens_median": _median([e["tokens"] for e in injected]),
        "injected_tokens_max": max((e["tokens"] for e in injected), default=None),
    }  # fmt: skip


def every_target(system: list[str], sieve: Path, tasks_file: Path, folder: Path) -> dict:
    """Every target with eligible history through the system (its run's memory options) at top-1,
    without episodes."""
    history = SieveHistory(sieve)
    tasks = [t for t in load_tasks(tasks_file) if history.eligible(t.instance_id)]
    flags = list(zip(system[::2], system[1::2], strict=True))
    name = next(value for flag, value in flags if flag == "--memory")
    options = dict(value.split("=", 1) for flag, value in flags if flag == "--memory-option")
    shutil.rmtree(folder, ignore_errors=True)  # written afresh: the ingest seconds are this run's
    opened = time.monotonic()
    config = SystemMemoryConfig(name=name, history_dir=sieve, options=options)
    memories = SystemMemories(config, folder, history)
    open_s = round(time.monotonic() - opened, 2)
    memories.resume({}, [t.instance_id for t in tasks], lambda entries: None)

    async def prepare_all() -> None:
        for task in tasks:
            await memories.memory(task)

    asyncio.run(prepare_all())
    memories.close()
    return {"open_s": open_s, **slot_figures(memories.entries, {t.instance_id: t for t in tasks})}


def paired(off: Path, run: Path) -> dict:
    """The compare report of off and one Layer B run, reduced to the figures quoted."""
    command = [sys.executable, "-m", "execmem", "coding", "compare", str(off), str(run), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    effect, on = report["effects"][0], report["conditions"][report["treatment"]]
    memory = read_json_document(run / "memory.json")
    injected = [e["text"] for e in memory.values() if e["text"]]  # frozen entries carry no lines/tokens
    return {
        "targets": report["n_targets"],
        "resolved_off": round(report["conditions"]["off"]["resolved_rate"], 3),
        "resolved_on": round(on["resolved_rate"], 3),
        "delta": round(effect["estimate"], 3), "ci": [round(effect["low"], 3), round(effect["high"], 3)],
        "gained": effect.get("gained"), "lost": effect.get("lost"),
        "mean_steps_off": round(report["conditions"]["off"]["mean_steps"], 2),
        "mean_steps_on": round(on["mean_steps"], 2),
        "injected_targets": len(injected),
        "injected_lines_median": _median([len(text.splitlines()) for text in injected]),
        "injected_tokens_median": _median([estimate_tokens(text) for text in injected]),
    }  # fmt: skip


def run_args(tasks: str, frozen: Path, base_url: str, seeds: str, concurrency: str) -> list[str]:
    return ["coding", "run", "--tasks", tasks, "--frozen", str(frozen), "--model", "planted",
            "--base-url", base_url, "--seeds", seeds, "--max-steps", MAX_STEPS, "--concurrency", concurrency,
            "--reuse-evaluations", "--quiet"]  # fmt: skip


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", default="builtin")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--systems", default="bm25,dense,fusion")
    parser.add_argument("--dose", default="bm25", help="the system whose top-k 1..5 runs make the dose curve")
    parser.add_argument("--seeds", default="4")
    parser.add_argument("--concurrency", default="4")
    parser.add_argument("--retrieval-all", action="store_true", help="also every target with history")
    parser.add_argument("--json", type=Path)
    return parser.parse_args()


def treatment_runs(systems: list[str], dose: str) -> dict[str, list[str]]:
    """Run name -> its memory options: Layer A's frozen run, one Layer B run per system, the dose
    system at top-k 2..5 (its top-1 run is the system's own, added when it is not among the systems)
    and with whole conversations as its units (``windowing=hour``)."""
    runs = {"frozen": ["--memory", "frozen"]}
    runs |= {system: ["--memory", system] for system in dict.fromkeys([*systems, dose])}
    runs |= {f"{dose}-top{k}": ["--memory", dose, "--top-k", str(k)] for k in range(2, 6)}
    return runs | {f"{dose}-whole": ["--memory", dose, "--memory-option", "windowing=hour"]}


def main() -> None:
    args = arguments()
    tasks_file = builtin_tasks_path() if args.tasks == "builtin" else Path(args.tasks).resolve()
    out = (args.out or Path(tempfile.mkdtemp(prefix="layer-b-bench-"))).resolve()
    systems = [s for s in args.systems.split(",") if s]
    load_before, seconds, figures = os.getloadavg(), {}, {}
    with FakeServer(planted(tasks=str(tasks_file)), model="planted") as server:
        sieve = out / "sieve"
        sieve_args = ["--model", "planted", "--base-url", server.base_url, "--history-scope", "pool",
                      "--seeds", args.seeds, "--max-steps", MAX_STEPS,
                      "--concurrency", args.concurrency]  # fmt: skip
        seconds["sieve"] = execmem("coding", "sieve", "--tasks", str(tasks_file), *sieve_args, "--quiet",
                                   "--out", str(sieve))  # fmt: skip
        common = run_args(
            str(tasks_file), sieve / "frozen.jsonl", server.base_url, args.seeds, args.concurrency
        )
        seconds["off"] = execmem(*common, "--memory", "off", "--out", str(out / "off"))
        runs = treatment_runs(systems, args.dose)
        for name, options in runs.items():
            history = [] if name == "frozen" else ["--history", str(sieve)]
            seconds[name] = execmem(*common, *options, *history, "--out", str(out / name))
            figures[name] = paired(out / "off", out / name)
    by_id = {t.instance_id: t for t in load_tasks(tasks_file)}
    top1 = {name: options for name, options in runs.items() if name != "frozen" and "--top-k" not in options}
    retrieval = {name: slot_figures(read_json_document(out / name / "memory.json"), by_id) for name in top1}
    every = {name: every_target(options, sieve, tasks_file, out / "retrieval" / name)
             for name, options in top1.items() if args.retrieval_all}  # fmt: skip
    dose = {k: figures[args.dose if k == 1 else f"{args.dose}-top{k}"] for k in range(1, 6)}
    report = {"tasks": len(load_tasks(tasks_file)), "seeds": int(args.seeds), "cpus": os.cpu_count(),
              "seconds": seconds, "paired": figures, "dose": {"system": args.dose, "by_top_k": dose},
              "retrieval": retrieval, "retrieval_every_target": every,
              "load_before": [round(x, 2) for x in load_before],
              "load_after": [round(x, 2) for x in os.getloadavg()], "out": str(out)}  # fmt: skip
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
