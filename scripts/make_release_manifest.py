"""Write the sha256 manifest of the VehicleMemBench release shipped inside execmem.

Usage: python scripts/make_release_manifest.py DATA_DIR [--out PATH]

DATA_DIR is a local copy of the release (it must hold ``history/history_N.txt`` and
``qa_data/qa_N.json`` for N = 1..50; other files are ignored). The manifest is what
``execmem data fetch`` and ``execmem data verify`` check downloads against, so it is
regenerated only when the pinned release changes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

COUNT = 50
SOURCE = {
    "repository": "isyuhaochen/VehicleMemBench",
    "commit": "5ef3c48",
    "github_archive": "https://github.com/isyuhaochen/VehicleMemBench/archive/5ef3c48.tar.gz",
    "archive_subdir": "benchmark",
    "hf_dataset": "callalilya/VehicleMemBench",
    "license": "Apache-2.0",
}
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src/execmem/suites/vehicle/data/release_manifest.json"


def release_files() -> list[str]:
    """The 100 release paths, relative to the data dir, in a stable order."""
    history = [f"history/history_{n}.txt" for n in range(1, COUNT + 1)]
    qa = [f"qa_data/qa_{n}.json" for n in range(1, COUNT + 1)]
    return history + qa


def sha256(path: Path) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def build(data_dir: Path) -> dict:
    """The manifest dict; exits with a message if a release file is missing."""
    missing = [rel for rel in release_files() if not (data_dir / rel).is_file()]
    if missing:
        sys.exit(f"{data_dir}: missing {len(missing)} release file(s), e.g. {missing[0]}")
    return {"files": {rel: sha256(data_dir / rel) for rel in release_files()}, "source": SOURCE}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path, help="local copy of the release")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="manifest to write")
    args = parser.parse_args()
    manifest = build(args.data_dir.resolve())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(manifest['files'])} hashes to {args.out}")


if __name__ == "__main__":
    main()
