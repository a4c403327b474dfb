"""Built scenario memories on disk, keyed by (condition, model, prompt version, scenario)."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path
from typing import Any

from execmem.core.files import read_json_document, write_json_atomic
from execmem.core.hashing import text_sha256
from execmem.core.text import slug
from execmem.suites.vehicle.dataset import HistoryLine


def by_day(lines: list[HistoryLine]) -> list[tuple[str, list[HistoryLine]]]:
    """History grouped by calendar day, oldest first."""
    return [
        (day, list(group)) for day, group in groupby(lines, key=lambda line: f"{line.timestamp:%Y-%m-%d}")
    ]


class BuildCache:
    def __init__(self, root: Path, condition: str, model: str, prompt_version: str) -> None:
        self.folder = root / condition / f"{slug(model, limit=60)}-{text_sha256(model)[:8]}" / prompt_version

    def path(self, scenario: int) -> Path:
        return self.folder / f"scenario-{scenario}.json"

    def load(self, scenario: int) -> dict[str, Any] | None:
        path = self.path(scenario)
        return read_json_document(path) if path.exists() else None

    def save(self, scenario: int, record: dict[str, Any]) -> None:
        path = self.path(scenario)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, record)
