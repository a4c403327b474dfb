"""Finding memory systems by name, through the ``execmem.memory`` entry-point group.

Each entry point names a factory: a class or function that takes keyword config and returns a
``MemorySystem``. Built-ins register in execmem's own ``pyproject.toml`` exactly like outside
packages do. A system that needs optional dependencies says so with the entry point's extras
marker, e.g. ``dense = "execmem.memory.dense:DenseMemory [dense]"``: if loading or building it
fails on an import, the error says ``pip install "execmem[dense]"``.

A harness offers a system settings of its own (the run's state file, how history is windowed)
only when the factory declares it takes them: ``accepts = frozenset({"path", "windowing"})`` on
the class or function. A factory that declares nothing is given only the options the user passed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from execmem.core.protocols import MemorySystem

GROUP = "execmem.memory"


class MemoryRegistryError(LookupError):
    """The registry cannot answer: a name is unknown, or registered twice."""


class UnknownMemoryError(MemoryRegistryError):
    """No memory system is registered under that name; the message lists the valid ones."""


class MemorySetupError(ValueError):
    """A memory system that cannot be built with the settings given."""


class MissingExtraError(ImportError):
    """Optional dependencies are not installed; the message says which extra to install."""

    def __init__(self, needed_by: str, package: str, extra: str, cause: BaseException | None = None):
        self.needed_by, self.package, self.extra = needed_by, package, extra
        because = f" ({cause})" if cause else ""
        super().__init__(
            f"{needed_by} needs optional dependencies that are not installed{because}: "
            f'pip install "{package}[{extra}]"'
        )


def _discover() -> dict[str, EntryPoint]:
    """Name -> entry point; two different registrations of one name are an error, not a coin toss."""
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=GROUP):
        other = found.get(point.name)
        if other is not None and other.value != point.value:
            raise MemoryRegistryError(
                f"memory system {point.name!r} is registered twice: {other.value!r} and {point.value!r}"
            )
        found[point.name] = point
    return found


def available_memories() -> list[str]:
    """The names ``create_memory`` accepts, sorted."""
    return sorted(_discover())


def memory_factory(name: str) -> Callable[..., Any]:
    """The factory registered as ``name``, imported; UnknownMemoryError (listing the valid names) or
    MissingExtraError (naming the extra) when it cannot be had. Creates nothing, so commands call
    it to check a name before they make any folder."""
    points = _discover()
    point = points.get(name)
    if point is None:
        valid = ", ".join(sorted(points)) or "none installed"
        raise UnknownMemoryError(f"unknown memory system {name!r}; available: {valid}")
    with _extra_hint(name, point):
        return point.load()


def accepted_settings(factory: Callable[..., Any]) -> frozenset[str]:
    """The harness settings a factory declares it takes (its ``accepts``); empty when it declares none."""
    return frozenset(getattr(factory, "accepts", ()))


def create_memory(name: str, **config: Any) -> MemorySystem:
    """Build the memory system registered as ``name`` with ``config`` (keyword arguments)."""
    factory = memory_factory(name)
    with _extra_hint(name, _discover()[name]):
        memory = factory(**config)
    if not isinstance(memory, MemorySystem):
        raise TypeError(f"memory system {name!r} did not return a MemorySystem: {memory!r}")
    return memory


def open_memory(name: str, offered: Mapping[str, Any], options: Mapping[str, Any]) -> MemorySystem:
    """The system ``name`` built as a harness builds it: each ``offered`` setting (the run's state file,
    how history is windowed, ...) the factory declares it takes, then the user's ``options`` on top.
    Unknown names and missing extras raise the registry's own errors; a system that refuses its
    options raises MemorySetupError naming them."""
    taken = accepted_settings(memory_factory(name))
    config = {key: value for key, value in offered.items() if key in taken} | dict(options)
    try:
        return create_memory(name, **config)
    except TypeError as exc:
        raise MemorySetupError(f"memory system {name!r} rejects the options {sorted(config)}: {exc}") from exc
    except ValueError as exc:
        raise MemorySetupError(f"memory system {name!r}: {exc}") from exc
    except (sqlite3.Error, OSError) as exc:  # e.g. --memory-option path= a file that cannot be made
        where = config.get("path", "its storage")
        raise MemorySetupError(f"memory system {name!r}: cannot open {where} ({exc})") from exc


@contextmanager
def _extra_hint(name: str, point: EntryPoint) -> Iterator[None]:
    """An ImportError of a system with an extras marker becomes a MissingExtraError naming it."""
    try:
        yield
    except MissingExtraError:
        raise
    except ImportError as exc:
        if not point.extras:
            raise
        raise MissingExtraError(
            f"memory system {name!r}", _package(point), ",".join(point.extras), exc
        ) from exc


def _package(point: EntryPoint) -> str:
    """The distribution that registered the entry point (its top-level module when unknown)."""
    dist = getattr(point, "dist", None)
    return dist.name if dist is not None else point.module.split(".")[0]
