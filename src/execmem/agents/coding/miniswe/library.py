"""The parts of mini-swe-agent the solver uses, imported once, and its ``mini.yaml`` prompts.

Importing ``minisweagent`` prints a banner unless ``MSWEA_SILENT_STARTUP`` is set (set here
unless it already is) and loads ``.env`` from its global config folder
(``$MSWEA_GLOBAL_CONFIG_DIR``, by default ``~/.config/mini-swe-agent``), which it creates.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from execmem.memory.registry import MissingExtraError

CONFIG = "mini.yaml"
"""mini-swe-agent's own config for its tool-calling agent (environment-neutral, unlike swebench.yaml)."""


@dataclass(frozen=True)
class Templates:
    """The prompts and message templates of ``mini.yaml``."""

    system: str
    instance: str
    observation: str
    format_error: str

    def sha256(self) -> str:
        text = json.dumps([self.system, self.instance, self.observation, self.format_error])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.cache
def library() -> SimpleNamespace:
    """mini-swe-agent's agent class, exceptions, tool-call helpers and version."""
    os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
    try:
        import minisweagent
        from minisweagent.agents.default import DefaultAgent
        from minisweagent.config import get_config_from_spec
        from minisweagent.exceptions import FormatError, LimitsExceeded, Submitted
        from minisweagent.models.utils import actions_toolcall
    except ImportError as exc:
        raise MissingExtraError("the mini-swe-agent solver", "execmem", "miniswe", exc) from exc
    return SimpleNamespace(
        version=minisweagent.__version__, DefaultAgent=DefaultAgent, config=get_config_from_spec,
        FormatError=FormatError, LimitsExceeded=LimitsExceeded, Submitted=Submitted,
        BASH_TOOL=actions_toolcall.BASH_TOOL, parse_actions=actions_toolcall.parse_toolcall_actions,
        observations=actions_toolcall.format_toolcall_observation_messages,
    )  # fmt: skip


@functools.cache
def templates() -> Templates:
    """The templates of mini-swe-agent's ``mini.yaml``, as installed."""
    config: dict[str, Any] = library().config(CONFIG)
    agent, model = config["agent"], config["model"]
    return Templates(
        agent["system_template"], agent["instance_template"],
        model["observation_template"], model["format_error_template"],
    )  # fmt: skip


def exit_message(status: str, content: str = "") -> dict[str, Any]:
    """The ``exit`` message mini-swe-agent's loop ends on."""
    extra = {"exit_status": status, "submission": content}
    return {"role": "exit", "content": content or status, "extra": extra}
