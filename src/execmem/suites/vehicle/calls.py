"""Tool calls: the benchmark's call strings and JSON call objects, parsed safely.

A call string looks like ``carcontrol_seat_set_headrest_height(seat="driver", value=44)``.
It is parsed with Python's ``ast`` (never evaluated). Booleans may be written
``true``/``True``, nulls ``null``/``None``; numbers may be negative or floats;
lists and dicts of literals are allowed. Anything else is an error, never a
silent drop.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any

_NAMED_CONSTANTS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}


class CallSyntaxError(ValueError):
    """A call that cannot be parsed; the message says what and where."""


@dataclass(frozen=True)
class ToolCall:
    name: str
    args: dict[str, Any] = field(default_factory=dict)

    def key(self) -> tuple[str, str]:
        """Identity used by the tool-call score: the name and the arguments as sorted JSON."""
        return self.name, json.dumps(self.args, sort_keys=True, ensure_ascii=False)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "args": self.args}

    def __str__(self) -> str:
        rendered = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in self.args.items())
        return f"{self.name}({rendered})"


def parse_call_string(text: str) -> ToolCall:
    """Parse ``name(key=value, ...)``; raises CallSyntaxError naming the problem."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise CallSyntaxError(f"not a call: {text!r} ({exc.msg}, column {exc.offset})") from None
    node = tree.body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise CallSyntaxError(f"not a call of the form name(key=value, ...): {text!r}")
    if node.args:
        raise CallSyntaxError(f"positional arguments are not allowed: {text!r}")
    args: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise CallSyntaxError(f"**kwargs are not allowed: {text!r}")
        try:
            args[keyword.arg] = _literal(keyword.value)
        except CallSyntaxError as exc:
            raise CallSyntaxError(f"argument {keyword.arg!r} of {text!r}: {exc}") from None
    return ToolCall(node.func.id, args)


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and not isinstance(node.value, bytes | complex):
        return node.value
    if isinstance(node, ast.Name) and node.id in _NAMED_CONSTANTS:
        return _NAMED_CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise CallSyntaxError("a sign applies to numbers only")
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise CallSyntaxError("dict unpacking is not allowed")
        keys = [_literal(k) for k in node.keys]
        if not all(isinstance(k, str) for k in keys):
            raise CallSyntaxError("dict keys must be strings")
        return dict(zip(keys, (_literal(v) for v in node.values), strict=True))
    raise CallSyntaxError(f"unsupported value {ast.unparse(node)!r}")


def parse_call(item: Any) -> ToolCall:
    """A call given as a call string or as ``{"name": ..., "args": {...}}``.

    ``arguments`` (a JSON string, as in OpenAI tool calls) is accepted in place of ``args``.
    """
    if isinstance(item, str):
        return parse_call_string(item)
    if not isinstance(item, dict):
        raise CallSyntaxError(f"a call must be a string or an object, got {type(item).__name__}")
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise CallSyntaxError(f"call object needs a non-empty string 'name': {item!r}")
    args = item.get("args", item.get("arguments", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as exc:
            raise CallSyntaxError(f"'arguments' of {name} is not valid JSON: {exc.msg}") from None
    if not isinstance(args, dict):
        raise CallSyntaxError(f"'args' of {name} must be an object, got {type(args).__name__}")
    return ToolCall(name, args)


def parse_calls(items: Any, where: str = "calls") -> list[ToolCall]:
    """A list of calls; errors name the position (``where[i]``)."""
    if not isinstance(items, list):
        raise CallSyntaxError(f"{where} must be a list of calls")
    calls = []
    for i, item in enumerate(items):
        try:
            calls.append(parse_call(item))
        except CallSyntaxError as exc:
            raise CallSyntaxError(f"{where}[{i}]: {exc}") from None
    return calls
