"""The whole SIEVE pipeline and the Layer A table, offline, in one command (a scripted solver's figures).

``python -m execmem.testing.offline_sieve --out DIR [--tasks builtin] [--seeds 4] [--ceiling 0.25]``
serves the planted solver (``planted_coding_solver``) on the loopback address, then runs, as a user
would, ``execmem coding sieve`` (into ``DIR/sieve``), the three Layer A runs on its frozen file
(``DIR/layer-a/{off,frozen,irrelevant}``) and ``execmem coding compare`` (its JSON in
``DIR/layer-a/compare.json``). Re-running resumes every step. The exit code is the first failing
command's.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from execmem.suites.coding.paths import builtin_tasks_path
from execmem.testing.fake_server import FakeServer
from execmem.testing.planted_coding_solver import planted

MAX_STEPS = "6"


def _execmem(*args: str) -> int:
    print(f"$ execmem {' '.join(args)}", file=sys.stderr, flush=True)
    return subprocess.run([sys.executable, "-m", "execmem", *args], check=False).returncode


def _layer_a(tasks: str, out: Path, base_url: str, seeds: str) -> int:
    frozen = out / "sieve" / "frozen.jsonl"
    if not frozen.read_text(encoding="utf-8").strip():
        print("no target was kept: there is no Layer A table to make", file=sys.stderr)
        return 0
    runs = []
    for memory in ("off", "frozen", "irrelevant"):
        runs.append(str(out / "layer-a" / memory))
        code = _execmem(
            "coding",
            "run",
            "--tasks",
            tasks,
            "--frozen",
            str(frozen),
            "--memory",
            memory,
            "--model",
            "planted",
            "--base-url",
            base_url,
            "--seeds",
            seeds,
            "--max-steps",
            MAX_STEPS,
            "--reuse-evaluations",
            "--quiet",
            "--out",
            runs[-1],
        )
        if code:
            return code
    return _compare(runs, out)


def _compare(runs: list[str], out: Path) -> int:
    code = _execmem("coding", "compare", *runs)
    if code == 0:
        with open(out / "layer-a" / "compare.json", "w", encoding="utf-8") as sink:
            command = [sys.executable, "-m", "execmem", "coding", "compare", *runs, "--json"]
            subprocess.run(command, stdout=sink, stderr=subprocess.DEVNULL, check=False)
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m execmem.testing.offline_sieve", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tasks", default="builtin", help="builtin or a task file")
    parser.add_argument("--seeds", default="4")
    parser.add_argument("--ceiling", default="0.25", help="share of tasks the solver solves without memory")
    parser.add_argument("--concurrency", default="4")
    args = parser.parse_args(argv)
    tasks = args.tasks if args.tasks == "builtin" else str(Path(args.tasks).resolve())
    policy = planted(tasks=str(builtin_tasks_path()) if tasks == "builtin" else tasks, ceiling=args.ceiling)
    out = args.out.resolve()
    with FakeServer(policy, model="planted") as server:
        code = _execmem(
            "coding",
            "sieve",
            "--tasks",
            tasks,
            "--model",
            "planted",
            "--base-url",
            server.base_url,
            "--seeds",
            args.seeds,
            "--max-steps",
            MAX_STEPS,
            "--concurrency",
            args.concurrency,
            "--quiet",
            "--out",
            str(out / "sieve"),
        )
        if code == 0:
            code = _layer_a(tasks, out, server.base_url, args.seeds)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
