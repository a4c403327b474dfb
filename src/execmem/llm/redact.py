"""Keep the API key out of everything written to disk, even when an endpoint echoes it back."""

from __future__ import annotations

MASK = "***"


class Redactor:
    """Replaces every occurrence of ``secret`` (when there is one) with ``***``."""

    def __init__(self, secret: str | None) -> None:
        self.secret = secret or None

    def __call__(self, text: str) -> str:
        if self.secret is None or self.secret not in text:
            return text
        return text.replace(self.secret, MASK)
