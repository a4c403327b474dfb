"""The configuration of a SIEVE pipeline: one typed config, every field recorded in provenance."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from execmem.agents.coding.config import SolverConfig
from execmem.agents.coding.solvers import SolverKind
from execmem.llm.config import ModelConfig
from execmem.runs.identity import measured_model
from execmem.suites.coding.sandbox.config import SandboxConfig
from execmem.suites.coding.screen import ScreenPolicy

TIE_BREAK = "largest uplift, then the shorter record text, then the better screen rank, then the history id"


class SieveConfig(BaseModel):
    """Everything ``execmem coding sieve`` is called with."""

    model_config = ConfigDict(extra="forbid")

    tasks_file: Path
    out: Path
    model: ModelConfig
    solver: SolverConfig = Field(default_factory=SolverConfig)
    solver_kind: SolverKind = Field("bash", description="the reference solver: bash (built-in) or miniswe")
    only: list[str] = Field(default_factory=list, description="targets to sieve (default: all)")
    limit: int | None = Field(None, ge=1)
    screen: ScreenPolicy = Field(default_factory=ScreenPolicy)
    judge: bool = Field(False, description="let an LLM judge keep the relevant shortlisted candidates")
    judge_model: ModelConfig | None = Field(None, description="default: the solver's model")
    history_scope: Literal["shortlist", "pool"] = Field(
        "shortlist", description="run the shortlisted history tasks, or every task of the pool"
    )
    history_seeds: int = Field(
        1, ge=1, description="seeds per history task (the lowest completed one is used)"
    )
    distiller: Literal["extractive", "llm"] = "extractive"
    distiller_model: ModelConfig | None = Field(None, description="default: the solver's model")
    drop_unanchored: bool = Field(False, description="drop experiences with unanchored claims")
    seeds: int = Field(4, ge=1, description="seeds per condition in the verification")
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    unsafe_local: bool = False
    image: str | None = None
    eval_timeout_s: float = Field(600.0, gt=0)
    concurrency: int = Field(4, ge=1, description="episodes (or validations) in flight")
    reuse_evaluations: bool = Field(True, description="identical diffs of a task share one evaluation")

    def judge_or_solver_model(self) -> ModelConfig:
        return self.judge_model or self.model

    def distiller_or_solver_model(self) -> ModelConfig:
        return self.distiller_model or self.model

    def solver_identity(self) -> dict[str, Any]:
        """What makes two episodes of a task comparable: the measured model, the solver, the sandbox."""
        model = {k: v for k, v in measured_model(self.model.model_dump()).items() if k != "seed"}
        return {
            "model": model,
            "solver": self.solver.describe(),
            "solver_kind": self.solver_kind,
            "sandbox": self.sandbox.settings(),
            "unsafe_local": self.unsafe_local,
            "image": self.image,
            "eval_timeout_s": self.eval_timeout_s,
            "reuse_evaluations": self.reuse_evaluations,
        }
