"""A folder as bytes and back: how a memory system's state travels between the machines of a run."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Callable
from pathlib import Path

Keep = Callable[[Path], bool]
"""Whether a path (relative to the folder packed) goes into the archive."""


def pack_folder(folder: Path, keep: Keep = lambda _path: True) -> bytes:
    """The files under ``folder`` that ``keep`` accepts (a folder refused is skipped whole), as an
    uncompressed tar (SQLite files barely compress; the time is better spent elsewhere)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for path in _walk(folder, folder, keep):
            archive.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buffer.getvalue()


def _walk(root: Path, folder: Path, keep: Keep) -> list[Path]:
    found = []
    for path in sorted(folder.iterdir()):
        if not keep(path.relative_to(root)):
            continue
        if path.is_dir() and not path.is_symlink():
            found += [path, *_walk(root, path, keep)]
        elif path.is_file():
            found.append(path)
    return found


def unpack_folder(data: bytes, folder: Path) -> Path:
    """Write an archive made by :func:`pack_folder` into ``folder`` (created); the folder. Only
    plain files and folders inside it are written (the ``data`` filter refuses links, devices and
    paths that leave the folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r") as archive:
        archive.extractall(folder, filter="data")
    return folder
