from __future__ import annotations

import random
import subprocess
import textwrap
from pathlib import Path

import pytest

from execmem.suites.coding.builder.candidates import interleave
from execmem.suites.coding.builder.mutations import find_mutations
from execmem.suites.coding.patches import file_diff

CODE = textwrap.dedent(
    """\
    LIMIT = 3  # module level: never mutated


    def clip(values, low=0, strict=False):
        if not values:
            return []
        total = 0
        for value in values[1:]:
            if value < low and strict:
                continue
            total += value
        return [total - low, divmod(total, 2)]  # keep the comment
    """
)


def mutated(operator: str) -> set[str]:
    """The changed line of every mutation ``operator`` makes on CODE (or '<gone>' for deletions)."""
    lines = set()
    for mutation in find_mutations(CODE, "m.py"):
        if mutation.operator == operator:
            after = mutation.apply(CODE).splitlines()
            changed = [new for old, new in zip(CODE.splitlines(), after, strict=False) if old != new]
            lines.add(changed[0].strip() if changed else "<gone>")
    return lines


@pytest.mark.parametrize(
    ("operator", "expected"),
    [
        ("compare-swap", {"if value <= low and strict:"}),
        ("boolean-swap", {"if value < low or strict:"}),
        ("arithmetic-swap", {"total -= value", "return [total + low, divmod(total, 2)]  # keep the comment"}),
        ("swapped-arguments", {"return [total - low, divmod(2, total)]  # keep the comment"}),
        ("wrong-default", {"def clip(values, low=1, strict=False):",
                           "def clip(values, low=0, strict=True):"}),
        ("negated-condition", {"if values:", "if not (value < low and strict):"}),
        ("off-by-one", {"total = 1", "for value in values[2:]:", "for value in values[0:]:",
                        "return [total - low, divmod(total, 3)]  # keep the comment",
                        "return [total - low, divmod(total, 1)]  # keep the comment"}),
    ],
)  # fmt: skip
def test_operators_on_synthetic_code(operator, expected):
    assert mutated(operator) == expected


def test_dropped_branch_removes_whole_guards():
    drops = [m for m in find_mutations(CODE, "m.py") if m.operator == "dropped-branch"]
    results = {m.apply(CODE) for m in drops}
    assert CODE.replace("    if not values:\n        return []\n", "") in results
    assert CODE.replace("        if value < low and strict:\n            continue\n", "") in results


def test_dropped_branch_leaves_pass_when_it_was_the_only_statement():
    code = "def f(x):\n    if x:\n        return 1\n"
    (drop,) = [m for m in find_mutations(code) if m.operator == "dropped-branch"]
    assert drop.apply(code) == "def f(x):\n    pass\n"


def test_slice_bound_shift_and_module_level_code_untouched():
    code = "N = 1 + 2\n\ndef head(xs, n):\n    return xs[:n]\n"
    mutations = find_mutations(code)
    assert {m.apply(code).splitlines()[3] for m in mutations if m.operator == "slice-off-by-one"} == {
        "    return xs[:n + 1]"
    }
    assert all(m.apply(code).startswith("N = 1 + 2\n") for m in mutations)
    assert all(m.function == "head" for m in mutations)


def test_qualified_function_names_and_lines():
    code = "class A:\n    def m(self, x):\n        return x + 1\n"
    (arith,) = [m for m in find_mutations(code) if m.operator == "arithmetic-swap"]
    assert (arith.function, arith.line) == ("A.m", 3)


def test_string_concatenation_and_comments_between_operands_are_skipped():
    code = "def f(a, b):\n    return ('x' + a, a + # note\n        b)\n"
    assert [m for m in find_mutations(code) if m.operator == "arithmetic-swap"] == []


def test_non_ascii_source_offsets():
    code = "def f(s):\n    return 'é' == s and len(s) < 2\n"
    (cmp_swap,) = [m for m in find_mutations(code) if m.operator == "compare-swap" and "<" in m.edits[0].text]
    assert cmp_swap.apply(code) == "def f(s):\n    return 'é' == s and len(s) <= 2\n"


def test_every_mutation_parses_and_changes_the_program():
    import ast

    for mutation in find_mutations(CODE):
        assert ast.dump(ast.parse(mutation.apply(CODE))) != ast.dump(ast.parse(CODE))


def test_interleave_is_seeded_and_alternates_operators():
    mutations = find_mutations(CODE, "m.py")
    first = interleave(mutations, random.Random(7))
    assert first == interleave(mutations, random.Random(7))
    assert sorted(m.key for m in first) == sorted(m.key for m in mutations)
    operators = {m.operator for m in mutations}
    assert {m.operator for m in first[: len(operators)]} == operators


def test_fix_patch_applies_with_git(tmp_path: Path):
    mutation = next(m for m in find_mutations(CODE, "pkg/m.py") if m.operator == "compare-swap")
    buggy = mutation.apply(CODE)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(buggy)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    patch = file_diff("pkg/m.py", buggy, CODE)
    assert patch.startswith("diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n")
    subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=patch.encode(), check=True)
    assert (tmp_path / "pkg" / "m.py").read_text() == CODE


def test_diff_of_a_file_without_final_newline(tmp_path: Path):
    before, after = "a = 1\nb = 2", "a = 1\nb = 3"
    (tmp_path / "x.py").write_text(before)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    patch = file_diff("x.py", before, after)
    subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=patch.encode(), check=True)
    assert (tmp_path / "x.py").read_text() == after
    assert file_diff("x.py", before, before) == ""
