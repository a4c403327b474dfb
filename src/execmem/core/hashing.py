"""sha256 digests of files and text, in hex: the fingerprints runs and caches record."""

from __future__ import annotations

import hashlib
from pathlib import Path

_CHUNK = 1 << 20


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in chunks (a large file is never held in memory)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def text_sha256(text: str | bytes) -> str:
    """Hex sha256 of ``text`` (UTF-8 encoded when it is a string)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()
