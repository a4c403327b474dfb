"""The anchoring check: every file path and identifier an experience names must occur in its history.

A *claim* is a concrete name in an experience's fields:

* a file path: a token with a ``/`` between name characters, or ending in a source-file suffix
  (``.py``, ``.pyi``, ``.cfg``, ``.toml``, ``.ini``, ``.txt``, ``.rst``, ``.md``, ``.json``,
  ``.yaml``, ``.yml``, ``.c``, ``.h``);
* an identifier: a backquoted span (```...```), a dotted name (``a.b``), a name followed by ``(``,
  or a name with an underscore or an inner capital (``snake_case``, ``camelCase``, ``CamelCase``).

Plain words are not claims. A claim is anchored when it occurs verbatim (whitespace runs collapsed)
in the history's compressed trajectory or its final patch; the rest are flagged as unanchored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from execmem.suites.coding.experience import Experience

_SUFFIXES = "py|pyi|cfg|toml|ini|txt|rst|md|json|yaml|yml|c|h"
_PATH = re.compile(rf"(?<![\w/.-])(?:[\w.-]+/)+[\w.-]*\w|(?<![\w/.-])[\w-]+(?:\.[\w-]+)*\.(?:{_SUFFIXES})\b")
_BACKQUOTED = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\(")
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")


def _is_code_name(name: str) -> bool:
    inner_capital = any(c.isupper() for c in name[1:]) and any(c.islower() for c in name)
    return "_" in name.strip("_") or name.startswith("_") or inner_capital


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` with the pattern's matches replaced by spaces (positions kept)."""
    return pattern.sub(lambda m: " " * len(m.group()), text)


def claims(text: str) -> list[str]:
    """The concrete names ``text`` states, in order of first appearance, each once."""
    found = [(m.start(), m.group(1).strip()) for m in _BACKQUOTED.finditer(text)]
    rest = _blank(text, _BACKQUOTED)
    found += [(m.start(), m.group()) for m in _PATH.finditer(rest)]
    rest = _blank(rest, _PATH)
    found += [(m.start(), m.group()) for m in _DOTTED.finditer(rest)]
    rest = _blank(rest, _DOTTED)
    found += [(m.start(), m.group(1)) for m in _CALL.finditer(rest)]
    found += [(m.start(), m.group()) for m in _NAME.finditer(rest) if _is_code_name(m.group())]
    return list(dict.fromkeys(claim for _, claim in sorted(found, key=lambda pair: pair[0]) if claim))


def _squeeze(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Anchoring:
    """The claims of an experience and those its history does not contain."""

    claims: list[str] = field(default_factory=list)
    unanchored: list[str] = field(default_factory=list)

    @property
    def anchored(self) -> bool:
        return not self.unanchored

    def to_dict(self) -> dict[str, Any]:
        return {"claims": self.claims, "unanchored": self.unanchored, "anchored": self.anchored}


def check_anchoring(experience: Experience, evidence: str) -> Anchoring:
    """Which of the experience's claims occur in ``evidence`` (trajectory + patch)."""
    haystack = _squeeze(evidence)
    stated = claims(experience.text())
    return Anchoring(stated, [claim for claim in stated if _squeeze(claim) not in haystack])
