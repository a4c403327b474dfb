"""Errors of the model layer."""

from __future__ import annotations


class InfraError(Exception):
    """The endpoint could not give an answer (after retries): not the model's fault.

    Episodes that end with this are recorded with the reason, excluded from
    scores and run again on resume.
    """

    def __init__(self, reason: str, attempts: int = 1) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts
