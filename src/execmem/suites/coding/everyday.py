"""The irrelevant control's text: everyday sentences with no software content, cut to a length.

The corpus (``data/everyday.txt``, written for execmem) holds one sentence a line. A target's
control text takes the sentences in an order fixed by the target alone (sorted by
sha256(target id, sentence number)), joined by single spaces, repeated when it runs short, and cut
to exactly the length asked for. So the control never depends on the seed or the condition run.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from execmem.core.hashing import file_sha256
from execmem.suites.coding.records import InjectedMemory

CORPUS_PATH = Path(__file__).resolve().parent / "data" / "everyday.txt"


@functools.cache
def everyday_sentences() -> tuple[str, ...]:
    """The corpus's sentences, in file order (comments and blank lines left out)."""
    lines = CORPUS_PATH.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def corpus_sha256() -> str:
    return file_sha256(CORPUS_PATH)


def everyday_memory(target_id: str, size: int) -> InjectedMemory:
    """``size`` characters of everyday sentences for ``target_id`` (None when ``size`` is 0)."""
    if size == 0:
        return InjectedMemory(None)
    sentences = everyday_sentences()
    order = sorted(
        range(len(sentences)),
        key=lambda i: hashlib.sha256(f"{target_id}\0{i}".encode()).hexdigest(),
    )
    used: list[int] = []
    text = ""
    while len(text) < size:
        index = order[len(used) % len(order)]
        text = f"{text} {sentences[index]}" if text else sentences[index]
        used.append(index)
    return InjectedMemory(text[:size], tuple(f"everyday:{i + 1}" for i in dict.fromkeys(used)))
