"""Finding systems by entry point: built-ins, errors that say what to do, and an outside plugin."""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from execmem.core.protocols import MemorySystem
from execmem.memory import accepted_settings, memory_factory, registry
from execmem.memory.registry import (
    MemoryRegistryError,
    MissingExtraError,
    UnknownMemoryError,
    available_memories,
    create_memory,
)
from tests.memory.conftest import at, msg
from tests.plugin_sites import install_plugin


def with_entry_points(monkeypatch, *extra: EntryPoint) -> None:
    """The installed entry points plus ``extra``, as the registry will see them."""
    real = registry.entry_points

    def fake(group: str):
        return [*real(group=group), *extra]

    monkeypatch.setattr(registry, "entry_points", fake)


def test_built_ins_register_through_entry_points():
    assert {"bm25", "dense", "hybrid"} <= set(available_memories())
    memory = create_memory("bm25", windowing="hour")
    assert isinstance(memory, MemorySystem)
    assert memory.describe()["windowing"] == {"mode": "hour"}


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(UnknownMemoryError, match=r"'bm52'.*available: ") as raised:
        create_memory("bm52")
    listed = str(raised.value).split("available: ")[1].split(", ")
    assert listed == sorted(listed) and {"bm25", "dense", "hybrid"} <= set(listed)


def test_a_failing_import_names_the_extra_to_install(monkeypatch):
    broken = EntryPoint("fancy", "fancy_backend_not_installed.memory:FancyMemory [fancy]", registry.GROUP)
    with_entry_points(monkeypatch, broken)
    with pytest.raises(
        MissingExtraError, match=r'pip install "fancy_backend_not_installed\[fancy\]"'
    ) as caught:
        create_memory("fancy")
    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


def test_dense_without_its_dependencies_says_pip_install_execmem_dense(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingExtraError, match=r'pip install "execmem\[dense\]"'):
        create_memory("dense")


def test_an_import_error_without_a_declared_extra_is_not_disguised(monkeypatch):
    with_entry_points(monkeypatch, EntryPoint("plain", "plain_backend_not_installed:Memory", registry.GROUP))
    with pytest.raises(ModuleNotFoundError) as caught:
        create_memory("plain")
    assert not isinstance(caught.value, MissingExtraError)


def test_a_name_registered_twice_is_an_error(monkeypatch):
    with_entry_points(monkeypatch, EntryPoint("bm25", "somewhere_else:Bm25", registry.GROUP))
    with pytest.raises(MemoryRegistryError, match="registered twice"):
        available_memories()


def test_a_factory_must_return_a_memory_system(monkeypatch):
    with_entry_points(monkeypatch, EntryPoint("notmemory", "builtins:dict", registry.GROUP))
    with pytest.raises(TypeError, match="did not return a MemorySystem"):
        create_memory("notmemory")


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory) -> Path:
    """The test plugin, pip-installed (no deps, no build isolation) into a fresh site directory."""
    return install_plugin("execmem_testplugin", tmp_path_factory.mktemp("plugin"))


@pytest.fixture
def plugin(plugin_site, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(plugin_site))


def test_an_outside_package_adds_a_system_without_touching_execmem(plugin):
    assert "recent" in available_memories()
    memory = create_memory("recent", label="from-config")
    assert isinstance(memory, MemorySystem)
    assert memory.describe() == {"system": "recent", "label": "from-config"}
    memory.add([msg("2025-03-03 08:30", "Ambient light green.", 1)], "gary", at("2025-03-03 09:00"))
    assert [item.line_ids for item in memory.search("green light", "gary", 3)] == [(1,)]
    assert memory.search("green light", "patricia", 3) == []


def test_the_plugin_is_found_only_where_it_is_installed():
    assert "recent" not in available_memories()
    with pytest.raises(UnknownMemoryError, match="available"):
        create_memory("recent")


def test_systems_declare_the_harness_settings_they_take(plugin):
    from execmem.memory.adapters.amem import AMemMemory
    from execmem.memory.adapters.langmem import LangMemMemory
    from execmem.memory.adapters.lightmem import LightMemMemory
    from execmem.memory.adapters.mem0 import Mem0Memory
    from execmem.memory.adapters.memoryos import MemoryOSMemory
    from execmem.memory.adapters.memos import MemosMemory
    from execmem.memory.adapters.simplemem import SimpleMemMemory

    for name in ("bm25", "dense", "hybrid"):
        assert accepted_settings(memory_factory(name)) == {"path", "windowing"}
    for factory in (Mem0Memory, AMemMemory, SimpleMemMemory, MemoryOSMemory, LightMemMemory):
        assert accepted_settings(factory) == {"path"}
    for factory in (LangMemMemory, MemosMemory):
        assert accepted_settings(factory) == frozenset()
    assert accepted_settings(memory_factory("recent")) == frozenset()  # a plugin that declares nothing
