"""Which bugs to try for a library: mutations on lines its tests execute, operators interleaved."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

from execmem.suites.coding.builder.mutations import Mutation, find_mutations
from execmem.suites.coding.builder.repos import RepoSpec


def source_files(spec: RepoSpec, root: Path) -> list[str]:
    """The modules (relative POSIX paths) that may get a bug: ``mutate`` globs minus ``exclude``."""
    excluded = {path for pattern in spec.exclude for path in root.glob(pattern)}
    chosen = {path for pattern in spec.mutate for path in root.glob(pattern) if path.suffix == ".py"}
    return sorted(path.relative_to(root).as_posix() for path in chosen - excluded if path.is_file())


def candidates(
    spec: RepoSpec, root: Path, executed: dict[str, set[int]], rng: random.Random
) -> list[Mutation]:
    """Mutations whose lines all ran under the tests, in a seeded order that alternates operators."""
    covered = []
    for path in source_files(spec, root):
        lines = executed.get(path, set())
        source = (root / path).read_bytes().decode("utf-8")
        covered += [m for m in find_mutations(source, path) if all(line in lines for line in m.lines)]
    return interleave(covered, rng)


def interleave(mutations: list[Mutation], rng: random.Random) -> list[Mutation]:
    """Shuffle within each operator, then take one of each operator in turn (a shuffled turn order)."""
    groups: dict[str, list[Mutation]] = defaultdict(list)
    for mutation in mutations:
        groups[mutation.operator].append(mutation)
    order = sorted(groups)
    rng.shuffle(order)
    for name in order:
        rng.shuffle(groups[name])
    result = []
    while any(groups[name] for name in order):
        result += [groups[name].pop() for name in order if groups[name]]
    return result
