from __future__ import annotations

import random

from execmem.suites.coding.builder.mutations import find_mutations
from execmem.suites.coding.builder.statements import clean_message, module_name, patch_lines, write_statement
from execmem.suites.coding.evaluation.junit import CaseResult
from execmem.suites.coding.patches import file_diff

ORIGINAL = "def window(seq, n):\n    return [seq[i:i + n] for i in range(len(seq) - n + 1)]\n"


def test_statement_describes_failures_but_never_quotes_the_patch():
    for mutation in find_mutations(ORIGINAL, "pkg/windows.py"):
        buggy = mutation.apply(ORIGINAL)
        patch = file_diff("pkg/windows.py", buggy, ORIGINAL)
        failures = [
            CaseResult("tests/test_w.py::test_window[3]", "failed", "assert [[1, 2]] == [[1, 2], [2, 3]]"),
            # a message that quotes the buggy and the fixed line, as a traceback excerpt could
            CaseResult("tests/test_w.py::test_empty", "error", f"IndexError\n{buggy.splitlines()[1]}"),
            CaseResult(
                "tests/test_w.py::test_other", "failed", f"near {ORIGINAL.splitlines()[1].strip()} here"
            ),
        ]
        text = write_statement("pkg", "pkg/windows.py", failures, patch, random.Random(0))
        assert "tests/test_w.py::test_window[3]" in text and "assert [[1, 2]] == [[1, 2], [2, 3]]" in text
        assert "pkg.windows" in text
        for line in patch_lines(patch):
            assert line not in text
        assert "return [seq" not in text


def test_long_lists_and_messages_are_shortened():
    failures = [CaseResult(f"t.py::test_{n}", "failed", "x" * 1000) for n in range(12)]
    text = write_statement("pkg", "src/pkg/__init__.py", failures, "", random.Random(1))
    assert "- ... and 4 more" in text
    assert max(len(line) for line in text.splitlines()) < 300
    assert "`pkg`" in text


def test_helpers():
    assert module_name("src/pkg/sub/mod.py") == "pkg.sub.mod"
    assert module_name("parse.py") == "parse"
    assert patch_lines("--- a/x\n+++ b/x\n-    return a\n+    return b\n+x\n") == ["return a", "return b"]
    assert clean_message("line one\nsecret code here\nline three", ["secret code"]) == "line one line three"


def test_messages_do_not_depend_on_where_or_when_tests_ran():
    message = (
        "assert <function f at 0x7fb4bf4b74c0> is g  where g = <module 'pkg.m' from '/tmp/b/t-7/pkg/m.py'>"
    )
    cleaned = clean_message(message, [], folder="/tmp/b/t-7")
    assert cleaned == "assert <function f at 0x...> is g  where g = <module 'pkg.m' from 'pkg/m.py'>"
    assert (
        clean_message("assert [(<t...pad')] == [(<t...f7c541ac8d0>)]", [])
        == "assert [(<t...pad')] == [(<t...>)]"
    )
    for user in ("root", "nobody"):  # pytest's temporary folder names the user the sandbox ran tests as
        message = f"ValueError: invalid mode: '/tmp/pytest-of-{user}/pytest-3/out.sql'"
        assert clean_message(message, []) == "ValueError: invalid mode: '<pytest-tmp>/out.sql'"
