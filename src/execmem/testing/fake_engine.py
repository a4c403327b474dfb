"""A fake container engine: ``docker``/``podman`` on PATH for tests on machines without one.

``run`` executes the container's command on the host, in the ``-w`` folder, with only the ``-e``
variables (as the container would see them), after checking that every ``-v`` mount names an
existing folder at its own path; ``image inspect`` knows only the images it was installed with;
``kill`` does nothing (the sandbox kills the whole process group at its time limit). Every call
is logged as one JSON line. It isolates nothing: it tests how the docker sandbox is wired, not
what a container stops. ``install(folder, images, log)`` writes the executable.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import execmem

_VALUED = {"--name", "--network", "--user", "-w", "-e", "-v", "--pids-limit", "--ulimit", "--tmpfs"}


def install(folder: Path, images: Sequence[str], log: Path, name: str = "docker") -> Path:
    """Write an executable ``folder/name`` that behaves as this engine knowing ``images``."""
    folder.mkdir(parents=True, exist_ok=True)
    source = Path(execmem.__file__).resolve().parents[1]
    script = folder / name
    script.write_text(
        "#!/bin/sh\n"
        f"PYTHONPATH={source} exec {sys.executable} -m execmem.testing.fake_engine "
        f'{",".join(images)} {log} "$@"\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


def main(argv: Sequence[str]) -> int:
    images, log, command = argv[0].split(","), Path(argv[1]), list(argv[2:])
    with log.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(command) + "\n")
    if command[:2] == ["image", "inspect"]:
        if command[2] in images:
            return 0
        print(f"Error: No such image: {command[2]}", file=sys.stderr)
        return 1
    if command[:1] == ["run"]:
        return run(command[1:], images)
    return 0  # kill: the caller kills the process group itself


def run(args: list[str], images: list[str]) -> int:
    """``run [flags] IMAGE CMD...``: CMD on the host, in ``-w``, with the ``-e`` variables only."""
    env: dict[str, str] = {}
    workdir = "/"
    while args[0].startswith("-"):
        flag = args.pop(0)
        value = args.pop(0) if flag in _VALUED else None
        if flag == "-e":
            key, _, text = value.partition("=")
            env[key] = text
        elif flag == "-w":
            workdir = value
        elif flag == "-v" and not _own_path_mount(value):
            print(f"Error: invalid mount {value}", file=sys.stderr)
            return 125
    if args.pop(0) not in images:
        print("Error: image not found", file=sys.stderr)
        return 125
    return subprocess.run(args, cwd=workdir, env=env, check=False).returncode


def _own_path_mount(spec: str) -> bool:
    source, target = spec.split(":")[:2]
    return source == target and os.path.isdir(source)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
