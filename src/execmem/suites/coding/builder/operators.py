"""Mutation operators: each turns one AST node into zero or more candidate edits.

Offsets are byte offsets (``ast`` columns are UTF-8 bytes). An operator yields
``(name, edits, lines)`` where ``lines`` are the source lines that must execute
for the change to matter, first one being where the bug sits.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

Found = tuple[str, tuple["Edit", ...], tuple[int, ...]]

COMPARE_SWAPS = {
    "<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==",
    "is": "is not", "is not": "is", "in": "not in", "not in": "in",
}  # fmt: skip
BINOP_SWAPS = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.FloorDiv: ("//", "/")}
AUGASSIGN_SWAPS = {ast.Add: ("+=", "-="), ast.Sub: ("-=", "+=")}
NO_SWAP_CALLS = {"isinstance", "issubclass", "hasattr", "getattr", "setattr", "print", "super"}
MAX_DROPPED_LINES = 6
_PUNCTUATION = re.compile(rb"[^\s()]")


@dataclass(frozen=True)
class Edit:
    """Replace bytes ``start:end`` of the file with ``text``."""

    start: int
    end: int
    text: str


class Source:
    """A module's bytes with line offsets, to turn AST positions into byte ranges."""

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8")
        self.starts = [0]
        for line in self.data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)
        return start, self.offset(node.end_lineno, node.end_col_offset)

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8")

    def segment(self, node: ast.AST) -> str:
        return self.text(*self.span(node))

    def line_bounds(self, first: int, last: int) -> tuple[int, int]:
        """Byte range of whole lines ``first..last`` (1-based, inclusive, with the final newline)."""
        return self.starts[first - 1], self.starts[last]


def _token_in_gap(src: Source, start: int, end: int) -> tuple[int, int, str] | None:
    """The operator token between two operands: skips spaces and parentheses; refuses comments."""
    gap = src.data[start:end]
    if b"#" in gap or b"\\" in gap:
        return None
    hits = [match.start() for match in _PUNCTUATION.finditer(gap)]
    if not hits:
        return None
    first, last = hits[0], hits[-1] + 1
    token = b" ".join(gap[first:last].split()).decode("utf-8")
    return start + first, start + last, token


def compare_swap(node: ast.AST, src: Source) -> Iterator[Found]:
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return
    located = _token_in_gap(src, src.span(node.left)[1], src.span(node.comparators[0])[0])
    if located and located[2] in COMPARE_SWAPS:
        start, end, token = located
        yield "compare-swap", (Edit(start, end, COMPARE_SWAPS[token]),), (node.lineno,)


def binop_swap(node: ast.AST, src: Source) -> Iterator[Found]:
    if isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAPS:
        left, right = node.left, node.right
        if any(isinstance(side, (ast.JoinedStr, ast.Constant)) and _is_text(side) for side in (left, right)):
            return
        gap = (src.span(left)[1], src.span(right)[0])
    elif isinstance(node, ast.AugAssign) and type(node.op) in AUGASSIGN_SWAPS:
        gap = (src.span(node.target)[1], src.span(node.value)[0])
    else:
        return
    table = BINOP_SWAPS if isinstance(node, ast.BinOp) else AUGASSIGN_SWAPS
    old, new = table[type(node.op)]
    located = _token_in_gap(src, *gap)
    if located and located[2] == old:
        yield "arithmetic-swap", (Edit(located[0], located[1], new),), (node.lineno,)


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(getattr(node, "value", None), (str, bytes))


def boolop_swap(node: ast.AST, src: Source) -> Iterator[Found]:
    if not isinstance(node, ast.BoolOp):
        return
    old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
    edits = []
    for left, right in zip(node.values, node.values[1:], strict=False):
        located = _token_in_gap(src, src.span(left)[1], src.span(right)[0])
        if not located or located[2] != old:
            return
        edits.append(Edit(located[0], located[1], new))
    yield "boolean-swap", tuple(edits), (node.lineno,)


def constant_shift(node: ast.AST, src: Source) -> Iterator[Found]:
    if not _is_int(node) or abs(node.value) > 1000:
        return
    start, end = src.span(node)
    if src.text(start, end) != str(node.value):
        return  # hex, underscores, ...: leave alone
    for value in (node.value + 1, node.value - 1):
        if value >= 0:
            yield "off-by-one", (Edit(start, end, str(value)),), (node.lineno,)


