"""The git plumbing behind episodes: a one-commit base, diffs against it, patches and clean exports.

Git runs with the user's global and system config ignored and fixed author
dates, so the same tree always gives the same base commit id.
"""

from __future__ import annotations

import io
import os
import stat
import subprocess
import tarfile
from collections.abc import Sequence
from pathlib import Path

_CONFIG = [
    "-c", "core.autocrlf=false",
    "-c", "core.fileMode=true",
    "-c", "core.quotePath=false",
    "-c", "user.name=execmem",
    "-c", "user.email=execmem@localhost",
    "-c", "commit.gpgSign=false",
    "-c", "init.defaultBranch=main",
    "-c", "safe.directory=*",  # episode folders belong to the sandbox user; their .git is ours
]  # fmt: skip
_FIXED_DATE = "2000-01-01T00:00:00+0000"
IGNORED = (
    "__pycache__/",
    "*.pyc",
    ".pytest_cache/",
    ".hypothesis/",
    ".coverage",
    ".coverage.*",
    ".execmem-*",
)


class GitError(RuntimeError):
    """A git command failed; the message has its stderr."""


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0")
    env.update(GIT_AUTHOR_DATE=_FIXED_DATE, GIT_COMMITTER_DATE=_FIXED_DATE)
    env.update(extra or {})
    return env


def git(repo: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> bytes:
    """Run ``git -C repo ARGS``; raise ``GitError`` on failure, return stdout."""
    done = subprocess.run(
        ["git", "-C", str(repo), *_CONFIG, *args],
        input=stdin,
        capture_output=True,
        env=_env(env),
        check=False,
    )
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip()
        raise GitError(f"git {' '.join(args[:2])} failed in {repo}: {message}")
    return done.stdout


def init_base(repo: Path, message: str = "base") -> str:
    """Make ``repo`` a one-commit repository holding every file (even gitignored ones); return its id."""
    git(repo, "init", "-q")
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.write_text("\n".join(IGNORED) + "\n", encoding="utf-8")
    git(repo, "add", "--all", "--force")
    git(repo, "commit", "-q", "--allow-empty", "--no-verify", "-m", message)
    return git(repo, "rev-parse", "HEAD").decode().strip()


MAX_DIFFED_BYTES = 8 * 1024 * 1024
"""Files larger than this are left out of a diff: no source change is that large, and diffing one
costs the harness memory and minutes (a 200 MB file took 875 MB and 86 s to score)."""


def left_out_of_diff(repo: Path) -> list[str]:
    """What ``diff_against`` leaves out of the working tree: folders holding a repository of their
    own (``git init sub``: git cannot add them) and files over ``MAX_DIFFED_BYTES``."""
    found: list[str] = []
    for folder, dirs, files in os.walk(repo):
        here = Path(folder)
        if here == repo:
            dirs[:] = [name for name in dirs if name != ".git"]
        elif ".git" in dirs or ".git" in files:
            found.append(here.relative_to(repo).as_posix())
            dirs[:] = []  # git does not look inside another repository
            continue
        for name in files:
            info = (here / name).lstat()
            if stat.S_ISREG(info.st_mode) and info.st_size > MAX_DIFFED_BYTES:
                found.append((here / name).relative_to(repo).as_posix())
    return sorted(found)


def diff_against(
    repo: Path, base: str, index_file: Path, binary: bool = False, exclude: Sequence[str] = ()
) -> str:
    """Unified diff from ``base`` to the working tree, new files included, via a private index;
    ``exclude`` (paths) stay as in ``base``.

    Python files get git's built-in ``python`` hunk-header rule (the nearest ``def``/``class`` above
    the hunk, indented ones included), so a patch names the method it changes, not just its class;
    the header is text only, ``git apply`` ignores it."""
    env = {"GIT_INDEX_FILE": str(index_file)}
    attributes = index_file.parent / "attributes"
    attributes.parent.mkdir(parents=True, exist_ok=True)
    attributes.write_text("*.py diff=python\n", encoding="utf-8")
    git(repo, "read-tree", base, env=env)
    git(repo, "add", "--all", "--", ".", *[f":(exclude,literal){path}" for path in exclude], env=env)
    flags = ["--binary"] if binary else []
    config = ["-c", f"core.attributesFile={attributes}"]
    command = [*config, "diff", "--cached", "--no-color", "--no-ext-diff", *flags, base]
    return git(repo, *command, env=env).decode("utf-8", errors="replace")


def apply_patch(repo: Path, patch: str, reverse: bool = False, exclude: Sequence[str] = ()) -> None:
    """Apply a unified diff to the working tree of ``repo`` (a git repository); no-op when empty."""
    if not patch.strip():
        return
    flags = ["-R"] if reverse else []
    flags += [f"--exclude={path}" for path in exclude]
    git(repo, "apply", "--whitespace=nowarn", *flags, "-", stdin=patch.encode("utf-8"))


def export_tree(repo: Path, commit: str, dest: Path) -> None:
    """Write the files of ``commit`` into ``dest`` (no history)."""
    archive = git(repo, "archive", "--format=tar", commit)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")


def changed_paths(patch: str) -> list[str]:
    """The files a unified diff touches (both sides of renames), binary files included."""
    paths: list[str] = []
    for line in patch.splitlines():
        for path in _paths_of(line):
            if path not in paths:
                paths.append(path)
    return paths


def _paths_of(line: str) -> list[str]:
    if line.startswith(("--- a/", "+++ b/")):
        return [line[6:].split("\t")[0]]
    for prefix in ("rename from ", "rename to ", "copy from ", "copy to "):
        if line.startswith(prefix):
            return [line[len(prefix) :]]
    if line.startswith("diff --git a/"):  # "a/P b/P" when not renamed (binary patches have no ---/+++)
        sides = line[len("diff --git ") :]
        half = (len(sides) - 5) // 2
        if len(sides) % 2 == 1 and sides[2 : 2 + half] == sides[half + 5 :]:
            return [sides[2 : 2 + half]]
    return []
