"""Retrieval audits (``audit.json`` of ``execmem vehicle audit``) as recall@K curves per system."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execmem.core.files import DamagedFileError, read_json_document
from execmem.report.errors import ReportError


@dataclass(frozen=True)
class Audit:
    system: str
    path: Path
    ks: list[int]
    overall: dict[str, Any]
    questions: int


def load_audit(path: Path) -> Audit:
    """An audit.json; ReportError naming the file and what is missing."""
    try:
        document = read_json_document(path)
    except DamagedFileError as exc:
        raise ReportError(str(exc)) from None
    config = document.get("config") if isinstance(document, dict) else None
    overall = document.get("overall") if isinstance(document, dict) else None
    if (
        not isinstance(config, dict)
        or not isinstance(overall, dict)
        or not isinstance(config.get("top_k"), list)
    ):
        raise ReportError(
            f"{path}: not an audit.json of `execmem vehicle audit` (no config.top_k or overall)"
        )
    windowing = config.get("windowing")
    system = f"{config.get('memory', '?')} ({windowing})" if windowing else str(config.get("memory", "?"))
    return Audit(system, path, [int(k) for k in config["top_k"]], overall, int(config.get("questions") or 0))


def named(audits: list[Audit]) -> list[Audit]:
    """Systems audited twice (other settings) get their folder's name after them."""
    systems = [a.system for a in audits]
    return [
        Audit(f"{a.system} · {a.path.parent.name}", a.path, a.ks, a.overall, a.questions)
        if systems.count(a.system) > 1
        else a
        for a in audits
    ]


def curve_rows(audits: list[Audit]) -> list[dict[str, Any]]:
    """Evidence recall@K of each system, for its question queries and its oracle queries."""
    rows = []
    for audit in audits:
        oracle = audit.overall.get("oracle") or {}
        for k in audit.ks:
            for query, block in (("question", audit.overall), ("oracle", oracle)):
                value = block.get(f"evidence_recall@{k}")
                if isinstance(value, int | float):
                    rows.append({"system": audit.system, "k": k, "recall": value, "query": query})
    return rows


def table_rows(audits: list[Audit]) -> list[dict[str, Any]]:
    """Per system and K: evidence recall (oracle), value coverage and MemToken, as audit.json has them."""
    return [
        {
            "system": a.system,
            "k": k,
            "recall": a.overall.get(f"evidence_recall@{k}"),
            "oracle": (a.overall.get("oracle") or {}).get(f"evidence_recall@{k}"),
            "coverage": a.overall.get(f"value_coverage@{k}"),
            "memtoken": a.overall.get(f"memtoken@{k}"),
        }
        for a in audits
        for k in a.ks
    ]
