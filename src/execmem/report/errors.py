"""The report's own error: an input it cannot read, named with its path (and field)."""

from __future__ import annotations


class ReportError(ValueError):
    """An input of ``execmem report`` that cannot be used; the message names the path."""
