"""Wall time of one sandboxed command: median of ``true`` runs through the bubblewrap sandbox.

Usage: python benchmarks/sandbox_overhead.py [--runs 50] [--files 300]

The episode folder holds ``--files`` small files (about a small library's
checkout), so the cost of handing the folder to the sandbox user is included.
``plain`` is the same ``true`` through a bare subprocess (the floor); the
figure of interest is ``bubblewrap - plain``, the cost the sandbox adds to
every agent command.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from execmem.suites.coding.sandbox.bubblewrap import BubblewrapSandbox
from execmem.suites.coding.sandbox.local import UnsafeLocalSandbox


def make_folder(root: Path, files: int) -> Path:
    folder = root / "episode" / "repo"
    for index in range(files):
        path = folder / f"pkg{index % 10}" / f"mod{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {index}\n")
    return folder


def median_ms(box, folder: Path, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        result = box.run("true", folder, 30)
        samples.append((time.perf_counter() - start) * 1000)
        assert result.ok, result.stderr
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--files", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="execmem-bench-") as scratch:
        folder = make_folder(Path(scratch), args.files)
        plain = median_ms(UnsafeLocalSandbox(), folder, args.runs)
        sandboxed = median_ms(BubblewrapSandbox(), folder, args.runs)
    figures = {
        "runs": args.runs,
        "files": args.files,
        "plain_ms": round(plain, 2),
        "bubblewrap_ms": round(sandboxed, 2),
        "added_ms": round(sandboxed - plain, 2),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
