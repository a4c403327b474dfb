"""Tool calls: the benchmark's call strings and JSON call objects, parsed safely.

A call string looks like ``carcontrol_seat_set_headrest_height(seat="driver", value=44)``.
It is parsed with Python's ``ast`` (never evaluated). Booleans may be written
``true``/``True``, nulls ``null``/``None``; numbers may be negative or floats;
lists and dicts of literals are allowed. Anything else is an error, never a
silent drop: so are values nested deeper than ``MAX_DEPTH``, integers too long to
write out, and infinite floats, whatever the string holds.
"""

from __future__ import annotations

import ast
import json
import math
from dataclasses import dataclass, field
from typing import Any

from execmem.core.jsonl import JsonlError, loads

MAX_DEPTH = 100
_MAX_INT_BITS = 14_000  # about 4,200 decimal digits: still writable as JSON
_QUOTED = 120  # characters of a call string quoted in an error message
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
    quoted = _quote(text)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        column = f", column {exc.offset}" if exc.offset else ""
        raise CallSyntaxError(f"not a call: {quoted} ({exc.msg}{column})") from None
    except (RecursionError, MemoryError):
        raise CallSyntaxError(f"not a call: {quoted} (nested too deeply)") from None
    except ValueError as exc:  # null bytes, lone surrogates
        raise CallSyntaxError(f"not a call: {quoted} ({exc})") from None
    node = tree.body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise CallSyntaxError(f"not a call of the form name(key=value, ...): {quoted}")
    if node.args:
        raise CallSyntaxError(f"positional arguments are not allowed: {quoted}")
    args: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise CallSyntaxError(f"**kwargs are not allowed: {quoted}")
        try:
            args[keyword.arg] = _literal(keyword.value, 1)
        except CallSyntaxError as exc:
            raise CallSyntaxError(f"argument {keyword.arg!r} of {quoted}: {exc}") from None
    return ToolCall(node.func.id, args)


def _quote(value: Any) -> str:
    """``value`` as a repr, cut to a readable length for error messages."""
    text = repr(value)
    return text if len(text) <= _QUOTED else f"{text[:_QUOTED]}... ({len(text)} characters)"


def _literal(node: ast.expr, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise CallSyntaxError(f"value nested deeper than {MAX_DEPTH} levels")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _signed(node)
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str | int | float)):
        return _checked_number(node.value)
    if isinstance(node, ast.Name) and node.id in _NAMED_CONSTANTS:
        return _NAMED_CONSTANTS[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item, depth + 1) for item in node.elts]
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise CallSyntaxError("dict unpacking is not allowed")
        keys = [_literal(k, depth + 1) for k in node.keys]
        if not all(isinstance(k, str) for k in keys):
            raise CallSyntaxError("dict keys must be strings")
        return dict(zip(keys, (_literal(v, depth + 1) for v in node.values), strict=True))
    raise CallSyntaxError(f"unsupported value {_source(node)}")


def _source(node: ast.expr) -> str:
    try:
        return _quote(ast.unparse(node))
    except RecursionError:
        return f"(a deeply nested {type(node).__name__} expression)"


def _signed(node: ast.UnaryOp) -> int | float:
    """A chain of signs before a number (``--3`` is 3), read without recursion however long."""
    negative = False
    operand: ast.expr = node
    while isinstance(operand, ast.UnaryOp) and isinstance(operand.op, ast.USub | ast.UAdd):
        negative ^= isinstance(operand.op, ast.USub)
        operand = operand.operand
    value = operand.value if isinstance(operand, ast.Constant) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CallSyntaxError("a sign applies to numbers only")
    value = _checked_number(value)
    return -value if negative else value


def _checked_number(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INT_BITS:
        raise CallSyntaxError("integer too large")
    if isinstance(value, float) and not math.isfinite(value):
        raise CallSyntaxError("number too large (not finite)")
    return value


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
        raise CallSyntaxError(f"call object needs a non-empty string 'name': {_quote(item)}")
    args = item.get("args", item.get("arguments", {}))
    if isinstance(args, str):
        try:  # the reader of input files: no NaN, no 5,000-digit integers, no nesting 100k deep
            args = loads(args, f"'arguments' of {name}") if args.strip() else {}
        except JsonlError as exc:
            raise CallSyntaxError(str(exc).replace(": invalid JSON", " is not valid JSON:", 1)) from None
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