def _is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def slice_shift(node: ast.AST, src: Source) -> Iterator[Found]:
    if not isinstance(node, ast.Slice):
        return
    for bound in (node.lower, node.upper):
        if bound is None or _is_int(bound) or bound.lineno != bound.end_lineno:
            continue
        if isinstance(bound, ast.UnaryOp) and _is_int(bound.operand):
            continue
        start, end = src.span(bound)
        text = src.text(start, end)
        if not isinstance(bound, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.BinOp)):
            text = f"({text})"
        yield "slice-off-by-one", (Edit(start, end, f"{text} + 1"),), (bound.lineno,)


def negate_condition(node: ast.AST, src: Source) -> Iterator[Found]:
    if not isinstance(node, (ast.If, ast.While)) or node.test.lineno != node.test.end_lineno:
        return
    start, end = src.span(node.test)
    test = node.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        replacement = src.segment(test.operand)
    elif isinstance(test, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Compare)):
        replacement = f"not {src.text(start, end)}"
    else:
        replacement = f"not ({src.text(start, end)})"
    yield "negated-condition", (Edit(start, end, replacement),), (node.lineno,)


def swap_arguments(node: ast.AST, src: Source) -> Iterator[Found]:
    if not isinstance(node, ast.Call) or len(node.args) < 2:
        return
    name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
    first, second = node.args[0], node.args[1]
    if name in NO_SWAP_CALLS or any(isinstance(arg, ast.Starred) for arg in (first, second)):
        return
    (a_start, a_end), (b_start, b_end) = src.span(first), src.span(second)
    between = src.text(a_end, b_end)[: b_start - a_end]
    a_text, b_text = src.text(a_start, a_end), src.text(b_start, b_end)
    if between.strip() != "," or a_text == b_text:
        return
    yield "swapped-arguments", (Edit(a_start, b_end, b_text + between + a_text),), (node.lineno,)


def wrong_default(node: ast.FunctionDef | ast.AsyncFunctionDef, src: Source) -> Iterator[Found]:
    body_line = node.body[0].lineno if node.body else node.lineno
    defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    for default in defaults:
        if not isinstance(default, ast.Constant) or default.lineno != default.end_lineno:
            continue
        start, end = src.span(default)
        if type(default.value) is bool:
            yield "wrong-default", (Edit(start, end, str(not default.value)),), (default.lineno, body_line)
        elif _is_int(default) and src.text(start, end) == str(default.value):
            yield "wrong-default", (Edit(start, end, str(default.value + 1)),), (default.lineno, body_line)


def drop_if(statements: list[ast.stmt], src: Source) -> Iterator[Found]:
    """Delete a whole ``if`` without ``else`` (a guard, an early return); ``pass`` keeps a block valid."""
    for statement in statements:
        if not isinstance(statement, ast.If) or statement.orelse:
            continue
        first, last = statement.lineno, statement.end_lineno
        start, end = src.line_bounds(first, last)
        indent = src.text(start, src.offset(first, statement.col_offset))
        if last - first + 1 > MAX_DROPPED_LINES or indent.strip() or not _ends_line(src, statement):
            continue
        if src.text(start, end).lstrip().startswith("elif"):
            continue
        replacement = f"{indent}pass\n" if len(statements) == 1 else ""
        yield "dropped-branch", (Edit(start, end, replacement),), (first, statement.body[0].lineno)


def _ends_line(src: Source, node: ast.AST) -> bool:
    end = src.offset(node.end_lineno, node.end_col_offset)
    rest = src.text(end, src.starts[node.end_lineno]).strip()
    return not rest or rest.startswith("#")


NODE_OPERATORS = (
    compare_swap, binop_swap, boolop_swap, constant_shift, slice_shift, negate_condition, swap_arguments,
)  # fmt: skip


def for_node(node: ast.AST, src: Source) -> Iterator[Found]:
    """Every candidate for a node inside a function body."""
    for operator in NODE_OPERATORS:
        yield from operator(node, src)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield from drop_if(block, src)


def for_function(node: ast.FunctionDef | ast.AsyncFunctionDef, src: Source) -> Iterator[Found]:
    """Candidates on the definition itself: default values, and guards directly in its body."""
    yield from wrong_default(node, src)
    yield from drop_if(node.body, src)
