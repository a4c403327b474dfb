"""The distillers' protocol and the LLM distiller: (target view, history item) -> an experience.

A distiller never sees a target's gold patch, test patch or test results: it gets a
:class:`TargetView` and one :class:`HistoryItem` (the types carry nothing else). The LLM distiller
asks for the four fields as one JSON object (prompt ``sieve-distill-v1``), validated by
:class:`Experience`, with one repair turn; its replies are cached by the client.
"""

from __future__ import annotations

from typing import Any, Protocol

from execmem.agents.coding.sieve.json_reply import JsonReplyError, ask_json
from execmem.agents.coding.sieve.prompts import DISTILL_VERSION, distill_messages
from execmem.core.protocols import Model
from execmem.suites.coding.experience import Experience
from execmem.suites.coding.history import HistoryItem, TargetView


class DistillError(ValueError):
    """No experience could be made from this history item (the reason is recorded)."""


class Distiller(Protocol):
    name: str

    def describe(self) -> dict[str, Any]: ...

    async def distill(self, target: TargetView, history: HistoryItem) -> Experience: ...


class LLMDistiller:
    """Experiences written by a model from the target's issue and one history item."""

    name = "llm"

    def __init__(self, model: Model) -> None:
        self.model = model

    def describe(self) -> dict[str, Any]:
        return {"kind": "llm", "version": DISTILL_VERSION, "model": self.model.describe().get("model")}

    async def distill(self, target: TargetView, history: HistoryItem) -> Experience:
        try:
            return await ask_json(self.model, distill_messages(target, history), Experience)
        except JsonReplyError as exc:
            raise DistillError(str(exc)) from None
