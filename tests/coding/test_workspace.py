"""Episodes end to end on a tiny local repository (the venv gets pytest from PyPI once, then is reused)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import execmem
from execmem.suites.coding.builder.testrun import pytest_command
from execmem.suites.coding.builder.validation import validate_task
from execmem.suites.coding.evaluation.evaluate import evaluate
from execmem.suites.coding.patches import file_diff
from execmem.suites.coding.tasks import CodingTask
from execmem.suites.coding.venvs import VenvBuildError, VenvCache
from execmem.suites.coding.workspace import prepare_episode
from tests.coding.conftest import needs_bwrap, task_record

GOOD = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
BUGGY = GOOD.replace("a + b", "a - b", 1)
TESTS = (
    "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_sub():\n    assert sub(5, 3) == 2\n"
)
EXTRA_TEST = "diff --git a/tests/test_extra.py b/tests/test_extra.py\nnew file mode 100644\n--- /dev/null\n"
EXTRA_TEST += "+++ b/tests/test_extra.py\n@@ -0,0 +1,5 @@\n+from calc import add\n+\n+\n"
EXTRA_TEST += "+def test_add_zero():\n+    assert add(0, 1) == 1\n"
PYTEST_INSTALL = ["python -m pip install --quiet --disable-pip-version-check pytest==8.3.3"]

pytestmark = needs_bwrap


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "upstream"
    (root / "calc").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "calc" / "__init__.py").write_text(GOOD)
    (root / "tests" / "test_calc.py").write_text(TESTS)
    return root


@pytest.fixture(scope="module")
def env_cache(shared_cache) -> VenvCache:
    return VenvCache(shared_cache / "envs")


def make_task(pristine: Path, **overrides) -> CodingTask:
    fields = task_record(
        patch=file_diff("calc/__init__.py", BUGGY, GOOD),
        install=PYTEST_INSTALL,
        test_cmd=pytest_command(["tests"]),
        source={"kind": "local", "path": str(pristine), "bug": "reverse-patch"},
    )
    fields.update(overrides)
    return CodingTask.model_validate(fields)


@pytest.fixture
def episode(pristine, env_cache, tmp_path):
    episode = prepare_episode(make_task(pristine), tmp_path / "episodes", env_cache)
    yield episode
    episode.cleanup()


def test_episode_starts_buggy_and_evaluates_unresolved(episode):
    assert (episode.repo / "calc" / "__init__.py").read_text() == BUGGY
    assert episode.run("python -c 'import calc; print(calc.add(2, 3))'").stdout == "-1\n"
    evaluation = evaluate(episode.task, episode)
    assert not evaluation.resolved
    assert evaluation.outcomes == {
        "tests/test_calc.py::test_add": "failed",
        "tests/test_calc.py::test_sub": "passed",
    }
    assert episode.diff() == ""


def test_agent_fix_is_diffed_and_resolves(episode):
    episode.run("sed -i '2s/return a - b/return a + b/' calc/__init__.py && echo notes > NOTES.txt")
    episode.run("mkdir -p calc/__pycache__ && touch calc/__pycache__/x.pyc .execmem-junit.xml")
    diff = episode.diff()
    assert "-    return a - b\n+    return a + b\n" in diff
    assert "+++ b/NOTES.txt" in diff
    assert "__pycache__" not in diff and ".execmem" not in diff
    evaluation = evaluate(episode.task, episode)
    assert evaluation.resolved, evaluation.to_dict()
    assert not (episode.root / "eval").exists() and [p.name for p in episode.root.iterdir()] == [
        "repo",
        "meta",
    ]


def test_editing_the_tests_does_not_count(episode):
    episode.run("sed -i 's/assert add(2, 3) == 5/assert True/' tests/test_calc.py")
    assert "assert True" in episode.diff()
    assert not evaluate(episode.task, episode).resolved


def test_git_history_cannot_be_rewritten_by_the_agent(episode):
    result = episode.run(
        "git commit -qam wip --no-verify; rm -rf .git; echo x >> calc/__init__.py; git log --oneline | wc -l"
    )
    assert result.stdout.strip().endswith("1")
    assert "+x" in episode.diff()


def test_a_nested_repository_and_a_huge_file_are_left_out_and_the_fix_still_scores(episode):
    """``git init sub`` made git refuse the whole diff (the episode became a crash); a 200 MB file
    took the harness 875 MB and 86 s to score."""
    fix = "sed -i '2s/return a - b/return a + b/' calc/__init__.py"
    nested = (
        "git init -q scratch && echo x > scratch/notes.txt && mkdir linked && echo 'gitdir: /x' > linked/.git"
    )
    huge = "head -c 9M /dev/zero > data.bin && head -c 100 /dev/zero > small.bin"
    assert episode.run(f"{fix} && {nested} && {huge}").ok
    assert episode.left_out() == ["data.bin", "linked", "scratch"]
    diff = episode.diff()
    assert "+    return a + b\n" in diff and "small.bin" in diff
    assert "scratch" not in diff and "linked" not in diff and "data.bin" not in diff
    evaluation = evaluate(episode.task, episode)
    assert evaluation.resolved, evaluation.to_dict()
    assert {"data.bin", "linked", "scratch"} <= set(evaluation.dropped_paths)


def test_gold_answers_are_out_of_sight(pristine, env_cache, tmp_path):
    """Nothing outside the allow-list is there: not the task file, the upstream copy, nor execmem."""
    task_folder = tmp_path / "tasks"
    task_folder.mkdir()
    (task_folder / "tasks.jsonl").write_text("gold patches here")
    episode = prepare_episode(make_task(pristine), tmp_path / "ep", env_cache)
    package = Path(execmem.__file__).resolve().parent
    result = episode.run(f"cat {task_folder}/tasks.jsonl; ls {pristine} {package}; ls -A {tmp_path}")
    assert "gold patches" not in result.stdout
    assert f"cat: {task_folder}/tasks.jsonl: No such file or directory" in result.stderr
    for folder in (pristine, package):
        assert f"cannot access '{folder}': No such file or directory" in result.stderr
    assert result.stdout.split() == ["ep"]  # only the path down to this episode exists
    assert episode.run("python -c 'import pytest, calc; print(1)'").stdout == "1\n"  # the venv is still there


def test_base_commit_is_reproducible(pristine, env_cache, tmp_path):
    first = prepare_episode(make_task(pristine), tmp_path / "a", env_cache)
    second = prepare_episode(make_task(pristine), tmp_path / "b", env_cache)
    assert first.base_sha == second.base_sha and len(first.base_sha) == 40
    assert second.venv.reused


def test_test_patch_is_applied_at_evaluation(pristine, env_cache, tmp_path):
    task = make_task(pristine, test_patch=EXTRA_TEST, FAIL_TO_PASS=["tests/test_extra.py::test_add_zero"])
    episode = prepare_episode(task, tmp_path, env_cache)
    assert not (episode.repo / "tests" / "test_extra.py").exists()
    assert evaluate(episode.task, episode).outcomes["tests/test_extra.py::test_add_zero"] == "failed"
    episode.apply(task.patch)
    assert evaluate(episode.task, episode).resolved


def test_validate_task_accepts_good_and_rejects_broken_tasks(pristine, env_cache, tmp_path):
    check = validate_task(make_task(pristine), tmp_path, env_cache)
    assert check.ok and check.reason == "ok" and check.failing_before == 1 and check.gold_resolved
    no_fix = validate_task(
        make_task(pristine, source={"kind": "local", "path": str(pristine)}), tmp_path, env_cache
    )
    assert not no_fix.ok and no_fix.reason.startswith("FAIL_TO_PASS passes without the fix")
    wrong_p2p = make_task(pristine, PASS_TO_PASS=["tests/test_calc.py::test_missing"])
    assert validate_task(wrong_p2p, tmp_path, env_cache).reason.startswith(
        "PASS_TO_PASS fails before the fix"
    )


def test_validate_task_names_a_gold_run_whose_report_is_suspect(pristine, env_cache, tmp_path):
    # a second summary line, pytest's exit code kept
    echo_summary = pytest_command(["tests"]) + "; status=$?; echo '2 passed in 0.01s'; exit $status"
    check = validate_task(make_task(pristine, test_cmd=echo_summary), tmp_path, env_cache)
    assert not check.ok and check.failing_before == 1
    assert check.reason == "gold test run is suspect: pytest's output has 2 summary lines, expected one"


def test_git_source_exports_only_the_base_commit(pristine, env_cache, tmp_path):
    upstream = tmp_path / "upstream"
    subprocess.run(["cp", "-r", str(pristine), str(upstream)], check=True)
    (upstream / "calc" / "__init__.py").write_text(BUGGY)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(upstream)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "buggy"], check=True)
    base = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    (upstream / "calc" / "__init__.py").write_text(GOOD)
    subprocess.run([*git, "commit", "-qam", "the future fix"], check=True)
    task = make_task(pristine, base_commit=base, source={"kind": "git", "url": str(upstream)})
    episode = prepare_episode(task, tmp_path / "ep", env_cache)
    assert (episode.repo / "calc" / "__init__.py").read_text() == BUGGY
    log = episode.run("git log --all --oneline | wc -l; git log --all -p | grep -c 'a + b' || true").stdout
    assert log.split() == ["1", "0"]


def venv_recipe(repo: str, version: str, install: list[str]) -> CodingTask:
    """A venv recipe as tasks carry it (a CodingTask is one)."""
    return CodingTask.model_validate(task_record(repo=repo, version=version, install=install))


def test_environment_is_built_once_and_reused(tmp_path):
    cache = VenvCache(tmp_path / "envs")
    recipe = venv_recipe("local/x", "1", ["echo built >> builds.txt"])
    first, second = cache.get(recipe), cache.get(recipe)
    assert not first.reused and second.reused and first.path == second.path
    assert (first.path / "builds.txt").read_text() == "built\n"
    assert (first.bin_dir / "python").exists()
    assert cache.key(venv_recipe("local/x", "1", ["echo other"])) != cache.key(recipe)


def test_failed_environment_build_is_retried(tmp_path):
    cache = VenvCache(tmp_path / "envs")
    flag = tmp_path / "fail-once"
    flag.write_text("")
    recipe = venv_recipe("local/y", "1", [f"if [ -e {flag} ]; then rm {flag}; echo nope >&2; exit 3; fi"])
    with pytest.raises(VenvBuildError, match="nope"):
        cache.get(recipe)
    assert not cache.get(recipe).reused
