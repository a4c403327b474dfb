"""Errors of the model layer, by whose problem they are.

* :class:`InfraError`: the endpoint could not answer one request (after retries). The harness's
  problem: the episode is recorded with the reason, left out of the scores and run again on resume.
* :class:`ContextOverflow`: the endpoint refused the prompt as longer than the model's context
  window. The model's limit, not an outage: the episode ends there and is scored.
* :class:`EndpointError`: the endpoint cannot serve the run at all (refused key, unknown model,
  nothing listening). The run stops at once with a one-line message.
"""

from __future__ import annotations


class InfraError(Exception):
    """The endpoint could not give an answer (after retries): not the model's fault."""

    def __init__(self, reason: str, attempts: int = 1) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts


class ServerDefect(InfraError):
    """The server answered the same request with the same 500 again: a defect of the server (for
    example a request it cannot validate), which retrying for minutes would not fix."""


class ContextOverflow(Exception):
    """The prompt is longer than the model's context window, as the endpoint said."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class EndpointError(Exception):
    """The endpoint cannot serve this run; the message says what to check."""


class AuthError(EndpointError):
    """The endpoint refused the API key (HTTP 401 or 403)."""


class EndpointNotFound(EndpointError):
    """HTTP 404: the model is unknown to the endpoint, or the base URL is wrong."""


class EndpointUnreachable(EndpointError):
    """Nothing answers at the base URL (connection refused, unknown host), or the start-up probe
    failed after its retries."""
