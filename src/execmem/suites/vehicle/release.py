"""The VehicleMemBench release: where it lives, how to fetch it, how to verify it.

The release is 100 files, ``history/history_N.txt`` and ``qa_data/qa_N.json`` for N = 1..50.
Their sha256 sums ship with execmem (``data/release_manifest.json``), so a copy from any
source (GitHub archive, Hugging Face, a mirror, a colleague's disk) is checked against the
exact release the suite was built for.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath
from tarfile import TarError, TarFile
from typing import BinaryIO

from execmem.core.hashing import file_sha256

GITHUB_REPO = "isyuhaochen/VehicleMemBench"
COMMIT = "5ef3c48"
GITHUB_URL = f"https://github.com/{GITHUB_REPO}/archive/{COMMIT}.tar.gz"
HF_REPO = "callalilya/VehicleMemBench"
SOURCES = ("auto", "github", "hf")
ENV_DATA = "EXECMEM_VEHICLE_DATA"
ENV_CACHE = "EXECMEM_CACHE"
CACHE_SUBDIR = "vehiclemembench"
RELEASE_DIRS = ("qa_data", "history")
MANIFEST_PATH = Path(__file__).parent / "data" / "release_manifest.json"

_HINT = "run `execmem data fetch vehicle` or pass --data DIR"
_OFFLINE = (
    "this machine seems offline: set EXECMEM_VEHICLE_DATA to a copy you already have (fetch then only "
    "verifies it; other commands also take --data DIR), or give --url"
)
_CHUNK = 1 << 20

Candidate = tuple[str, Callable[[], BinaryIO]]


class DataNotFound(Exception):
    """The release is not where execmem looked for it."""


class FetchError(Exception):
    """Fetching the release failed; nothing was installed."""


def _load_manifest() -> dict[str, str]:
    """Release path (``history/history_1.txt``) -> expected sha256, from the shipped manifest."""
    return json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))["files"]


MANIFEST: dict[str, str] = _load_manifest()


# --- where the release is -------------------------------------------------------------------


def _env_path(name: str) -> Path | None:
    """An absolute path from env var ``name`` (the user set it on purpose), or None if unset/empty."""
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser().resolve() if value else None


def cache_dir() -> Path:
    """Default install location: ``$EXECMEM_CACHE``, ``$XDG_CACHE_HOME/execmem`` or ``~/.cache/execmem``."""
    root = _env_path(ENV_CACHE)
    if root is None:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        # The XDG spec says relative values are invalid and must be ignored.
        root = Path(xdg) / "execmem" if os.path.isabs(xdg) else Path.home() / ".cache" / "execmem"
    return root / CACHE_SUBDIR


def _choose_data_dir(explicit: Path | None) -> tuple[Path, str]:
    """The directory to use and why it was chosen: flag, then env var, then the user cache."""
    if explicit is not None:
        return Path(explicit).expanduser().resolve(), "given with --data"
    from_env = _env_path(ENV_DATA)
    if from_env is not None:
        return from_env, f"from ${ENV_DATA}"
    return cache_dir(), f"the default cache, since neither --data nor ${ENV_DATA} is set"


def resolve_data_dir(explicit: Path | None = None) -> Path:
    """The release directory to read; raises DataNotFound saying where and why it looked."""
    path, why = _choose_data_dir(explicit)
    if not path.is_dir():
        reason = "the directory does not exist"
    else:
        missing = [f"{name}/" for name in RELEASE_DIRS if not (path / name).is_dir()]
        if not missing:
            return path
        reason = f"it has no {' or '.join(missing)}"
    raise DataNotFound(f"VehicleMemBench data not found in {path} ({why}): {reason}; {_HINT}")


# --- verifying ------------------------------------------------------------------------------


def verify(data_dir: Path) -> list[str]:
    """Problems with the release in ``data_dir`` (missing files, sha256 mismatches); [] when OK."""
    problems = []
    for rel, expected in MANIFEST.items():
        path = Path(data_dir) / rel
        if not path.is_file():
            problems.append(f"missing: {rel}")
        elif file_sha256(path) != expected:
            problems.append(f"sha256 mismatch: {rel}")
    return problems


def is_installed(data_dir: Path) -> bool:
    """True if ``data_dir`` holds a complete, verified release."""
    return Path(data_dir).is_dir() and not verify(data_dir)


# --- finding release files in an archive or a snapshot --------------------------------------


def release_key(parts: Iterable[str]) -> str | None:
    """``folder/file`` if a path ends in a release file (any depth), else None."""
    parts = tuple(parts)
    key = "/".join(parts[-2:])
    return key if len(parts) >= 2 and key in MANIFEST else None


def _is_safe_member(name: str) -> bool:
    """Reject absolute names, drive letters and ``..`` so nothing can land outside the target."""
    path = PurePosixPath(name.replace("\\", "/"))
    return not (path.is_absolute() or ".." in path.parts or PureWindowsPath(name).drive)


def _tar_candidates(tar: TarFile) -> Iterator[Candidate]:
    """Release files among the archive's safe regular members (links and others are skipped)."""
    for member in tar:
        if not member.isreg() or not _is_safe_member(member.name):
            continue
        key = release_key(PurePosixPath(member.name).parts)
        if key is not None:
            yield key, lambda m=member: tar.extractfile(m)


