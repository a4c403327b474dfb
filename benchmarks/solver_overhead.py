"""The harness time of each coding solver per step: the built-in bash solver against mini-swe-agent.

Usage: python benchmarks/solver_overhead.py [--steps 20] [--episodes 15]

Each episode is ``--steps`` scripted steps of the command ``true`` and a submission, answered by
the fake OpenAI-compatible server over real HTTP, with commands run in a scratch folder without a
sandbox (the sandbox costs both solvers the same; see sandbox_overhead.py). Reported per solver:
the median and p90 of the episode's agent seconds divided by its steps, the median model latency
share, and mini-swe-agent's median over the built-in's. Needs the ``[miniswe]`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
from pathlib import Path

from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.prompts import SUBMIT_COMMAND
from execmem.agents.coding.solvers import make_solver
from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig
from execmem.suites.coding.sandbox.local import UnsafeLocalSandbox
from execmem.testing.coding_policies import bash, steps_taken
from execmem.testing.fake_server import FakeServer

SUBMITS = {"bash": SUBMIT_COMMAND, "miniswe": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}


class Folder:
    def __init__(self, path: Path) -> None:
        self.path, self.sandbox = path, UnsafeLocalSandbox()

    def run(self, command: str, timeout_s: float):
        return self.sandbox.run(command, self.path, timeout_s)


def policy(steps: int, submit: str):
    return lambda body: bash("true") if steps_taken(body) < steps else bash(submit)


async def episode(kind: str, base_url: str, folder: Path) -> tuple[float, float, int]:
    model = OpenAIChatModel(ModelConfig(model="fake", base_url=base_url, max_retries=0))
    try:
        result = await make_solver(kind).solve(
            model, Folder(folder), "fix it", None, SolverConfig(max_steps=200)
        )
    finally:
        await model.aclose()
    return result.seconds, result.model_latency_s, result.steps


def measure(kind: str, steps: int, episodes: int) -> dict[str, float]:
    per_step, latency_share = [], []
    with FakeServer(policy(steps, SUBMITS[kind])) as server, tempfile.TemporaryDirectory() as scratch:
        for _ in range(episodes):
            seconds, latency, taken = asyncio.run(episode(kind, server.base_url, Path(scratch)))
            assert taken == steps + 1, f"{kind}: {taken} steps"
            per_step.append(seconds / taken)
            latency_share.append(latency / seconds)
    ordered = sorted(per_step)
    return {
        "median_ms_per_step": round(1000 * statistics.median(per_step), 2),
        "p90_ms_per_step": round(1000 * ordered[int(0.9 * (len(ordered) - 1))], 2),
        "median_model_latency_share": round(statistics.median(latency_share), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--episodes", type=int, default=15)
    args = parser.parse_args()
    report = {kind: measure(kind, args.steps, args.episodes) for kind in ("bash", "miniswe")}
    ratio = report["miniswe"]["median_ms_per_step"] / report["bash"]["median_ms_per_step"]
    report["miniswe_over_bash"] = round(ratio, 2)
    print(json.dumps({"steps": args.steps + 1, "episodes": args.episodes, **report}, indent=2))


if __name__ == "__main__":
    main()
