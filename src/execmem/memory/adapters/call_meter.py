"""Counts a library's chat completions through its ``openai`` client, and surfaces the failures it hides.

Some libraries catch every error of their model calls and carry on with a placeholder text
(MemoryOS answers "Error: Could not get response from LLM." and stores it). A benchmark must
not score a memory built from such placeholders, so the meter wraps the client's
``chat.completions.create``: it counts calls and tokens, remembers every failure and lets it
propagate into the library as before; the adapter then raises :class:`ModelCallError` once the
library's own call returns.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any


class ModelCallError(RuntimeError):
    """A model call made by a memory library failed (the library itself carried on)."""


class CallMeter:
    """Chat completions made through the clients attached to it: calls, tokens, failures."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # libraries call their model from worker threads
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.failures: list[str] = []

    def attach(self, client: Any) -> None:
        """Count every ``client.chat.completions.create`` (an ``openai.OpenAI`` or its shape)."""
        completions = client.chat.completions
        original = completions.create

        def create(*args: Any, **kwargs: Any) -> Any:
            try:
                response = original(*args, **kwargs)
            except Exception as exc:
                with self._lock:
                    self.failures.append(f"{type(exc).__name__}: {exc}")
                raise
            self._count(getattr(response, "usage", None))
            return response

        completions.create = create

    @contextlib.contextmanager
    def checked(self, what: str) -> Iterator[None]:
        """Raise ``ModelCallError`` after the block if a model call failed inside it."""
        before = len(self.failures)
        yield
        failed = self.failures[before:]
        if failed:
            raise ModelCallError(
                f"{what}: {len(failed)} model call(s) failed and the library went on without them "
                f"(first: {failed[0]})"
            )

    def usage(self) -> dict[str, int]:
        return {
            "llm_calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "failed_calls": len(self.failures),
        }

    def _count(self, usage: Any) -> None:
        with self._lock:
            self.calls += 1
            self.input_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            self.output_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
