"""Build the memory condition a vehicle run asks for: a protocol A condition, or (protocol B) any
registered memory system, whose state lives in ``<run folder>/memory-system/memory.sqlite``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from execmem.agents.vehicle.conditions.base import MemoryCondition
from execmem.agents.vehicle.conditions.build_cache import BuildCache
from execmem.agents.vehicle.conditions.key_value import KeyValueCondition
from execmem.agents.vehicle.conditions.key_value_release import ReleaseKeyValueCondition
from execmem.agents.vehicle.conditions.memory_system import STORE_FILE, MemorySystemCondition, open_system
from execmem.agents.vehicle.conditions.prompt import FullHistory, GoldMemory, NoMemory
from execmem.agents.vehicle.conditions.summary import RecursiveSummary
from execmem.agents.vehicle.conditions.summary_release import ReleaseSummary
from execmem.agents.vehicle.prompts import KV_PROMPT_VERSION, SUMMARY_PROMPT_VERSION
from execmem.agents.vehicle.release_prompts import KV_RELEASE_VERSION, SUMMARY_RELEASE_VERSION
from execmem.core.protocols import MemorySystem, Model
from execmem.llm.token_counter import TokenizerError, make_counter
from execmem.memory import MemorySetupError, MissingExtraError, available_memories, memory_factory
from execmem.runs.vehicle.config import VehicleRunConfig
from execmem.suites.vehicle.dataset import HistoryLine

History = Callable[[int], list[HistoryLine]]
PROTOCOL_A = ("none", "gold", "full-history", "summary", "key-value")


class ConditionError(ValueError):
    """The memory condition cannot be set up; the message says why."""


class UnknownCondition(ConditionError):
    pass


def make_condition(
    config: VehicleRunConfig,
    model: Model,
    history: History,
    build_root: Path,
    run_folder: Path,
    space: str | None = None,
) -> MemoryCondition:
    """The condition ``config.memory``, reading each scenario's dialogue from ``history``; built
    memories are cached under ``build_root``, a memory system's state is kept in ``run_folder``
    (its user spaces named after ``space``, by default the run folder's name)."""
    name = config.memory
    if name == "none":
        return NoMemory()
    if name == "gold":
        return GoldMemory()
    if name == "full-history":
        try:
            counter = make_counter(config.tokenizer, config.model.model)
        except TokenizerError as exc:
            raise ConditionError(str(exc)) from exc
        return FullHistory(history, config.context_tokens, counter.count, counter.describe())
    if name in BUILT:
        return built_condition(config, model, history, build_root)
    check_condition(name)
    return system_condition(config, history, run_folder, space or run_folder.resolve().name)


BUILT = ("summary", "key-value")
"""The memories a model builds, in two styles (``memory_style``)."""


def built_condition(config: VehicleRunConfig, model: Model, history, build_root: Path) -> MemoryCondition:
    """summary or key-value, in execmem's style or the release's, with a build cache per prompt."""
    name, release = config.memory, config.memory_style == "release"
    if name == "summary":
        version = SUMMARY_RELEASE_VERSION if release else SUMMARY_PROMPT_VERSION
        cache = BuildCache(build_root, name, config.model.model, version)
        return (ReleaseSummary if release else RecursiveSummary)(model, history, cache)
    if not release:
        return KeyValueCondition(
            model, history, BuildCache(build_root, name, config.model.model, KV_PROMPT_VERSION)
        )
    version = f"{KV_RELEASE_VERSION}-rounds{config.max_steps}"
    cache = BuildCache(build_root, name, config.model.model, version)
    return ReleaseKeyValueCondition(model, history, cache, config.max_steps)


def check_condition(name: str) -> None:
    """UnknownCondition for a name that is neither a protocol A condition nor a registered memory
    system, ConditionError when the system's extra is not installed; creates nothing."""
    if name in PROTOCOL_A:
        return
    systems = available_memories()
    if name not in systems:
        raise UnknownCondition(
            f"unknown memory condition {name!r}; choose one of {', '.join(PROTOCOL_A)} (protocol A) "
            f"or a registered memory system: {', '.join(systems) or 'none installed'}"
        )
    try:
        memory_factory(name)
    except MissingExtraError as exc:
        raise ConditionError(str(exc)) from exc


def system_condition(
    config: VehicleRunConfig, history: History, run_folder: Path, space: str
) -> MemorySystemCondition:
    """Protocol B: the registered system ``config.memory``, with one user space per scenario."""
    state_dir = run_folder.resolve() / "memory-system"
    state_dir.mkdir(parents=True, exist_ok=True)
    open_store = store_opener(config)
    memory = open_store(state_dir / STORE_FILE)
    return MemorySystemCondition(config.memory, memory, history, state_dir, space, config.top_k, open_store)


def store_opener(config: VehicleRunConfig) -> Callable[[Path], MemorySystem]:
    """Opens the run's memory system over a store file (ConditionError when it cannot be built)."""

    def open_store(path: Path) -> MemorySystem:
        try:
            return open_system(config.memory, str(path), config.memory_options)
        except (MissingExtraError, MemorySetupError) as exc:
            raise ConditionError(str(exc)) from exc

    return open_store
