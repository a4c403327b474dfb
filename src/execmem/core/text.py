"""Text made safe for file and folder names: the one slug function."""

from __future__ import annotations

import re


def slug(text: str, limit: int | None = None, keep: str = "") -> str:
    """``text`` with every run of characters other than ASCII letters, digits, ``.``, ``_``, ``-``
    (and those in ``keep``) replaced by one ``_``, cut to ``limit`` characters when given."""
    allowed = re.escape("._-" + keep)
    cleaned = re.sub(rf"[^A-Za-z0-9{allowed}]+", "_", text)
    return cleaned if limit is None else cleaned[:limit]
