"""Long-term memory systems, found by name through the ``execmem.memory`` entry-point group.

Imports only ``execmem.core`` (and third-party libraries): a memory knows no benchmark suite.
"""

from execmem.memory.registry import (
    MemoryRegistryError,
    MemorySetupError,
    MissingExtraError,
    UnknownMemoryError,
    accepted_settings,
    available_memories,
    create_memory,
    memory_factory,
    open_memory,
)

__all__ = [
    "MemoryRegistryError",
    "MemorySetupError",
    "MissingExtraError",
    "UnknownMemoryError",
    "accepted_settings",
    "available_memories",
    "create_memory",
    "memory_factory",
    "open_memory",
]
