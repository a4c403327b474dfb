"""The SIEVE pipeline: the four stages in order, the funnel, the frozen file; or, dry, the plan.

``out`` holds ``sieve.json`` (the invocation, the stage folders this run used, start and finish),
``funnel.json`` (the funnel and per-target tables, ``{"tables": [...]}``, plus the counts),
``frozen.jsonl`` (the frozen benchmark file of the last run), ``cache/`` (model responses),
``stages/`` (each stage's artifact and provenance) and ``episodes/`` (the coding run folders).
Re-running the same command resumes: finished stages are read back, finished episodes kept.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from execmem.agents.coding.sieve.distiller import Distiller, LLMDistiller
from execmem.agents.coding.sieve.extractive import ExtractiveDistiller
from execmem.agents.coding.sieve.judge import LLMJudge
from execmem.core.clock import now_iso
from execmem.core.files import read_json_document, write_json_atomic
from execmem.core.hashing import file_sha256
from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.runs.coding.sieve import distill_stage, screen_stage
from execmem.runs.coding.sieve.config import SieveConfig
from execmem.runs.coding.sieve.episodes import EpisodeRuns, Progress
from execmem.runs.coding.sieve.funnel import Funnel, funnel_tables
from execmem.runs.coding.sieve.history_items import SIEVE_DOCUMENT
from execmem.runs.coding.sieve.history_stage import history_stage, run_history
from execmem.runs.coding.sieve.plan import plan
from execmem.runs.coding.sieve.validate_stage import run_validation, validate_stage
from execmem.runs.coding.sieve.verify_stage import frozen_path, run_verify, verify_stage
from execmem.runs.episode_log import lock_folder, unlock_folder
from execmem.runs.executors.base import Executor
from execmem.runs.report_tables import tables_document
from execmem.suites.coding.paths import cache_root
from execmem.suites.coding.tasks import load_tasks, select_tasks
from execmem.suites.coding.venvs import VenvCache

FROZEN_FILE, FUNNEL_FILE = "frozen.jsonl", "funnel.json"


class SievePipeline:
    """One SIEVE output folder being filled (``run``) or planned (``plan``, in ``planning``)."""

    def __init__(
        self,
        config: SieveConfig,
        progress: Progress,
        coding_cache: Path | None = None,
        executor: Executor | None = None,
    ) -> None:
        self.config, self.progress = config, progress
        self.tasks = load_tasks(config.tasks_file)
        self.targets = select_tasks(self.tasks, config.only, config.limit)
        self.tasks_sha = file_sha256(config.tasks_file)
        self.env_cache = VenvCache((coding_cache or cache_root()) / "envs")
        self.runs = EpisodeRuns(config, progress, executor)
        self.cache: ResponseCache | None = None
        self.models: list[OpenAIChatModel] = []

    def _model(self, config) -> OpenAIChatModel:
        if self.cache is None:
            self.cache = ResponseCache(self.config.out / "cache" / "responses.sqlite")
        model = OpenAIChatModel(config.model_copy(update={"seed": None}), self.cache)
        self.models.append(model)
        return model

    def judge(self) -> LLMJudge | None:
        return LLMJudge(self._model(self.config.judge_or_solver_model())) if self.config.judge else None

    def distiller(self) -> Distiller:
        if self.config.distiller == "llm":
            return LLMDistiller(self._model(self.config.distiller_or_solver_model()))
        return ExtractiveDistiller()

    def plan(self) -> list[dict[str, Any]]:
        """The dry run: per stage, the episodes and model calls it would make at most."""
        return plan(self.config, self.tasks, self.targets, self.runs)

    async def run(self) -> dict[str, Any]:
        """All four stages; the funnel document. SieveIncomplete / EndpointError propagate."""
        out = self.config.out
        out.mkdir(parents=True, exist_ok=True)
        lock_folder(out)
        try:
            if self.config.model.probe:  # a wrong URL, key or model fails in seconds, not after stage 1
                await self._probe()
            async with self.runs.session():
                return await self._stages()
        finally:
            for model in self.models:
                await model.aclose()
            if self.cache is not None:
                self.cache.close()
            unlock_folder(out)

    async def _probe(self) -> None:
        model = OpenAIChatModel(self.config.model)
        try:
            await model.probe()
        finally:
            await model.aclose()

    async def _stages(self) -> dict[str, Any]:
        started, folders = now_iso(), {}
        self._document(started, folders, None)
        funnel = Funnel([t.instance_id for t in self.targets], {t.instance_id: t.repo for t in self.targets})
        valid = await self._validate(funnel)
        folders["1-validate"] = self._relative(validate_stage(self.config).folder)
        screened, screen_key = await self._screen(funnel, valid, folders)
        candidates, distill_key = await self._history(funnel, screened, screen_key, folders)
        await self._verify(funnel, candidates, distill_key, folders)
        tables = funnel_tables(funnel, self.config.seeds)
        document = {**tables_document(tables), "counts": funnel.counts, "kept": funnel.kept()}
        write_json_atomic(self.config.out / FUNNEL_FILE, document)
        self._document(started, folders, now_iso())
        return document

    async def _validate(self, funnel: Funnel) -> set[str]:
        checks = await run_validation(self.config, self.tasks, self.env_cache, self.progress)
        funnel.drops.append({t: None if checks[t]["ok"] else checks[t]["reason"] for t in funnel.targets})
        return {task for task, check in checks.items() if check["ok"]}

    async def _screen(self, funnel: Funnel, valid: set[str], folders: dict) -> tuple[dict, str]:
        targets, judge = funnel.entering(1), self.judge()
        stage = screen_stage.screen_stage(self.config, self.tasks_sha, targets, sorted(valid), judge)
        screened = await screen_stage.run_screen(
            stage, self.tasks, targets, valid, self.config, judge, self.progress
        )
        funnel.drops.append({t: screened[t]["dropped"] for t in targets})
        folders["2-screen"] = self._relative(stage.folder)
        pairs = [v for r in screened.values() for v in r["judge"].values()]
        funnel.counts["judged pairs"] = len(pairs)
        funnel.counts["judge failures"] = sum("error" in v for v in pairs)
        return screened, stage.key

    async def _history(
        self, funnel: Funnel, screened: dict, screen_key: str, folders: dict
    ) -> tuple[dict, str]:
        stage = history_stage(self.config, screen_key)
        items, pools = await run_history(stage, self.runs, screened, self.tasks, self.config)
        folders["3-history"] = self._relative(stage.folder)
        distiller = self.distiller()
        dstage = distill_stage.distill_stage(self.config, stage.key, distiller)
        lines = await distill_stage.run_distill(dstage, pools, items, self.tasks, distiller, self.config)
        folders["3-distill"] = self._relative(dstage.folder)
        funnel.drops.append({t: distill_stage.drop_reason(pools[t], lines[t]) for t in pools})
        funnel.counts.update(_history_counts(stage.folder, dstage.folder, items))
        candidates = {t: [line for line in lines[t] if line["status"] == "ok"] for t in funnel.entering(3)}
        return candidates, dstage.key

    async def _verify(self, funnel: Funnel, candidates: dict, distill_key: str, folders: dict) -> None:
        stage = verify_stage(self.config, distill_key)
        provenance = {"stage_keys": dict(folders), "tasks_sha256": self.tasks_sha}
        results = await run_verify(stage, self.runs, candidates, self.targets, provenance, self.config)
        folders["4-verify"] = self._relative(stage.folder)
        funnel.drops.append({t: results[t]["dropped"] for t in results})
        funnel.verified = results
        shutil.copyfile(frozen_path(stage), self.config.out / FROZEN_FILE)

    def _relative(self, folder: Path) -> str:
        return str(folder.relative_to(self.config.out))

    def _document(self, started: str, folders: dict, finished: str | None) -> None:
        document = {
            "invocation": self.config.model_dump(mode="json"),
            "tasks_sha256": self.tasks_sha,
            "stages": folders,
            "started_at": started,
            "finished_at": finished,
        }
        write_json_atomic(self.config.out / SIEVE_DOCUMENT, document)


def _history_counts(history_folder: Path, distill_folder: Path, items: dict) -> dict[str, Any]:
    summary = read_json_document(distill_folder / "stage.json")["summary"]
    ran = read_json_document(history_folder / "stage.json")["summary"]["history_tasks"]
    return {
        "history tasks run": ran,
        "completed history trajectories": len(items),
        "experiences usable": summary["ok"],
        "distillations failed": summary["failed"],
        "experiences leaking target identifiers": summary["leaks"],
        "experiences with unanchored claims": summary["unanchored_experiences"],
        "unanchored claims": summary["unanchored_claims"],
    }
