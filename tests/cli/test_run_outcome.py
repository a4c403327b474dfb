"""A run that cannot finish says so: Ctrl-C keeps every finished episode and prints how to resume
(exit 130), a run ending with infrastructure errors exits 1 with the count, a resume says how many
episodes it kept."""

from __future__ import annotations

import signal
import subprocess
import time

from execmem.core.files import complete_records
from execmem.testing.fake_policies import HeldAfter, with_faults
from execmem.testing.fake_server import FakeServer
from execmem.testing.vehicle_oracle import OraclePolicy
from tests.cli.conftest import execmem, invoke


def _args(base_url: str, folder, scenarios: str) -> list[str]:
    return [
        "vehicle", "run", "--model", "fake", "--memory", "gold", "--base-url", base_url, "--scenarios",
        scenarios, "--out", str(folder), "--quiet", "--max-connections", "2", "--max-retries", "0",
    ]  # fmt: skip


def _wait_for_episodes(path, process, at_least: int) -> None:
    deadline = time.monotonic() + 60
    while not path.exists() or len(path.read_bytes().splitlines()) < at_least:
        assert time.monotonic() < deadline and process.poll() is None, "no episode finished in time"
        time.sleep(0.05)


def test_ctrl_c_keeps_finished_episodes_and_prints_the_resume_command(tmp_path, oracle):
    folder, held = tmp_path / "run", HeldAfter(oracle, 30)  # 3 requests an episode: 7 or more finish
    with FakeServer(held) as server:
        args = _args(server.base_url, folder, "1-3")
        process = execmem(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _wait_for_episodes(folder / "episodes.jsonl", process, 3)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)  # requests under way are abandoned, not waited for
        assert process.returncode == 130, err.decode()
        saved = complete_records(folder / "episodes.jsonl")
        message = err.decode().strip().splitlines()[-1]
        assert (
            message
            == f"interrupted: {len(saved)} of 30 episodes saved; resume with: execmem {' '.join(args)}"
        )
        assert "Traceback" not in err.decode() and 3 <= len(saved) < 30
        held.release()  # the server answers again: the resume runs the rest
        resumed = invoke(*args)
    assert resumed.exit_code == 0, resumed.output
    assert f"resuming {folder}: {len(saved)} of 30 episodes kept, {30 - len(saved)} to run" in resumed.stderr
    episodes = complete_records(folder / "episodes.jsonl")
    assert len(episodes) == 30 and len({e["id"] for e in episodes}) == 30


def test_run_with_infrastructure_errors_exits_1_and_says_how_to_resume(tmp_path, questions):
    folder = tmp_path / "run"
    faults = with_faults(OraclePolicy(questions), rate=0.2, seed=3, kinds=("500",))
    with FakeServer(faults) as server:
        args = _args(server.base_url, folder, "1-2")
        first = invoke(*args)
        failed = len({r["id"] for r in complete_records(folder / "infra_errors.jsonl")})
        assert failed > 0 and first.exit_code == 1, first.output
        last = first.stderr.strip().splitlines()[-1]
        assert last == (
            f"incomplete: {20 - failed} of 20 episodes finished; {failed} hit infrastructure errors "
            f"(see {folder}/infra_errors.jsonl); resume with: execmem {' '.join(args)}"
        )
    with FakeServer(OraclePolicy(questions)) as healthy:  # the endpoint is back: the resume completes
        again = invoke(*_args(healthy.base_url, folder, "1-2"))
    assert again.exit_code == 0, again.output
    assert f"{20 - failed} of 20 episodes kept, {failed} to run" in again.stderr
