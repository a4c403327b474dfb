"""The history a Layer B run ingests: one SIEVE output folder's history stage, read once."""

from __future__ import annotations

import hashlib
from pathlib import Path

from execmem.runs.coding.sieve.history_items import ITEMS, POOLS, history_folder, load_history
from execmem.suites.coding.history import HistoryItem


class SieveHistory:
    """The eligible history items of each target; HistoryArtifactError when the folder has none."""

    def __init__(self, sieve_dir: Path) -> None:
        self.folder = history_folder(sieve_dir)
        self.items, self.pools = load_history(self.folder)

    def eligible(self, target: str) -> list[HistoryItem]:
        """The target's eligible items, oldest first (none when it never reached stage 3)."""
        ids = self.pools.get(target, {}).get("eligible", [])
        return sorted((self.items[i] for i in ids), key=lambda item: (item.created_at, item.instance_id))

    def identity(self) -> dict[str, str]:
        """What the run depends on: the stage's key and the sha256 of its items and pools (so a copy of
        the SIEVE folder elsewhere is the same history)."""
        digest = hashlib.sha256()
        for name in (ITEMS, POOLS):
            digest.update((self.folder / name).read_bytes())
        return {"sieve_dir_sha": digest.hexdigest(), "history_stage_key": self.folder.name}