def _dir_candidates(root: Path) -> Iterator[Candidate]:
    """Release files anywhere under a downloaded snapshot directory."""
    for path in sorted(root.rglob("*")):
        key = release_key(path.relative_to(root).parts)
        if key is not None and path.is_file():
            yield key, lambda p=path: p.open("rb")


def _copy(source: BinaryIO, target: Path) -> str:
    """Copy a stream to ``target`` and return its sha256."""
    digest = hashlib.sha256()
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as out:
        for chunk in iter(lambda: source.read(_CHUNK), b""):
            digest.update(chunk)
            out.write(chunk)
    return digest.hexdigest()


def _collect(candidates: Iterable[Candidate], staging: Path) -> None:
    """Write each release file into ``staging``; if one appears twice, keep a copy that verifies."""
    matched: set[str] = set()
    for key, open_source in candidates:
        if key in matched:
            continue
        with open_source() as source:
            if _copy(source, staging / key) == MANIFEST[key]:
                matched.add(key)


def _check(staging: Path, origin: str) -> None:
    """Fail, naming the files, unless ``staging`` holds exactly the manifest's release."""
    problems = verify(staging)
    if problems:
        shown = ", ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
        raise FetchError(f"release from {origin} does not match the manifest: {shown}")


# --- downloading ----------------------------------------------------------------------------


def _describe(exc: BaseException) -> str:
    """``Type: message`` on one line."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _download_file(url: str, target: Path, timeout: float) -> None:
    """Stream ``url`` to ``target``, following redirects; network trouble becomes FetchError."""
    import httpx  # only to download: every other command reads the release without it

    try:
        with httpx.stream("GET", url, timeout=timeout, follow_redirects=True) as response:
            response.raise_for_status()
            with target.open("wb") as out:
                for chunk in response.iter_bytes(_CHUNK):
                    out.write(chunk)
    except httpx.HTTPStatusError as exc:
        raise FetchError(f"{url}: HTTP {exc.response.status_code}") from exc
    except (httpx.TimeoutException, httpx.NetworkError) as exc:
        raise FetchError(f"cannot download {url} ({_describe(exc)}): {_OFFLINE}") from exc
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise FetchError(f"cannot download {url}: {_describe(exc)}") from exc


def _from_github(staging: Path, work: Path, url: str, timeout: float) -> None:
    """Download the archive and extract only the release files (never ``extractall``)."""
    archive = work / "archive.tar.gz"
    _download_file(url, archive, timeout)
    try:
        with TarFile.open(archive, "r:gz") as tar:
            _collect(_tar_candidates(tar), staging)
    except (TarError, EOFError, zlib.error, OSError) as exc:  # gzip errors are OSErrors
        raise FetchError(f"cannot extract the archive from {url}: {_describe(exc)}") from exc
    _check(staging, url)


def _looks_offline(exc: BaseException) -> bool:
    """Whether an error (or its cause) from huggingface_hub is a connectivity problem."""
    import httpx

    network_types = (httpx.TransportError, ConnectionError, TimeoutError)
    markers = ("ConnectionError", "Timeout", "OfflineMode", "LocalEntryNotFound")
    seen: BaseException | None = exc
    while seen is not None:
        names = [cls.__name__ for cls in type(seen).__mro__]
        if isinstance(seen, network_types) or any(m in n for m in markers for n in names):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _hf_snapshot_download() -> Callable[..., str]:
    """``huggingface_hub.snapshot_download``, which is only installed with the ``hf`` extra."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:
        raise FetchError('the hf source needs huggingface_hub: pip install "execmem[hf]"') from exc
    return snapshot_download


