"""Source distributions from PyPI by exact version, checked against a recorded sha256 and cached.

Downloads go through pip itself (``pip download --no-binary :all:`` with
``--require-hashes``), so the registry is used through its ordinary client and
pip refuses a file whose hash differs before it runs any of its code.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from execmem.core.hashing import file_sha256


class SdistError(RuntimeError):
    """An sdist that cannot be had or does not match its recorded hash."""


def fetch_sdist(package: str, version: str, sha256: str | None, cache_dir: Path) -> Path:
    """The cached sdist of ``package==version``, downloaded once; verified when ``sha256`` is given."""
    folder = cache_dir / "sdists" / f"{package}-{version}"
    cached = sorted(folder.glob("*.tar.gz")) + sorted(folder.glob("*.zip"))
    if cached and (sha256 is None or file_sha256(cached[0]) == sha256):
        return cached[0]
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        downloaded = _pip_download(package, version, sha256, Path(scratch))
        target = folder / downloaded.name
        shutil.move(downloaded, target)
    if sha256 is not None and file_sha256(target) != sha256:
        target.unlink()
        raise SdistError(f"{package}=={version}: sha256 mismatch (expected {sha256})")
    return target


def _pip_download(package: str, version: str, sha256: str | None, dest: Path) -> Path:
    requirement = f"{package}=={version}" + (f" --hash=sha256:{sha256}" if sha256 else "")
    requirements = dest / "requirements.txt"
    requirements.write_text(requirement + "\n", encoding="utf-8")
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--quiet"]
    argv += ["--dest", str(dest), "-r", str(requirements)]
    if sha256:
        argv.append("--require-hashes")
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    files = [path for path in dest.iterdir() if path.name != "requirements.txt"]
    if done.returncode != 0 or len(files) != 1:
        raise SdistError(f"pip download {package}=={version} failed: {done.stderr.strip()[-2000:]}")
    return files[0]


def unpack_sdist(archive: Path, dest: Path) -> None:
    """Unpack an sdist so that its top folder's contents land directly in ``dest``."""
    with tempfile.TemporaryDirectory(dir=dest.parent, ignore_cleanup_errors=True) as scratch:
        scratch_dir = Path(scratch)
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(scratch_dir)
        else:
            with tarfile.open(archive) as tar:
                tar.extractall(scratch_dir, filter="data")
        entries = list(scratch_dir.iterdir())
        top = entries[0] if len(entries) == 1 and entries[0].is_dir() else scratch_dir
        shutil.move(str(top), str(dest))
