"""Content-addressed stage folders: a stage's key is the sha256 of everything it depends on.

``stages/<n-name>/<key12>/stage.json`` holds the stage's provenance: its name and version, the key
and the full inputs it was computed from, execmem's version, when it started and finished. A stage
whose ``stage.json`` has ``finished_at`` is done and is read back instead of recomputed; inputs that
change give another key, hence another folder, so nothing finished is ever overwritten.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execmem import __version__
from execmem.core.clock import now_iso
from execmem.core.files import DamagedFileError, read_json_document, write_json_atomic
from execmem.core.hashing import text_sha256

STAGE_FILE = "stage.json"


def content_key(inputs: Any) -> str:
    """sha256 of the inputs' canonical JSON (sorted keys)."""
    return text_sha256(json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str))


@dataclass(frozen=True)
class Stage:
    """One stage's folder for one set of inputs."""

    name: str
    version: str
    inputs: dict[str, Any]
    root: Path

    @property
    def key(self) -> str:
        return content_key({"stage": self.name, "version": self.version, "inputs": self.inputs})

    @property
    def folder(self) -> Path:
        return self.root / "stages" / self.name / self.key[:12]

    def finished(self) -> bool:
        try:
            return bool(read_json_document(self.folder / STAGE_FILE).get("finished_at"))
        except (DamagedFileError, FileNotFoundError, AttributeError):
            return False

    def start(self) -> None:
        """Create the folder and record the provenance (a resumed stage keeps its start time)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / STAGE_FILE
        started = None
        if path.is_file():
            try:
                started = read_json_document(path).get("started_at")
            except (DamagedFileError, AttributeError):
                started = None
        write_json_atomic(path, self._document(started or now_iso(), None))

    def finish(self, summary: dict[str, Any]) -> None:
        document = self._document(read_json_document(self.folder / STAGE_FILE)["started_at"], now_iso())
        write_json_atomic(self.folder / STAGE_FILE, {**document, "summary": summary})

    def _document(self, started: str, finished: str | None) -> dict[str, Any]:
        return {
            "stage": self.name,
            "version": self.version,
            "key": self.key,
            "inputs": self.inputs,
            "execmem": __version__,
            "started_at": started,
            "finished_at": finished,
        }

    def path(self, name: str) -> Path:
        return self.folder / name
