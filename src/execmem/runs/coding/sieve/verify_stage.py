"""SIEVE stage 4, verify uplift and freeze: which candidate experience makes the solver succeed?

With the reference solver and ``seeds`` seeds per condition, each target runs memory off, then,
unless it is at ceiling (resolved in every seed off: it cannot gain), once per candidate k with the
candidate's record text in the memory slot (a ``--memory frozen`` run of a one-record file). The
uplift of k is resolved(k) - resolved(off), as shares of seeds. A target is kept when off < 1 and
its best uplift > 0; the frozen candidate is the best by ``config.TIE_BREAK``. Output:
``verify.json`` (every target's outcomes per seed and decision) and ``frozen.jsonl`` (the frozen
benchmark file, ``suites.coding.frozen``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from execmem.core.files import write_json_atomic
from execmem.core.hashing import text_sha256
from execmem.core.text import slug
from execmem.runs.coding.metrics import counts_as_resolved
from execmem.runs.coding.sieve.config import TIE_BREAK, SieveConfig
from execmem.runs.coding.sieve.episodes import EpisodeRuns, RunSpec
from execmem.runs.coding.sieve.stages import Stage, content_key
from execmem.runs.coding.store import episode_id
from execmem.suites.coding.experience import Experience
from execmem.suites.coding.frozen import FrozenRecord, dump_frozen, frozen_record
from execmem.suites.coding.tasks import CodingTask

VERIFY_STAGE_VERSION = "sieve-verify-v1"
OUTPUT, FROZEN = "verify.json", "frozen.jsonl"


def verify_stage(config: SieveConfig, distill_key: str) -> Stage:
    inputs = {
        "distill_stage": distill_key,
        "seeds": config.seeds,
        "solver": content_key(config.solver_identity()),
        "keep": "off < 1 and uplift > 0",
        "tie_break": TIE_BREAK,
    }
    return Stage("4-verify", VERIFY_STAGE_VERSION, inputs, config.out)


def off_spec(runs: EpisodeRuns, target: str, seeds: int) -> RunSpec:
    return RunSpec(runs.root / "verify" / slug(target, limit=120) / "off", target, "off", seeds)


def candidate_spec(runs: EpisodeRuns, task: CodingTask, line: dict, seeds: int) -> RunSpec:
    """The run of one candidate, with its one-record frozen file beside the run folder."""
    folder = runs.root / "verify" / slug(task.instance_id, limit=120)
    name = f"candidate-{text_sha256(line['text'])[:12]}"
    record = frozen_record(
        task.instance_id, task.repo, Experience(**line["experience"]), {"history_ids": [line["history"]]}
    )
    path = folder / f"{name}.jsonl"
    if not path.is_file():
        dump_frozen([record], path)
    return RunSpec(folder / name, task.instance_id, "frozen", seeds, path)


def outcomes(episodes: dict[str, dict[str, Any]], target: str, seeds: int) -> list[int]:
    return [int(counts_as_resolved(episodes[episode_id(target, seed)])) for seed in range(seeds)]


def best_candidate(candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """Largest uplift, then the shorter text, then the better rank, then the history id."""
    return min(candidates, key=lambda c: (-c["uplift"], len(c["text"]), c["rank"], c["history"]))


async def run_verify(
    stage: Stage,
    runs: EpisodeRuns,
    candidates: dict[str, list[dict]],
    tasks: list[CodingTask],
    provenance: dict[str, Any],
    config: SieveConfig,
) -> dict[str, dict]:
    """Every target's verification, and the frozen file written."""
    stage.start()
    by_id, seeds = {task.instance_id: task for task in tasks}, config.seeds
    offs = {t: off_spec(runs, t, seeds) for t in candidates}
    off_episodes = await runs.run(list(offs.values()), "verify off")
    results = {
        t: {"off": outcomes(off_episodes[offs[t].folder], t, seeds), "candidates": []} for t in candidates
    }
    open_targets = [t for t in candidates if sum(results[t]["off"]) < seeds]
    specs = {
        (t, line["rank"]): candidate_spec(runs, by_id[t], line, seeds)
        for t in open_targets
        for line in candidates[t]
    }
    cand_episodes = await runs.run(list(specs.values()), "verify candidates")
    for (target, rank), spec in specs.items():
        got = outcomes(cand_episodes[spec.folder], target, seeds)
        results[target]["candidates"].append(
            _candidate(candidates[target][rank - 1], got, results[target], spec)
        )
    records = [_freeze(t, results[t], candidates[t], by_id[t], provenance, config) for t in candidates]
    frozen = [record for record in records if record is not None]
    write_json_atomic(stage.path(OUTPUT), results)
    dump_frozen(frozen, stage.path(FROZEN))
    stage.finish({"targets": len(results), "kept": len(frozen)})
    return results


def _candidate(line: dict, got: list[int], result: dict, spec: RunSpec) -> dict[str, Any]:
    uplift = (sum(got) - sum(result["off"])) / len(got)
    return {"rank": line["rank"], "history": line["history"], "text": line["text"], "outcomes": got,
            "uplift": uplift, "run": str(spec.folder)}  # fmt: skip


def decide(result: dict[str, Any], seeds: int) -> str | None:
    """Why a verified target is dropped (None: kept), recorded in ``result["dropped"]``."""
    if sum(result["off"]) == seeds:
        return f"at ceiling (off {seeds}/{seeds})"
    if not result["candidates"] or max(c["uplift"] for c in result["candidates"]) <= 0:
        return "no uplift"
    return None


def _freeze(
    target: str, result: dict, lines: list[dict], task: CodingTask, provenance: dict, config: SieveConfig
) -> FrozenRecord | None:
    result["dropped"] = decide(result, config.seeds)
    if result["dropped"] is not None:
        return None
    best = best_candidate(result["candidates"])
    result["frozen"] = best["rank"]
    line = lines[best["rank"] - 1]
    details = {
        "history_ids": [line["history"]],
        "candidate_rank": best["rank"],
        "distiller": line["distiller"],
        "solver": config.solver_identity(),
        "seeds": list(range(config.seeds)),
        "outcomes": {"off": result["off"], "frozen": best["outcomes"]},
        "uplift": best["uplift"],
        "anchoring": line["anchoring"],
        **provenance,
    }
    return frozen_record(target, task.repo, Experience(**line["experience"]), details)


def frozen_path(stage: Stage) -> Path:
    return stage.path(FROZEN)
