"""The settings of a Layer B run and the policy its manifest declares."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from execmem.suites.coding.system_input import CONVERSATION_VERSION, QUERIES

MAX_TOP_K = 20
RANKING_DEPTH = 10
"""memory.json keeps the system's top max(top_k, RANKING_DEPTH) for each query."""
STATE_FOLDER = "memory-system"
"""The memory system's state in the run folder (``memory.sqlite`` is the path offered to systems that
take one; some make it a folder) and its ingestion markers."""
WINDOWING = "turn"
"""Offered to systems that window history: one unit per message (issue, step, final patch)."""


class SystemMemoryConfig(BaseModel):
    """``--memory SYSTEM``: which system, over which history, and how its records fill the slot."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="the registered memory system")
    options: dict[str, Any] = Field(default_factory=dict, description="--memory-option KEY=VALUE")
    history_dir: Path = Field(description="the SIEVE output folder whose history stage is ingested")
    top_k: int = Field(1, ge=1, le=MAX_TOP_K, description="records injected, joined in rank order")
    query: Literal["problem", "title"] = Field("problem", description="the target query (QUERIES)")
    truncate_chars: int | None = Field(None, ge=1, description="cap on the joined text (none: whole)")

    @property
    def depth(self) -> int:
        """How many results one search asks for (and memory.json keeps)."""
        return max(self.top_k, RANKING_DEPTH)

    def policy(self) -> dict[str, Any]:
        """The manifest's declaration of how the slot is filled."""
        cut = f"the joined text cut to {self.truncate_chars} characters" if self.truncate_chars else "none"
        return {
            "write_policy": f"{CONVERSATION_VERSION}: every eligible history item of the target "
            "(SIEVE's history stage) as one conversation (its problem statement, each step of its "
            "compressed trajectory, its final patch), one add() per item, oldest first, stamped before "
            "the target's created_at, into a user space of the target's own",
            "retrieval_trigger": "once per target, before its first episode (offline, not in the loop)",
            "insertion_rule": f"the top {self.top_k} records of search(query, before=the target's "
            "created_at), joined by blank lines in rank order, in the <memory> slot of the first user "
            "message; empty records and records naming the target are skipped",
            "truncation_rule": cut,
            "top_k": self.top_k,
            "query": self.query,
            "query_rule": QUERIES[self.query],
            "ranking_depth": self.depth,
            "truncate_chars": self.truncate_chars,
            "options": self.options,
        }
