"""Target anchors and what a text shares with them (docs/attribution.md, "Anchors").

``gold_anchors`` reads the target's gold patch as SIEVE's screen does (files, their directories,
cleaned identifiers): allowed because the attribution is an offline analysis whose output reaches no
solver, distiller or memory system. ``statement_anchors`` reads only the problem statement (leak-safe:
the gate's ``--anchors statement``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from execmem.suites.coding.anchoring import claims
from execmem.suites.coding.screen import patch_features

_GENERIC_BASENAMES = frozenset({"__init__.py"})


@dataclass(frozen=True)
class Anchors:
    """Files, directories (never the root) and lower-cased identifiers of a target."""

    files: frozenset[str]
    dirs: frozenset[str]
    identifiers: frozenset[str]
    source: str
    """``gold`` (the gold patch) or ``statement`` (the problem statement)."""


@dataclass(frozen=True)
class SharedAnchors:
    files: tuple[str, ...]
    dirs: tuple[str, ...]
    identifiers: tuple[str, ...]

    @property
    def any(self) -> bool:
        """A file, directory or identifier anchor: since a named file names its directory, this is
        also the gate's "directory or identifier anchor"."""
        return bool(self.files or self.dirs or self.identifiers)

    def to_dict(self) -> dict[str, Any]:
        return {"files": list(self.files), "dirs": list(self.dirs), "identifiers": list(self.identifiers)}


def gold_anchors(gold_patch: str) -> Anchors:
    features = patch_features(gold_patch)
    return Anchors(features.files, features.dirs - {"."}, features.identifiers, "gold")


def statement_anchors(statement: str, repo: str = "") -> Anchors:
    """Paths and identifier claims of the problem statement: a ``path::name`` claim gives both, a
    dotted name also its last part; the repository's own name (``pypi/toolz`` -> ``toolz``) is left
    out, since every record of the repository would name it."""
    paths: set[str] = set()
    names: set[str] = set()
    for claim in claims(statement):
        head, *rest = claim.split("::")
        (paths if is_path(head) else names).add(head)
        names.update(rest)
    names = {part.lower() for name in names for part in (name, name.rsplit(".", 1)[-1])}
    names -= {repo.rsplit("/", 1)[-1].lower()}
    dirs = {posixpath.dirname(p) for p in paths} - {"", "."}
    return Anchors(frozenset(paths), frozenset(dirs), frozenset(n for n in names if len(n) >= 3), "statement")


def is_path(claim: str) -> bool:
    return "/" in claim or bool(re.search(r"\.(py|pyi|cfg|toml|ini|txt|rst|md|json|yaml|yml|c|h)$", claim))


def names_file(text: str, path: str) -> bool:
    """The path, or its (not generic) base name as a path token, occurs in ``text``."""
    if path in text:
        return True
    base = posixpath.basename(path)
    return base not in _GENERIC_BASENAMES and bool(re.search(rf"(?<![\w.-]){re.escape(base)}(?![\w-])", text))


def names_dir(text: str, directory: str) -> bool:
    return bool(re.search(rf"(?<![\w.-]){re.escape(directory)}/", text))


_CODE_BEFORE = ("`", ".", "def ", "class ")
_CODE_AFTER = re.compile(r"[(`]|\.(?!pyi?\b)\w|\s*=(?!=)")


def names_identifier(text: str, identifier: str) -> bool:
    """A whole-word occurrence (case-insensitive) that reads as code: the name has ``_`` or a digit,
    or that occurrence is backquoted, dotted, called, defined or assigned (so the English words
    ``value`` or ``the`` name nothing unless written as code). A file name's part (``pkg/__init__.py``)
    is the file's, not an identifier's."""
    pattern = re.compile(rf"(?<![\w/-]){re.escape(identifier)}(?![\w-]|\.pyi?\b)", re.IGNORECASE)
    code_shaped = bool(re.search(r"[_\d]", identifier))
    for match in pattern.finditer(text):
        before, after = text[: match.start()], text[match.end() :]
        if code_shaped or before.endswith(_CODE_BEFORE) or _CODE_AFTER.match(after):
            return True
    return False


def shared_anchors(text: str, anchors: Anchors) -> SharedAnchors:
    """The target's anchors ``text`` names, each sorted."""
    files = sorted(f for f in anchors.files if names_file(text, f))
    named_dirs = {posixpath.dirname(f) for f in files} - {"", "."}
    dirs = sorted(d for d in anchors.dirs if d in named_dirs or names_dir(text, d))
    identifiers = sorted(i for i in anchors.identifiers if names_identifier(text, i))
    return SharedAnchors(tuple(files), tuple(dirs), tuple(identifiers))
