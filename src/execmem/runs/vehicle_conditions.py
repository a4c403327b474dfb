"""Build the memory condition a vehicle run asks for."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from execmem.agents.vehicle.build_cache import BuildCache
from execmem.agents.vehicle.conditions import FullHistory, GoldMemory, MemoryCondition, NoMemory
from execmem.agents.vehicle.key_value import KeyValueCondition
from execmem.agents.vehicle.prompts import KV_PROMPT_VERSION, SUMMARY_PROMPT_VERSION
from execmem.agents.vehicle.summary import RecursiveSummary
from execmem.core.protocols import Model
from execmem.runs.vehicle_config import VehicleRunConfig
from execmem.suites.vehicle.dataset import load_history

PROTOCOL_A = ("none", "gold", "full-history", "summary", "key-value")


class UnknownCondition(ValueError):
    pass


def make_condition(
    config: VehicleRunConfig, model: Model, data_dir: Path, build_root: Path
) -> MemoryCondition:
    name = config.memory
    history = partial(load_history, data_dir)
    if name == "none":
        return NoMemory()
    if name == "gold":
        return GoldMemory()
    if name == "full-history":
        return FullHistory(history, config.context_tokens)
    if name == "summary":
        cache = BuildCache(build_root, name, config.model.model, SUMMARY_PROMPT_VERSION)
        return RecursiveSummary(model, history, cache)
    if name == "key-value":
        cache = BuildCache(build_root, name, config.model.model, KV_PROMPT_VERSION)
        return KeyValueCondition(model, history, cache)
    raise UnknownCondition(f"unknown memory condition {name!r}; choose one of {', '.join(PROTOCOL_A)}")
