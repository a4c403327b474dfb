"""Locating, fetching and verifying the VehicleMemBench release, with no real network.

Archives laid out like GitHub's are built from the local copy and served by a real
``http.server`` on 127.0.0.1; the Hugging Face source is always stubbed.
"""

from __future__ import annotations

import gzip
import io
import shutil
import socket
import sys
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from execmem.cli.main import app
from execmem.suites.vehicle import release
from execmem.suites.vehicle.release import DataNotFound, FetchError

TOP = "VehicleMemBench-5ef3c48a1b2c3d4e5f60718293a4b5c6d7e8f901"
TAMPERED = "qa_data/qa_7.json"
REAL_HF_IMPORT = release._hf_snapshot_download
runner = CliRunner()


# --- fixtures: archives, a local HTTP server, a clean environment ---------------------------


def _tar_gz(members: list[tuple[str, bytes]]) -> bytes:
    """A tar.gz holding ``members`` as regular files (fast compression: tests only)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, content in members:
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return gzip.compress(raw.getvalue(), compresslevel=1)


@pytest.fixture(scope="module")
def release_members(vehicle_data: Path) -> list[tuple[str, bytes]]:
    """The release files plus unrelated ones, at GitHub-archive paths."""
    members = [(f"{TOP}/README.md", b"# VehicleMemBench\n"), (f"{TOP}/environment/car.py", b"pass\n")]
    members += [(f"{TOP}/benchmark/{rel}", (vehicle_data / rel).read_bytes()) for rel in release.MANIFEST]
    members.append((f"{TOP}/benchmark/notes/history_1.txt", b"not in a history/ folder\n"))
    return members


class _Handler(BaseHTTPRequestHandler):
    """Serves ``server.files`` by path; ``/redirect`` points at ``/good.tar.gz``."""

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/good.tar.gz")
            self.end_headers()
            return
        body = self.server.files.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")

    def log_message(self, *args: object) -> None:
        """Keep test output quiet."""


@pytest.fixture(scope="module")
def server(release_members: list[tuple[str, bytes]]) -> Iterator[ThreadingHTTPServer]:
    """A real HTTP server on 127.0.0.1 in a background thread, serving ``/good.tar.gz``."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.files = {"/good.tar.gz": _tar_gz(release_members)}
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _url(httpd: ThreadingHTTPServer, path: str) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}{path}"


def _serve(httpd: ThreadingHTTPServer, path: str, members: list[tuple[str, bytes]]) -> str:
    httpd.files[path] = _tar_gz(members)
    return _url(httpd, path)


