"""Finding memory systems by name, through the ``execmem.memory`` entry-point group.

Each entry point names a factory: a class or function that takes keyword config and returns a
``MemorySystem``. Built-ins register in execmem's own ``pyproject.toml`` exactly like outside
packages do. A system that needs optional dependencies says so with the entry point's extras
marker, e.g. ``dense = "execmem.memory.dense:DenseMemory [dense]"``: if loading or building it
fails on an import, the error says ``pip install "execmem[dense]"``.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from typing import Any

from execmem.core.protocols import MemorySystem

GROUP = "execmem.memory"


class MemoryRegistryError(LookupError):
    """The registry cannot answer: a name is unknown, or registered twice."""


class UnknownMemoryError(MemoryRegistryError):
    """No memory system is registered under that name; the message lists the valid ones."""


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


def create_memory(name: str, **config: Any) -> MemorySystem:
    """Build the memory system registered as ``name`` with ``config`` (keyword arguments)."""
    points = _discover()
    point = points.get(name)
    if point is None:
        valid = ", ".join(sorted(points)) or "none installed"
        raise UnknownMemoryError(f"unknown memory system {name!r}; available: {valid}")
    try:
        memory = point.load()(**config)
    except MissingExtraError:
        raise
    except ImportError as exc:
        if not point.extras:
            raise
        raise MissingExtraError(
            f"memory system {name!r}", _package(point), ",".join(point.extras), exc
        ) from exc
    if not isinstance(memory, MemorySystem):
        raise TypeError(f"memory system {name!r} ({point.value}) did not return a MemorySystem: {memory!r}")
    return memory


def _package(point: EntryPoint) -> str:
    """The distribution that registered the entry point (its top-level module when unknown)."""
    dist = getattr(point, "dist", None)
    return dist.name if dist is not None else point.module.split(".")[0]
