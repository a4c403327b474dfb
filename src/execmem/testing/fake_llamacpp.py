"""The fake server behaving as llama-cpp-python 0.3's OpenAI-compatible server did.

Wraps any policy (``--mode llama-cpp`` of the fake server) and reproduces what that server,
run with ``--chat_format chatml-function-calling``, did to an unprepared client:

* **tools without tool_choice are ignored**: the prompt is rendered without them, and the model
  answers in words (the wrapped policy's tool calls come back as text, never as ``tool_calls``);
* **an assistant message with ``content: null``** fails its request validation: HTTP 500 with
  the same "7 validation errors" body every time;
* **a prompt over the window** (``prompt + max_tokens > window``, counted with ``count``) gets
  HTTP 400 ``context_length_exceeded`` in OpenAI's words;
* **runaway replies** (``runaway=True``): a text reply goes on until ``max_tokens``, or until the
  window is full when the request has no cap, with ``finish_reason: "length"``; generating takes
  ``token_s`` per token, on at most ``slots`` requests at a time (llama.cpp's parallel slots).

Prompt tokens are counted on a ChatML rendering of the messages (and of the tools when they are
used) with ``count``: by default one token per 3 characters, denser than characters/4, as real
tokenizers are on this benchmark's text; a tokenizer file gives exact counts.
"""

from __future__ import annotations

import dataclasses
import json
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from execmem.testing.fake_policies import Fault, Policy, Reply, ToolCallSpec, error_body

VALIDATION_ERRORS = "7 validation errors:\n" + "\n".join(
    f"  {{'type': '{kind}', 'loc': ('body', 'messages', 1, '{model}', '{field}'), 'msg': '{message}'}}"
    for kind, model, field, message in (
        ("literal_error", "ChatCompletionRequestSystemMessage", "role", "Input should be 'system'"),
        ("literal_error", "ChatCompletionRequestUserMessage", "role", "Input should be 'user'"),
        ("string_type", "ChatCompletionRequestAssistantMessage", "content", "Input should be a valid string"),
        ("literal_error", "ChatCompletionRequestToolMessage", "role", "Input should be 'tool'"),
        ("missing", "ChatCompletionRequestToolMessage", "tool_call_id", "Field required"),
        ("literal_error", "ChatCompletionRequestFunctionMessage", "role", "Input should be 'function'"),
        ("missing", "ChatCompletionRequestFunctionMessage", "name", "Field required"),
    )
)


def three_chars_per_token(text: str) -> int:
    return math.ceil(len(text) / 3)


def overflow_body(window: int, prompt: int, completion: int | None) -> str:
    """llama-cpp-python's answer to a prompt over the window (status 400)."""
    message = (
        f"This model's maximum context length is {window} tokens. However, you requested "
        f"{prompt + (completion or 0)} tokens ({prompt} in the messages, {completion} in the completion). "
        "Please reduce the length of the messages or completion."
    )
    error = {"message": message, "type": "invalid_request_error", "param": "messages"}
    return json.dumps({"error": error | {"code": "context_length_exceeded"}})


class LlamaCppLike:
    def __init__(
        self,
        policy: Policy,
        window: int = 8192,
        count: Callable[[str], int] = three_chars_per_token,
        runaway: bool = False,
        token_s: float = 0.0,
        slots: int | None = None,
    ) -> None:
        self.policy, self.window, self.count = policy, window, count
        self.runaway, self.token_s = runaway, token_s
        self._slots = threading.BoundedSemaphore(slots) if slots else None
        self.ignored_tools = 0  # requests whose tools were dropped for want of tool_choice
        self.overflows = 0

    def __call__(self, body: dict) -> Reply | Fault:
        messages = body.get("messages") or []
        if any(m.get("role") == "assistant" and m.get("content") is None for m in messages):
            return Fault(500, body=error_body(500, VALIDATION_ERRORS))
        uses_tools = bool(body.get("tools")) and body.get("tool_choice") not in (None, "none")
        if body.get("tools") and not uses_tools:
            self.ignored_tools += 1
            body = {k: v for k, v in body.items() if k not in ("tools", "tool_choice")}
        prompt = self.prompt_tokens(messages, body.get("tools"))
        cap = body.get("max_tokens")
        if prompt + (cap or 0) > self.window or prompt >= self.window:
            self.overflows += 1
            return Fault(400, body=overflow_body(self.window, prompt, cap))
        reply = self.policy(body)
        if isinstance(reply, Fault):
            return reply
        if reply.tool_calls and not uses_tools:
            reply = Reply(content=_in_words(reply.tool_calls))
        completion = reply.usage[1] if reply.usage else max(1, self.count(reply.content or ""))
        if self.runaway and not reply.tool_calls:
            completion = cap or self.window - prompt
            reply = dataclasses.replace(reply, content="and " * completion, finish_reason="length")
        self._generate(completion)
        return dataclasses.replace(reply, usage=(prompt, completion))

    def prompt_tokens(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
        """Tokens of the ChatML rendering of ``messages`` (tools in the system turn when used)."""
        parts = [f"<|im_start|>system\n{json.dumps(tools)}<|im_end|>\n"] if tools else []
        for m in messages:
            content = m.get("content") if isinstance(m.get("content"), str) else ""
            calls = json.dumps(m["tool_calls"]) if m.get("tool_calls") else ""
            parts.append(f"<|im_start|>{m.get('role')}\n{content}{calls}<|im_end|>\n")
        return self.count("".join(parts) + "<|im_start|>assistant\n")

    def _generate(self, tokens: int) -> None:
        if self.token_s <= 0:
            return
        if self._slots is None:
            time.sleep(tokens * self.token_s)
            return
        with self._slots:
            time.sleep(tokens * self.token_s)


def _in_words(calls: list[ToolCallSpec]) -> str:
    """What a model that was shown no tools says instead of calling them."""
    said = "; ".join(
        f"{c.name}({c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments)})" for c in calls
    )
    return f"To do this I would use {said}."