@pytest.fixture
def unused_port_url() -> str:
    """A URL on a local port nobody listens on, so connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/archive.tar.gz"


def _no_hf() -> None:
    raise FetchError("hf is disabled in tests")


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No data env var, a private cache, and never a real Hugging Face download."""
    monkeypatch.delenv(release.ENV_DATA, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv(release.ENV_CACHE, str(tmp_path / "cache"))
    monkeypatch.setattr(release, "_hf_snapshot_download", _no_hf)
    return tmp_path / "cache"


def _release_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _leftovers(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if ".fetch-" in p.name]


# --- manifest and verify --------------------------------------------------------------------


def test_manifest_covers_the_release_and_matches_the_local_copy(vehicle_data: Path) -> None:
    assert len(release.MANIFEST) == 100
    assert {rel.split("/")[0] for rel in release.MANIFEST} == {"history", "qa_data"}
    assert release.verify(vehicle_data) == []


def test_verify_names_missing_and_changed_files(vehicle_data: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    for rel in release.MANIFEST:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).symlink_to(vehicle_data / rel)
    (copy / "history/history_3.txt").unlink()
    (copy / "qa_data/qa_9.json").unlink()
    (copy / "qa_data/qa_9.json").write_text("{}")
    assert release.verify(copy) == ["missing: history/history_3.txt", "sha256 mismatch: qa_data/qa_9.json"]


# --- fetch ----------------------------------------------------------------------------------


def test_fetch_from_url_installs_all_files(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    dest = tmp_path / "release"
    assert release.fetch(dest, source="github", url=_url(server, "/good.tar.gz")) == dest
    assert _release_files(dest) == set(release.MANIFEST)
    assert release.verify(dest) == []
    assert _leftovers(tmp_path) == []


def test_fetch_follows_redirects(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    dest = release.fetch(tmp_path / "release", source="github", url=_url(server, "/redirect"))
    assert release.is_installed(dest)


def test_tampered_file_fails_by_name_and_leaves_no_dest(
    server: ThreadingHTTPServer, release_members: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    members = [
        (name, bytes([content[0] ^ 1]) + content[1:] if name.endswith(TAMPERED) else content)
        for name, content in release_members
    ]
    url = _serve(server, "/tampered.tar.gz", members)
    dest = tmp_path / "release"
    with pytest.raises(FetchError, match=f"sha256 mismatch: {TAMPERED}") as caught:
        release.fetch(dest, source="github", url=url)
    assert "qa_data/qa_1.json" not in str(caught.value)
    assert not dest.exists()
    assert _leftovers(tmp_path) == []


def test_failed_fetch_keeps_an_existing_dest(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    dest = tmp_path / "release"
    (dest / "history").mkdir(parents=True)
    (dest / "history" / "mine.txt").write_text("keep me")
    url = _serve(server, "/incomplete.tar.gz", [(f"{TOP}/benchmark/history/history_1.txt", b"x")])
    with pytest.raises(FetchError, match="missing: "):
        release.fetch(dest, source="github", url=url)
    assert _release_files(dest) == {"history/mine.txt"}


def test_unsafe_members_are_never_written(
    server: ThreadingHTTPServer, release_members: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    outside = tmp_path / "abs_evil"
    evil = [("../evil", b"x"), (f"{TOP}/../../evil2", b"x"), (str(outside), b"x")]
    evil.append(("../history/history_1.txt", b"evil history"))
    url = _serve(server, "/evil.tar.gz", evil + release_members)
    dest = release.fetch(tmp_path / "deep" / "release", source="github", url=url)
    assert release.verify(dest) == []
    assert not outside.exists()
    assert list(tmp_path.parent.rglob("*evil*")) == []


def test_unsafe_member_is_refused_even_with_the_right_content(
    server: ThreadingHTTPServer, release_members: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    moved = [
        (name.replace(TOP, "..") if name.endswith("/history_1.txt") else name, c)
        for name, c in release_members
    ]
    url = _serve(server, "/moved.tar.gz", moved)
    with pytest.raises(FetchError, match="missing: history/history_1.txt"):
        release.fetch(tmp_path / "release", source="github", url=url)


def test_connection_refused_says_offline(unused_port_url: str, tmp_path: Path) -> None:
    dest = tmp_path / "release"
    with pytest.raises(FetchError) as caught:
        release.fetch(dest, source="github", url=unused_port_url, timeout=5)
    message = str(caught.value)
    assert (
        "seems offline" in message and "set EXECMEM_VEHICLE_DATA to a copy" in message and "\n" not in message
    )
    assert not dest.exists()


def test_http_error_status_is_reported(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="HTTP 404"):
        release.fetch(tmp_path / "release", source="github", url=_url(server, "/missing.tar.gz"))


def test_auto_reports_both_failures(
    unused_port_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(release, "_hf_snapshot_download", REAL_HF_IMPORT)
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # makes the import fail
    with pytest.raises(FetchError) as caught:
        release.fetch(tmp_path / "release", url=unused_port_url, timeout=5)
    message = str(caught.value)
    assert "github: " in message and "seems offline" in message
    assert "hf: " in message and 'pip install "execmem[hf]"' in message


def test_hf_source_picks_files_out_of_the_snapshot(
    vehicle_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def fake_snapshot_download(**kwargs: object) -> str:
        calls.append(kwargs)
        root = Path(kwargs["local_dir"])
        for rel in release.MANIFEST:
            (root / "benchmark" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(vehicle_data / rel, root / "benchmark" / rel)
        (root / "README.md").write_text("card")
        return str(root)

    monkeypatch.setattr(release, "_hf_snapshot_download", lambda: fake_snapshot_download)
    dest = release.fetch(tmp_path / "release", source="hf")
    assert _release_files(dest) == set(release.MANIFEST)
    assert calls[0]["repo_id"] == "callalilya/VehicleMemBench" and calls[0]["repo_type"] == "dataset"


# --- resolve_data_dir -----------------------------------------------------------------------


def _fake_release(path: Path) -> Path:
    for name in ("history", "qa_data"):
        (path / name).mkdir(parents=True)
    return path


def test_resolve_precedence_flag_env_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: Path
) -> None:
    flag, env = _fake_release(tmp_path / "flag"), _fake_release(tmp_path / "env")
    cache = _fake_release(clean_env / "vehiclemembench")
    monkeypatch.setenv(release.ENV_DATA, str(env))
    assert release.resolve_data_dir(flag) == flag
    assert release.resolve_data_dir(None) == env
    monkeypatch.delenv(release.ENV_DATA)
    assert release.resolve_data_dir(None) == cache


def test_relative_flag_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_release(tmp_path / "here")
    monkeypatch.chdir(tmp_path)
    assert release.resolve_data_dir(Path("here")) == tmp_path / "here"


def test_cache_location_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(release.ENV_CACHE)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert release.cache_dir() == tmp_path / "home/.cache/execmem/vehiclemembench"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert release.cache_dir() == tmp_path / "xdg/execmem/vehiclemembench"


def test_current_directory_is_never_used_implicitly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_env: Path
) -> None:
    monkeypatch.chdir(_fake_release(tmp_path / "cwd"))
    with pytest.raises(DataNotFound) as caught:
        release.resolve_data_dir(None)
    message = str(caught.value)
    assert str(clean_env / "vehiclemembench") in message and "default cache" in message
    assert "execmem data fetch vehicle" in message and "--data" in message


def test_data_not_found_says_where_and_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "half" / "qa_data").mkdir(parents=True)
    with pytest.raises(DataNotFound, match=r"half \(given with --data\): it has no history/"):
        release.resolve_data_dir(tmp_path / "half")
    monkeypatch.setenv(release.ENV_DATA, str(tmp_path / "nowhere"))
    with pytest.raises(
        DataNotFound, match=r"nowhere \(from \$EXECMEM_VEHICLE_DATA\): the directory does not"
    ):
        release.resolve_data_dir(None)


# --- CLI ------------------------------------------------------------------------------------


def test_cli_fetch_then_keep_then_force(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    dest, url = tmp_path / "release", _url(server, "/good.tar.gz")
    args = ["data", "fetch", "vehicle", "--dest", str(dest), "--url", url, "--source", "github"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "installed 100 verified files" in first.stdout
    (dest / "history" / "mine.txt").write_text("kept across --force")
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "already present and verified" in again.stdout
    forced = runner.invoke(app, [*args, "--force"])
    assert forced.exit_code == 0 and "installed" in forced.stdout
    assert release.verify(dest) == []


def test_cli_fetch_defaults_to_the_cache(server: ThreadingHTTPServer, clean_env: Path) -> None:
    result = runner.invoke(app, ["data", "fetch", "vehicle", "--url", _url(server, "/good.tar.gz")])
    assert result.exit_code == 0, result.output
    assert release.is_installed(clean_env / "vehiclemembench")


def test_cli_fetch_offline_is_one_line_without_traceback(unused_port_url: str, tmp_path: Path) -> None:
    args = ["data", "fetch", "vehicle", "--dest", str(tmp_path / "r"), "--url", unused_port_url]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "seems offline" in errors[0]
    assert "Traceback" not in result.output


def test_cli_verify_ok_and_problems(vehicle_data: Path, server: ThreadingHTTPServer, tmp_path: Path) -> None:
    ok = runner.invoke(app, ["data", "verify", "vehicle", "--data", str(vehicle_data)])
    assert ok.exit_code == 0 and ok.stdout.startswith("OK")
    dest = release.fetch(tmp_path / "release", source="github", url=_url(server, "/good.tar.gz"))
    (dest / "history" / "history_3.txt").write_text("changed")
    bad = runner.invoke(app, ["data", "verify", "vehicle", "--data", str(dest)])
    assert bad.exit_code == 1 and "sha256 mismatch: history/history_3.txt" in bad.stdout


def test_cli_verify_without_data_explains(clean_env: Path) -> None:
    result = runner.invoke(app, ["data", "verify", "vehicle"])
    assert result.exit_code == 2  # bad input, as for every command (docs/cli.md)
    assert "execmem data fetch vehicle" in result.stderr and str(clean_env) in result.stderr


@pytest.mark.parametrize("command", ["fetch", "verify"])
def test_cli_rejects_unknown_suite(command: str) -> None:
    result = runner.invoke(app, ["data", command, "locomo"])
    assert result.exit_code == 2 and "unknown suite 'locomo'" in result.stderr


def test_cli_fetch_keeps_a_verified_configured_copy(
    vehicle_data: Path, unused_port_url: str, clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXECMEM_VEHICLE_DATA", str(vehicle_data))
    result = runner.invoke(app, ["data", "fetch", "vehicle", "--url", unused_port_url])
    assert result.exit_code == 0, result.output
    assert "nothing to fetch" in result.stdout
    assert not (clean_env / "vehiclemembench").exists()
    monkeypatch.setenv("EXECMEM_VEHICLE_DATA", str(clean_env / "missing"))
    offline = runner.invoke(app, ["data", "fetch", "vehicle", "--url", unused_port_url])
    assert offline.exit_code == 1 and "seems offline" in offline.stderr


def test_cli_fetch_refuses_a_file_as_destination(clean_env: Path) -> None:
    clean_env.mkdir()
    blocker = clean_env / "occupied"
    blocker.write_text("keep me")
    result = runner.invoke(app, ["data", "fetch", "vehicle", "--dest", str(blocker)])
    assert result.exit_code == 2 and f"--dest {blocker} is a file; give a folder" in result.stderr
    assert blocker.read_text() == "keep me"
