"""The form of one injected record: which of its lines are instructions, noise, symptoms or changes,
and which form-degradation subtype (if any) the thresholds give (docs/attribution.md, rules 3a-3d).

Rule 3e (over-generalised) also needs the target's anchors: ``rules.form_subtype`` adds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from execmem.core.tokens import estimate_tokens
from execmem.suites.coding.attribution import lexicons as lx

_CLASSES = ("flagged", "noise", "symptoms", "changes")
MAX_SHOWN = 10
"""Lines of each class kept in the evidence."""


@dataclass(frozen=True)
class FormThresholds:
    """The form rules' thresholds (recorded with every attribution)."""

    pollution_lines: int = 2
    pollution_share: float = 0.05
    noise_lines: int = 3
    noise_share: float = 0.20

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class RecordForm:
    """A record's lines by class (0-based line numbers into ``text.splitlines()``)."""

    text: str
    nonblank: int
    flagged: tuple[int, ...] = ()
    noise: tuple[int, ...] = ()
    symptoms: tuple[int, ...] = ()
    changes: tuple[int, ...] = ()
    thresholds: FormThresholds = field(default_factory=FormThresholds)

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def share(self, indices: tuple[int, ...]) -> float:
        return len(indices) / self.nonblank if self.nonblank else 0.0

    @property
    def polluted(self) -> bool:
        t = self.thresholds
        return len(self.flagged) >= t.pollution_lines and self.share(self.flagged) >= t.pollution_share

    @property
    def noisy(self) -> bool:
        t = self.thresholds
        return len(self.noise) >= t.noise_lines and self.share(self.noise) >= t.noise_share

    def subtype(self) -> str | None:
        """Rules 3a-3d: the first form subtype that holds without anchors, else None."""
        if self.polluted:
            return "instruction_pollution"
        if self.noisy:
            return "tool_shell_noise"
        if not self.changes:
            return "fix_replaced_by_symptom" if self.symptoms else "fix_missing"
        return None

    def to_dict(self) -> dict[str, Any]:
        lines = self.lines
        shown = {
            name: [{"line": i + 1, "text": lines[i][:200]} for i in indices[:MAX_SHOWN]]
            for name, indices in (("flagged", self.flagged), ("noise", self.noise),
                                  ("symptoms", self.symptoms), ("changes", self.changes))
        }  # fmt: skip
        return {
            "lines": len(lines),
            "nonblank_lines": self.nonblank,
            "tokens": estimate_tokens(self.text),
            "counts": {name: len(getattr(self, name)) for name in _CLASSES},
            "flagged_share": round(self.share(self.flagged), 4),
            "noise_share": round(self.share(self.noise), 4),
            **shown,
        }


def record_form(text: str, thresholds: FormThresholds | None = None) -> RecordForm:
    """Classify every non-blank line of ``text``."""
    lines = text.splitlines()
    flagged = [i for i, line in enumerate(lines) if lx.INSTRUCTION.search(line)]
    noise = noise_lines(lines)
    symptoms = [i for i, line in enumerate(lines) if line.strip() and lx.SYMPTOM.search(line)]
    changes = [i for i in change_lines(lines) if i not in set(flagged)]
    return RecordForm(
        text,
        sum(bool(line.strip()) for line in lines),
        tuple(flagged),
        tuple(noise),
        tuple(symptoms),
        tuple(changes),
        thresholds or FormThresholds(),
    )


def noise_lines(lines: list[str]) -> list[int]:
    """Prompts, trajectory markers, test and grep output, and the two-space indented output block
    after an exit marker (up to the next prompt or marker)."""
    found, in_output = [], False
    for i, line in enumerate(lines):
        if lx.PROMPT.search(line) or lx.MARKER.search(line):
            found.append(i)
            in_output = bool(lx.EXIT_MARKER.search(line))
        elif in_output and line.startswith("  ") and line.strip():
            found.append(i)
        elif line.strip() and lx.TEST_OUTPUT.search(line):
            found.append(i)
            in_output = False
        else:
            in_output = in_output and not line.strip()
    return found


def change_lines(lines: list[str]) -> list[int]:
    """Diff lines (after a ``diff --git`` or hunk header) and lines with a repair verb."""
    found, in_diff = [], False
    for i, line in enumerate(lines):
        in_diff = in_diff or bool(lx.DIFF_HEADER.search(line))
        diff_line = in_diff and bool(lx.DIFF_LINE.search(line)) and bool(line[1:].strip())
        if lx.DIFF_HEADER.search(line) or diff_line or lx.REPAIR.search(line):
            found.append(i)
    return found
