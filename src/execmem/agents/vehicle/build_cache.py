"""Built scenario memories on disk, keyed by (condition, model, prompt version, scenario)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from itertools import groupby
from pathlib import Path
from typing import Any

from execmem.suites.vehicle.dataset import HistoryLine


def by_day(lines: list[HistoryLine]) -> list[tuple[str, list[HistoryLine]]]:
    """History grouped by calendar day, oldest first."""
    return [
        (day, list(group)) for day, group in groupby(lines, key=lambda line: f"{line.timestamp:%Y-%m-%d}")
    ]


class BuildCache:
    def __init__(self, root: Path, condition: str, model: str, prompt_version: str) -> None:
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", model)[:60]
        digest = hashlib.sha256(model.encode()).hexdigest()[:8]
        self.folder = root / condition / f"{slug}-{digest}" / prompt_version

    def path(self, scenario: int) -> Path:
        return self.folder / f"scenario-{scenario}.json"

    def load(self, scenario: int) -> dict[str, Any] | None:
        path = self.path(scenario)
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    def save(self, scenario: int, record: dict[str, Any]) -> None:
        path = self.path(scenario)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
