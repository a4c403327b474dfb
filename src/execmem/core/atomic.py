"""Files that appear whole or not at all.

The text goes to a hidden temporary file beside the target, is flushed to disk, and is renamed
over the target only when writing succeeded: an error or a kill midway leaves an existing file
exactly as it was (never half written, never emptied) and no temporary file behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO


@contextlib.contextmanager
def atomic_write(path: Path) -> Iterator[TextIO]:
    """A text handle whose content replaces ``path`` when the block ends without an exception."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
