"""The optional LLM judge of SIEVE's patch-pattern screen: is a shortlisted history relevant?

Stage 2 is oracle-assisted: the judge's evidence is structured and comes from both gold patches
(the files, directories and cleaned identifiers they share, and the deterministic score), beside
the two problem statements; it never gets a raw patch. Prompt ``sieve-judge-v1``; the verdict is a
JSON object ``{"relevant": bool, "reason": str}``, validated, with one repair turn; cached.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execmem.agents.coding.sieve.json_reply import ask_json
from execmem.agents.coding.sieve.prompts import JUDGE_VERSION, judge_messages
from execmem.core.protocols import Model


class Verdict(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    relevant: bool
    reason: str = Field("", max_length=2000)


class LLMJudge:
    def __init__(self, model: Model) -> None:
        self.model = model

    def describe(self) -> dict[str, Any]:
        return {"kind": "llm", "version": JUDGE_VERSION, "model": self.model.describe().get("model")}

    async def judge(self, target_statement: str, history_statement: str, evidence: dict[str, Any]) -> Verdict:
        """The verdict on one pair; JsonReplyError when the model gives none."""
        return await ask_json(
            self.model, judge_messages(target_statement, history_statement, evidence), Verdict
        )
