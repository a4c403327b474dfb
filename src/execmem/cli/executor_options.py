"""``--executor`` and ``--ray-address``: where a run's episodes run (docs/ray.md)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from execmem.runs.executors.base import Executor


class ExecutorName(StrEnum):
    local = "local"
    ray = "ray"


ExecutorOption = Annotated[
    ExecutorName,
    typer.Option(help="local: this process; ray: a Ray cluster (the ray extra; docs/ray.md)."),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(help="With --executor ray: the cluster, as ray.init takes it (auto, HOST:6379)."),
]


def chosen_executor(name: ExecutorName, address: str | None) -> Executor:
    """The executor asked for, checked before anything is created (a missing extra, an address
    without --executor ray: one error line, exit 2)."""
    from execmem.runs.executors.choice import make_executor

    if address and name is not ExecutorName.ray:
        raise typer.BadParameter("applies to --executor ray only", param_hint="'--ray-address'")
    return make_executor(name.value, address)
