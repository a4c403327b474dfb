"""Unified diffs in the form ``git apply`` and SWE-bench expect."""

from __future__ import annotations

import difflib

_NO_NEWLINE = "\\ No newline at end of file\n"


def file_diff(path: str, before: str, after: str, context: int = 3) -> str:
    """A git-style diff turning ``before`` into ``after`` for one file (empty when equal)."""
    if before == after:
        return ""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
        n=context,
    )
    body = "".join(line if line.endswith("\n") else line + "\n" + _NO_NEWLINE for line in lines)
    return f"diff --git a/{path} b/{path}\n{body}"
