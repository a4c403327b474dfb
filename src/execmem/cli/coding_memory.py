"""``execmem coding run --memory``: a memory condition, or a registered memory system (Layer B) with
the options only a system takes (``--history``, ``--top-k``, ``--query``, ``--truncate-chars``,
``--memory-option``)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from execmem.cli.memory_options import parse_memory_options
from execmem.memory import available_memories, memory_factory
from execmem.runs.coding.layer_b.config import MAX_TOP_K, SystemMemoryConfig
from execmem.runs.coding.sieve.history_items import SIEVE_DOCUMENT
from execmem.suites.coding.conditions import CONDITIONS


class Query(StrEnum):
    problem = "problem"
    title = "title"


MemoryOption = Annotated[
    str,
    typer.Option(
        help="off, record (earlier same-repo fixes), frozen (--frozen FILE's experiences), irrelevant "
        "(everyday text), other-repo (another repository's records), given (--given FILE's texts), or a "
        "registered memory system (bm25, dense, fusion, mem0, ...: Layer B, with --history)."
    ),
]
HistoryOption = Annotated[
    Path | None,
    typer.Option(
        help="Memory systems: the SIEVE output folder whose eligible history each target's space "
        "ingests (run SIEVE with --history-scope pool for the whole pool)."
    ),
]
TopKOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=MAX_TOP_K,
        help="Memory systems: records injected, in rank order (default 1; 1-5: the dose curve).",
    ),
]
QueryOption = Annotated[
    Query | None,
    typer.Option(
        help="Memory systems: problem (the target's problem statement, default) or title (its first line)."
    ),
]
TruncateOption = Annotated[
    int | None,
    typer.Option(min=1, help="Memory systems: cut the joined records to N characters (default: whole)."),
]


def memory_choice(
    memory: str,
    history: Path | None,
    top_k: int | None,
    query: Query | None,
    truncate: int | None,
    pairs: list[str] | None,
) -> tuple[str, SystemMemoryConfig | None]:
    """The run's memory condition and, for a memory system, its settings; a bad combination is a
    usage error naming the option."""
    system_only = {"--history": history, "--top-k": top_k, "--query": query, "--truncate-chars": truncate,
                   "--memory-option": pairs or None}  # fmt: skip
    if memory in CONDITIONS:
        given = [option for option, value in system_only.items() if value is not None]
        if given:
            raise typer.BadParameter(f"applies to memory systems, not {memory!r}", param_hint=f"'{given[0]}'")
        return memory, None
    _check_system(memory)
    if history is None:
        raise typer.BadParameter(f"--memory {memory} needs the SIEVE output folder", param_hint="'--history'")
    if not (history / SIEVE_DOCUMENT).is_file():
        raise typer.BadParameter(
            f"{history} is not a SIEVE output folder (no {SIEVE_DOCUMENT})", param_hint="'--history'"
        )
    config = SystemMemoryConfig(
        name=memory, options=parse_memory_options(pairs), history_dir=history.expanduser().resolve(),
        top_k=top_k or 1, query=(query or Query.problem).value, truncate_chars=truncate,
    )  # fmt: skip
    return "system", config


def _check_system(name: str) -> None:
    """A usage error naming the choices for a name that is neither a condition nor a registered system;
    the registry's MissingExtraError (an ``error:`` line) when the system's extra is missing."""
    systems = available_memories()
    if name not in systems:
        raise typer.BadParameter(
            f"{name!r} is neither a memory condition ({', '.join(CONDITIONS)}) nor a registered memory "
            f"system ({', '.join(systems) or 'none installed'})",
            param_hint="'--memory'",
        )
    memory_factory(name)
