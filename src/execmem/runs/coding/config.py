"""The configuration of a coding run, and the manifest that declares what its protocol fixes."""

from __future__ import annotations

import platform
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from execmem import __version__
from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.solvers import BashSolver, CodingSolver, SolverKind
from execmem.core.clock import now_iso
from execmem.llm.config import ModelConfig
from execmem.runs.coding.evaluation_reuse import REUSE_RULE
from execmem.runs.coding.layer_b.config import SystemMemoryConfig
from execmem.runs.identity import measured_model
from execmem.suites.coding.conditions import Condition, MemorySource, describe_memory
from execmem.suites.coding.records import RecordPolicy
from execmem.suites.coding.sandbox.config import SandboxConfig
from execmem.suites.coding.tasks import CodingTask

MANIFEST_VERSION = 1
EVALUATION_PROTOCOL = (
    "fresh base copy; agent diff minus test files, test configuration and start-up hooks; "
    "task tests restored; only the declared tests run, plugin autoload off, with a control test that "
    "must fail; report in a fresh folder outside the repository; an inconsistent report is suspect "
    "and never resolved"
)
FIXED_FIELDS = ("model", "solver", "tools", "sandbox", "evaluation", "tasks", "seeds")
"""Manifest fields that must agree for two runs to be paired (the memory block is compared apart)."""


class CodingRunConfig(BaseModel):
    """Everything a coding run is called with."""

    model_config = ConfigDict(extra="forbid")

    model: ModelConfig
    tasks_file: Path
    memory: Condition | Literal["system"] = "off"
    system: SystemMemoryConfig | None = Field(None, description="memory 'system': the system and its history")
    seeds: int = Field(4, ge=1, description="episodes per task, with sampling seeds 0..seeds-1")
    solver: SolverConfig = Field(default_factory=SolverConfig)
    solver_kind: SolverKind = Field("bash", description="bash (built-in) or miniswe (mini-swe-agent)")
    records: RecordPolicy = Field(default_factory=RecordPolicy)
    frozen_file: Path | None = Field(
        None, description="frozen benchmark file: its targets are the run's, its texts the treatment"
    )
    given_file: Path | None = Field(
        None, description="given-text file (--memory given): its targets are the run's, its texts the slot's"
    )
    only: list[str] = Field(default_factory=list, description="instance ids to run (default: all)")
    limit: int | None = Field(None, ge=1, description="run only the first N tasks (after `only`)")
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    unsafe_local: bool = False
    image: str | None = Field(None, description="run commands in containers of this image (--sandbox docker)")
    eval_timeout_s: float = Field(600.0, gt=0)
    concurrency: int = Field(4, ge=1, description="episodes in flight")
    cache_dir: Path | None = Field(None, description="response cache folder (default: the run folder)")
    keep_workspaces: bool = False
    reuse_evaluations: bool = Field(False, description="identical diffs of a task share one evaluation")

    def seed_list(self) -> list[int]:
        return list(range(self.seeds))

    @model_validator(mode="after")
    def _system_with_its_settings(self) -> CodingRunConfig:
        if (self.memory == "system") != (self.system is not None):
            raise ValueError("memory 'system' goes with the system's settings, and only it")
        return self


def build_manifest(
    config: CodingRunConfig,
    tasks: list[CodingTask],
    sandbox_kind: str,
    task_sha256: str,
    memory: MemorySource,
    agent: CodingSolver | None = None,
    memory_block: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The protocol of the run: FIXED_FIELDS, the memory block, plus versions and call details.
    ``agent`` is the run's solver (the built-in one when not given); ``memory_block`` a memory
    system's (Layer B), else the condition's."""
    agent = agent or BashSolver()
    model = {k: v for k, v in measured_model(config.model.model_dump()).items() if k != "seed"}
    return {
        "manifest_version": MANIFEST_VERSION,
        "suite": "coding",
        "model": {**model, "seed": "the episode's seed"},
        "solver": {**agent.describe(), "budgets": config.solver.describe()},
        "tools": agent.tools(),
        "sandbox": {
            "kind": sandbox_kind,
            **config.sandbox.settings(),
            "command_timeout_s": config.solver.command_timeout_s,
            **({"image": config.image} if config.image else {}),
        },
        "evaluation": {
            "timeout_s": config.eval_timeout_s,
            "resolved": "every FAIL_TO_PASS and PASS_TO_PASS test passes on the episode's diff",
            "protocol": EVALUATION_PROTOCOL,
            **({"reuse": REUSE_RULE} if config.reuse_evaluations else {}),
        },
        "tasks": {
            "file_sha256": task_sha256,
            "only": sorted(config.only),
            "limit": config.limit,
            "order": [t.instance_id for t in tasks],
            "frozen_file_sha256": memory.frozen_sha256,
        },
        "seeds": config.seed_list(),
        "memory": memory_block or describe_memory(config.memory, memory),
        "versions": {"execmem": __version__, "python": platform.python_version()},
        "invocation": config.model_dump(mode="json"),
        "started_at": now_iso(),
    }