def _from_hf(staging: Path, work: Path, timeout: float) -> None:
    """Snapshot the Hugging Face dataset into ``work`` and pick the release files out of it."""
    snapshot_download = _hf_snapshot_download()
    origin = f"Hugging Face dataset {HF_REPO}"
    try:
        root = snapshot_download(
            repo_id=HF_REPO,
            repo_type="dataset",
            local_dir=work / "hf",
            allow_patterns=["*history/history_*.txt", "*qa_data/qa_*.json"],
            etag_timeout=timeout,
        )
    except Exception as exc:  # huggingface_hub raises many unrelated types
        hint = f": {_OFFLINE}" if _looks_offline(exc) else ""
        raise FetchError(f"cannot download {origin} ({_describe(exc)}){hint}") from exc
    _collect(_dir_candidates(Path(root)), staging)
    _check(staging, origin)


def _download(work: Path, source: str, url: str, timeout: float) -> Path:
    """Fetch and verify into a staging dir under ``work``; ``auto`` tries github, then hf."""
    names = ("github", "hf") if source == "auto" else (source,)
    errors = []
    for name in names:
        staging = work / f"release-{name}"
        try:
            if name == "github":
                _from_github(staging, work, url, timeout)
            else:
                _from_hf(staging, work, timeout)
            return staging
        except FetchError as exc:
            errors.append(f"{name}: {exc}")
    if len(errors) == 1:
        raise FetchError(errors[0])
    raise FetchError("every source failed; " + "; ".join(errors))


# --- installing -----------------------------------------------------------------------------


def _install(staging: Path, dest: Path, work: Path) -> None:
    """Move the verified release into place: one rename for a new ``dest``, else swap its folders.

    Swapping only ``history/`` and ``qa_data/`` keeps any other files the user has in ``dest``.
    """
    if not dest.exists():
        staging.rename(dest)
        return
    for name in RELEASE_DIRS:
        current = dest / name
        if current.exists() or current.is_symlink():
            current.rename(work / f"old-{name}")
        (staging / name).rename(current)


def _make_workdir(dest: Path) -> Path:
    """A private temp dir beside ``dest`` (same filesystem, so the final rename is atomic)."""
    try:
        if dest.exists() and not dest.is_dir():
            raise FetchError(f"{dest} exists and is not a directory")
        dest.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{dest.name}.fetch-", dir=dest.parent))
    except OSError as exc:
        raise FetchError(f"cannot write next to {dest}: {_describe(exc)}") from exc


def fetch(dest: Path, source: str = "auto", url: str | None = None, timeout: float = 60) -> Path:
    """Download, verify and install the release into ``dest``; returns the absolute ``dest``.

    Everything happens in a temp dir beside ``dest``, so a failed fetch leaves ``dest`` as it was.
    ``url`` replaces the GitHub archive URL (a mirror, or a local server in tests).
    """
    if source not in SOURCES:
        raise FetchError(f"unknown source {source!r}; choose one of {', '.join(SOURCES)}")
    if url is not None and source == "hf":
        raise FetchError("--url replaces the GitHub archive; it cannot be used with --source hf")
    dest = Path(dest).expanduser().resolve()
    work = _make_workdir(dest)
    try:
        staging = _download(work, source, url or GITHUB_URL, timeout)
        _install(staging, dest, work)
    except OSError as exc:
        raise FetchError(f"cannot install the release into {dest}: {_describe(exc)}") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest
