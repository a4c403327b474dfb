"""Realistic bugs as small text edits located with ``ast``.

A ``Mutation`` is a few byte-range replacements in one file, so the rest of
the file (formatting, comments, line endings) is untouched and the fix is a
small unified diff. Operators live in ``operators``; this module walks a
module's functions and keeps the edits that still parse and change the AST.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from execmem.suites.coding.builder import operators
from execmem.suites.coding.builder.operators import Edit, Source


@dataclass(frozen=True)
class Mutation:
    """One injected bug: where, which operator, and the edits that make it."""

    path: str
    operator: str
    function: str
    line: int
    edits: tuple[Edit, ...]
    lines: tuple[int, ...] = ()
    """Lines that must run for the bug to matter (the coverage filter uses them)."""

    def apply(self, source: str) -> str:
        return apply_edits(source, self.edits)

    @property
    def key(self) -> str:
        first = self.edits[0]
        return f"{self.path}:{first.start}-{first.end}:{self.operator}:{first.text}"


def apply_edits(source: str, edits: tuple[Edit, ...]) -> str:
    data = source.encode("utf-8")
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        data = data[: edit.start] + edit.text.encode("utf-8") + data[edit.end :]
    return data.decode("utf-8")


def find_mutations(source: str, path: str = "<string>") -> list[Mutation]:
    """Every valid mutation inside the functions of ``source`` (module-level code is left alone)."""
    tree = ast.parse(source)
    src = Source(source)
    reference = ast.dump(tree)
    found = []
    for mutation in _Walker(src, path).walk(tree):
        if _valid(mutation, source, reference):
            found.append(mutation)
    return found


def _valid(mutation: Mutation, source: str, reference: str) -> bool:
    try:
        mutated = ast.parse(mutation.apply(source))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return False
    return ast.dump(mutated) != reference


class _Walker:
    """Walks functions (qualified names tracked) and asks each operator about each node."""

    def __init__(self, src: Source, path: str) -> None:
        self.src = src
        self.path = path

    def walk(self, tree: ast.Module) -> Iterator[Mutation]:
        yield from self._visit(tree, [], in_function=False)

    def _visit(self, node: ast.AST, scope: list[str], in_function: bool) -> Iterator[Mutation]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from self._emit([*scope, node.name], operators.for_function(node, self.src))
            for statement in node.body:
                yield from self._visit(statement, [*scope, node.name], True)
            return
        if isinstance(node, ast.ClassDef):
            scope = [*scope, node.name]
        elif in_function:
            yield from self._emit(scope, operators.for_node(node, self.src))
        for child in ast.iter_child_nodes(node):
            yield from self._visit(child, scope, in_function)

    def _emit(self, scope: list[str], found: Iterator[operators.Found]) -> Iterator[Mutation]:
        for operator, edits, lines in found:
            yield Mutation(self.path, operator, ".".join(scope), lines[0], edits, lines)
