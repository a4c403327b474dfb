"""The built-in offline task set: real libraries from PyPI, each with injected bugs its own tests catch.

For each library: unpack the pinned sdist, run its tests once under coverage
(the baseline), then try seeded mutations on executed lines. A mutation is
kept when some baseline-passing tests fail with it (FAIL_TO_PASS, at most
``max_fail_to_pass``); PASS_TO_PASS is a seeded sample of the tests in the same
files that pass both ways; the task's ``patch`` is the fix (the mutation
reversed). Every kept task is then validated through a real episode (buggy
copy fails, gold patch resolves). At most one bug per function; tasks of one
library get increasing synthetic ``created_at`` dates so later tasks have
earlier same-repo tasks as history. Then a few targets get a synthetic family
(``families``): an earlier task with the same operator in the same or a sibling
function. Same seed, same tasks.
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, Field

from execmem.suites.coding.builder.candidates import candidates
from execmem.suites.coding.builder.families import BugSite, place_families, search_families
from execmem.suites.coding.builder.mutations import Mutation
from execmem.suites.coding.builder.repos import RepoSpec, select_repos
from execmem.suites.coding.builder.statements import write_statement
from execmem.suites.coding.builder.stats import RepoStats
from execmem.suites.coding.builder.testrun import SuiteRun, SuiteRunner, pytest_command
from execmem.suites.coding.builder.validation import validate_task
from execmem.suites.coding.patches import file_diff
from execmem.suites.coding.pypi import fetch_sdist, unpack_sdist
from execmem.suites.coding.sandbox.base import make_sandbox
from execmem.suites.coding.sandbox.config import SandboxConfig
from execmem.suites.coding.tasks import CodingTask
from execmem.suites.coding.venvs import VenvCache

Progress = Callable[[str], None]


class BuildError(RuntimeError):
    """A library whose baseline cannot be run."""


class BuildConfig(BaseModel):
    """Knobs of the task builder; defaults give the published set."""

    seed: int = 0
    per_repo: int = Field(default=6, ge=1)
    repos: list[str] = Field(default_factory=list, description="built-in package names; empty = all")
    p2p_cap: int = Field(default=40, ge=0)
    max_fail_to_pass: int = Field(default=25, ge=1)
    trials_per_task: int = Field(default=10, ge=1, description="mutation budget per wanted task")
    families_per_repo: int = Field(
        default=2, ge=0, description="targets per library given an earlier same-family task"
    )
    start: datetime = datetime(2023, 1, 2, 9, 0, tzinfo=UTC)
    unsafe_local: bool = False


@dataclass
class _Library:
    """One library during the build: its spec, pristine copy, runner and baseline."""

    spec: RepoSpec
    pristine: Path
    runner: SuiteRunner
    baseline: SuiteRun
    test_cmd: str
    trial_timeout_s: float


@dataclass(frozen=True)
class _Trial:
    """A mutation that made tests fail: the run, those tests, the fix, and where the tests ran."""

    run: SuiteRun
    fail_to_pass: list[str]
    patch: str
    folder: str


class TaskBuilder:
    """Builds tasks library by library; scratch space lives under ``cache_dir/build``."""

    def __init__(self, config: BuildConfig, cache_dir: Path, progress: Progress | None = None) -> None:
        self.config = config
        self.cache_dir = cache_dir
        self.env_cache = VenvCache(cache_dir / "envs")
        self.progress = progress or (lambda message: None)

    def build(self) -> tuple[list[CodingTask], list[RepoStats]]:
        tasks, stats = [], []
        for spec in select_repos(self.config.repos):
            repo_tasks, repo_stats = self.build_repo(spec)
            tasks += repo_tasks
            stats.append(repo_stats)
        return tasks, stats

    def build_repo(self, spec: RepoSpec) -> tuple[list[CodingTask], RepoStats]:
        start = time.monotonic()
        stats = RepoStats(spec.package)
        (self.cache_dir / "build").mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self.cache_dir / "build") as scratch:
            library = self._prepare(spec, Path(scratch), stats)
            rng = random.Random(f"{self.config.seed}:{spec.package}")
            found = candidates(spec, library.pristine, library.baseline.executed, rng)
            stats.candidates = len(found)
            kept, tried = self._search(library, found, rng, stats, Path(scratch))
            main = _finalise([task for task, _ in kept], spec, self.config, rng)
            bugs = [mutation for _, mutation in kept]
            tasks = self._add_families(library, main, bugs, found, tried, stats, Path(scratch))
        stats.kept, stats.total_s = len(main), time.monotonic() - start
        return tasks, stats

    def _prepare(self, spec: RepoSpec, scratch: Path, stats: RepoStats) -> _Library:
        self.progress(f"{spec.package}: sdist and environment")
        pristine = scratch / "pristine"
        unpack_sdist(fetch_sdist(spec.package, spec.version, spec.sha256, self.cache_dir), pristine)
        venv = self.env_cache.get(spec)
        stats.env_build_s, stats.env_reused = venv.build_s, venv.reused
        config = SandboxConfig(readonly_paths=venv.readonly_paths(), hidden_paths=venv.hidden_paths())
        sandbox = make_sandbox(config, unsafe_local=self.config.unsafe_local)
        runner = SuiteRunner(sandbox, venv, spec.env())
        test_cmd = pytest_command(spec.tests, spec.pytest_args)
        self.progress(f"{spec.package}: baseline test run")
        baseline = runner.run(_copy(pristine, scratch / "baseline"), test_cmd, 1800.0, include=spec.mutate)
        if not baseline.passing():
            raise BuildError(
                f"{spec.package}: no test passes on the pristine sdist\n{baseline.result.stderr}"
            )
        stats.baseline_s, stats.baseline_tests = baseline.result.duration_s, len(baseline.outcomes)
        timeout = 30.0 + 5 * baseline.result.duration_s
        return _Library(spec, pristine, runner, baseline, test_cmd, timeout)

    def _search(
        self, library: _Library, found: list[Mutation], rng: random.Random, stats: RepoStats, scratch: Path
    ) -> tuple[list[tuple[CodingTask, Mutation]], set[str]]:
        """The kept tasks with their bugs, in the order found, and the keys of every mutation tried."""
        kept: list[tuple[CodingTask, Mutation]] = []
        used: set[str] = set()
        tried: set[str] = set()
        budget = self.config.per_repo * self.config.trials_per_task
        for mutation in found:
            if len(kept) >= self.config.per_repo or stats.trials >= budget:
                break
            if f"{mutation.path}:{mutation.function}" in used:
                continue
            stats.trials += 1
            tried.add(mutation.key)
            task = self._attempt(library, mutation, rng, stats, scratch / f"trial-{stats.trials}")
            if task is not None:
                kept.append((task, mutation))
                used.add(f"{mutation.path}:{mutation.function}")
                self.progress(f"{library.spec.package}: {len(kept)}/{self.config.per_repo} tasks")
        return kept, tried

    def _add_families(
        self,
        library: _Library,
        main: list[CodingTask],
        bugs: list[Mutation],
        found: list[Mutation],
        tried: set[str],
        stats: RepoStats,
        scratch: Path,
    ) -> list[CodingTask]:
        """``main`` with an earlier same-family task added for up to ``families_per_repo`` targets.

        Its own seeded stream, so the library's other tasks are the same with or without families.
        """
        spec, wanted = library.spec, self.config.families_per_repo
        rng = random.Random(f"{self.config.seed}:{spec.package}:families")

        def attempt(mutation: Mutation) -> CodingTask | None:
            stats.family_trials += 1
            folder = scratch / f"family-{stats.family_trials}"
            return self._attempt(library, mutation, rng, stats, folder)

        budget = wanted * self.config.trials_per_task
        matches = search_families(bugs, found, tried, attempt, rng, wanted=wanted, budget=budget)
        stats.families = len(matches)
        self.progress(f"{spec.package}: {len(matches)}/{wanted} families")
        return place_families(main, matches, rng, self.config.start, f"{spec.package}-{spec.version}")

    def _attempt(
        self, library: _Library, mutation: Mutation, rng: random.Random, stats: RepoStats, folder: Path
    ) -> CodingTask | None:
        start = time.monotonic()
        draft = self._draft(library, mutation, rng, folder, stats.rejected)
        stats.trial_s.append(time.monotonic() - start)
        if draft is None:
            return None
        check = validate_task(
            draft, folder.parent / "episodes", self.env_cache, cache_dir=self.cache_dir,
            unsafe_local=self.config.unsafe_local,
        )  # fmt: skip
        stats.validation_s.append(check.prepare_s + check.buggy_s + check.gold_s)
        if not check.ok:
            stats.rejected["validation"] += 1
            return None
        return draft.model_copy(update={"base_commit": check.base_sha})

    def _draft(
        self, library: _Library, mutation: Mutation, rng: random.Random, folder: Path, rejected: Counter
    ) -> CodingTask | None:
        original = (library.pristine / mutation.path).read_bytes().decode("utf-8")
        buggy = mutation.apply(original)
        _copy(library.pristine, folder)
        (folder / mutation.path).write_bytes(buggy.encode("utf-8"))
        run = library.runner.run(folder, library.test_cmd, library.trial_timeout_s)
        shutil.rmtree(folder, ignore_errors=True)
        verdict = _judge(library.baseline, run, self.config.max_fail_to_pass)
        if isinstance(verdict, str):
            rejected[verdict] += 1
            return None
        trial = _Trial(run, verdict, file_diff(mutation.path, buggy, original), str(folder))
        return _make_task(library, mutation, trial, rng, self.config)


def _copy(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest, symlinks=True)
    return dest


def _judge(baseline: SuiteRun, run: SuiteRun, max_failing: int) -> list[str] | str:
    """The FAIL_TO_PASS ids of a trial run, or why the mutation is rejected."""
    if run.result.timed_out:
        return "timeout"
    passing = baseline.passing()
    if not run.outcomes or passing - set(run.outcomes):
        return "tests-not-run"
    failing = sorted(t for t in passing if run.outcomes[t] in ("failed", "error"))
    if not failing:
        return "no-failing-test"
    if len(failing) > max_failing:
        return "too-many-failures"
    return failing


def _make_task(
    library: _Library, mutation: Mutation, trial: _Trial, rng: random.Random, config: BuildConfig
) -> CodingTask:
    spec, run, fail_to_pass, patch = library.spec, trial.run, trial.fail_to_pass, trial.patch
    files = sorted({test_id.split("::", 1)[0] for test_id in fail_to_pass})
    both = sorted(t for t in library.baseline.passing() & run.passing() if t.split("::", 1)[0] in files)
    pass_to_pass = sorted(rng.sample(both, min(config.p2p_cap, len(both))))
    wanted = set(fail_to_pass)
    failures = list({case.test_id: case for case in reversed(run.cases) if case.test_id in wanted}.values())
    failures.sort(key=lambda case: case.test_id)
    return CodingTask(
        instance_id=f"{spec.package}-{spec.version}__draft",
        repo=spec.repo,
        problem_statement=write_statement(spec.package, mutation.path, failures, patch, rng, trial.folder),
        patch=patch,
        FAIL_TO_PASS=fail_to_pass,
        PASS_TO_PASS=pass_to_pass,
        created_at=config.start,
        version=spec.version,
        install=spec.install,
        test_cmd=pytest_command(files, spec.pytest_args),
        source={**spec.source(), "bug": "reverse-patch"},
        env=spec.env(),
        meta=BugSite.of(mutation).meta(),
    )


def _finalise(
    tasks: list[CodingTask], spec: RepoSpec, config: BuildConfig, rng: random.Random
) -> list[CodingTask]:
    """Final ids and increasing synthetic creation dates, in the order the bugs were found."""
    when = config.start + timedelta(days=rng.randint(0, 180))
    final = []
    for number, task in enumerate(tasks, start=1):
        when += timedelta(days=rng.randint(3, 40), minutes=rng.randint(0, 24 * 60 - 1))
        instance_id = f"{spec.package}-{spec.version}__bug-{number:02d}"
        final.append(task.model_copy(update={"instance_id": instance_id, "created_at": when}))
    return final
