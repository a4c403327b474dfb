"""What each path given to ``execmem report`` is: a vehicle run, a coding run, a retrieval audit or a
tables document, told apart by the files they hold."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from execmem.report.errors import ReportError

AUDIT_FILE = "audit.json"


@dataclass
class Inputs:
    """The report's inputs, by kind, in the order given."""

    vehicle: list[Path] = field(default_factory=list)
    coding: list[Path] = field(default_factory=list)
    audits: list[Path] = field(default_factory=list)
    """``audit.json`` files."""
    tables: list[Path] = field(default_factory=list)
    """Tables documents (``{"tables": [...]}``)."""

    def empty(self) -> bool:
        return not (self.vehicle or self.coding or self.audits or self.tables)


def classify(paths: Iterable[Path], audits: Iterable[Path] = (), tables: Iterable[Path] = ()) -> Inputs:
    """Sort the positional paths by what they hold; ``audits`` and ``tables`` are given by option.
    ReportError naming the path when one is none of these."""
    found = Inputs()
    for path in paths:
        _add(found, path)
    found.audits += [audit_file(path) for path in audits]
    for path in tables:
        if not path.is_file():
            raise ReportError(f"--tables {path}: not a file")
        found.tables.append(path)
    if found.empty():
        raise ReportError("nothing to report: give run folders, audits or tables documents")
    return found


def _add(found: Inputs, path: Path) -> None:
    if path.is_dir() and (path / "config.json").is_file():
        found.vehicle.append(path)
    elif path.is_dir() and (path / "manifest.json").is_file():
        found.coding.append(path)
    elif (path.is_dir() and (path / AUDIT_FILE).is_file()) or (path.is_file() and path.name == AUDIT_FILE):
        found.audits.append(audit_file(path))
    elif path.is_file() and path.suffix == ".json":
        found.tables.append(path)
    elif not path.exists():
        raise ReportError(f"{path}: no such file or folder")
    else:
        raise ReportError(
            f"{path}: not a vehicle run (config.json), a coding run (manifest.json), "
            f"an audit ({AUDIT_FILE}) or a tables document (.json)"
        )


def audit_file(path: Path) -> Path:
    """The ``audit.json`` of an audit folder (or the file itself)."""
    candidate = path / AUDIT_FILE if path.is_dir() else path
    if not candidate.is_file():
        raise ReportError(f"--audit {path}: no {AUDIT_FILE} there (run `execmem vehicle audit --out DIR`)")
    return candidate
