"""An experience: what one earlier fix teaches about a target, in four fields, and its record text.

``render`` gives the text injected into the solver's memory slot: four lines, one per field, in a
fixed order (the frozen record). The fields are plain text; concrete claims in them (file paths,
identifiers) must be anchored in the history they came from (``anchoring``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

FIELDS = ("bug_class", "root_cause", "fix_pattern", "reusable_lesson")
LABELS = {
    "bug_class": "Bug class",
    "root_cause": "Root cause",
    "fix_pattern": "Fix pattern",
    "reusable_lesson": "Reusable lesson",
}
MAX_FIELD_CHARS = 600


class Experience(BaseModel):
    """Bug class, root cause, fix pattern and reusable lesson of one history for one target."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bug_class: str = Field(min_length=1, max_length=MAX_FIELD_CHARS)
    root_cause: str = Field(min_length=1, max_length=MAX_FIELD_CHARS)
    fix_pattern: str = Field(min_length=1, max_length=MAX_FIELD_CHARS)
    reusable_lesson: str = Field(min_length=1, max_length=MAX_FIELD_CHARS)

    @field_validator(*FIELDS)
    @classmethod
    def _one_line(cls, value: str) -> str:
        cleaned = " ".join(value.split())
        if not cleaned:
            raise ValueError("must not be blank")
        return cleaned

    def render(self) -> str:
        """The record text: one ``Label: value`` line per field."""
        return "\n".join(f"{LABELS[name]}: {getattr(self, name)}" for name in FIELDS)

    def text(self) -> str:
        """All four fields as one text (for claim extraction and leak checks)."""
        return "\n".join(getattr(self, name) for name in FIELDS)
