"""vehicle compare pairs question sets: refuses different scenarios or incomplete runs unless
--intersect, shows field F1 and infrastructure errors, and fits 80 columns."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from execmem.testing.fake_server import FakeServer
from execmem.testing.vehicle_oracle import OraclePolicy
from tests.cli.conftest import assert_one_line_error, invoke
from tests.runs.conftest import run_vehicle


@pytest.fixture(scope="module")
def runs(tmp_path_factory, vehicle_data, questions) -> Path:
    root = tmp_path_factory.mktemp("compare")
    made = [
        ("vehicle-gold-a-long-model-name-v1", "gold", [1, 2], OraclePolicy(questions)),
        ("other-scenarios", "gold", [1, 3], OraclePolicy(questions)),
        ("vehicle-none-a-long-model-name-v1", "none", [1, 2], OraclePolicy(questions, mistakes=0.5, seed=2)),
    ]
    for name, memory, scenarios, policy in made:
        with FakeServer(policy) as server:
            run_vehicle(root / name, server.base_url, vehicle_data, memory=memory, scenarios=scenarios)
    return root


def _incomplete(runs: Path, tmp_path: Path) -> Path:
    """A copy of the 'none' run that lost two episodes (as after infrastructure errors)."""
    folder = Path(shutil.copytree(runs / "vehicle-none-a-long-model-name-v1", tmp_path / "partial"))
    lines = (folder / "episodes.jsonl").read_text().splitlines(keepends=True)
    (folder / "episodes.jsonl").write_text("".join(lines[2:]))
    lost = [json.loads(line)["id"] for line in lines[:2]]
    infra = [{"id": key, "error_kind": "infra", "reason": "HTTP 500"} for key in lost]
    (folder / "infra_errors.jsonl").write_text("".join(json.dumps(r) + "\n" for r in infra))
    return folder


def test_table_has_field_f1_and_infra_errors_and_fits_80_columns(runs):
    result = invoke(
        "vehicle",
        "compare",
        runs / "vehicle-gold-a-long-model-name-v1",
        runs / "vehicle-none-a-long-model-name-v1",
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, result.stdout
    text = result.stdout
    for header in ("field", "value", "tool", "infra", "Memory", "Mem"):
        assert header in text
    assert "20 questions, model fake" in text
    assert "vehicle-gold-a-lo" in text and "ng-model-name-v1" in text  # the folder name, wrapped


def test_json_rows_carry_field_f1_and_infra_errors(runs):
    result = invoke(
        "vehicle",
        "compare",
        runs / "vehicle-gold-a-long-model-name-v1",
        runs / "vehicle-none-a-long-model-name-v1",
        "--json",
    )
    gold, none = (json.loads(line) for line in result.stdout.splitlines())
    assert gold["field_f1"] == 1.0 and none["field_f1"] < 1.0
    assert gold["infra_errors"] == none["infra_errors"] == 0 and gold["missing"] == 0


def test_different_scenarios_are_refused(runs):
    result = invoke(
        "vehicle", "compare", runs / "vehicle-gold-a-long-model-name-v1", runs / "other-scenarios"
    )
    assert_one_line_error(
        result,
        "do not cover the same questions",
        "other-scenarios covers scenarios 1,3",
        "-v1 1-2",
        "--intersect",
    )


def test_incomplete_run_is_refused_unless_intersected(runs, tmp_path):
    partial = _incomplete(runs, tmp_path)
    gold = runs / "vehicle-gold-a-long-model-name-v1"
    assert_one_line_error(
        invoke("vehicle", "compare", gold, partial), f"{partial} misses 2 of 20 episodes (2 infra errors)"
    )
    paired = invoke("vehicle", "compare", gold, partial, "--intersect", "--json")
    assert paired.exit_code == 1  # a comparison on part of the questions is incomplete
    rows = [json.loads(line) for line in paired.stdout.splitlines()]
    assert [r["n"] for r in rows] == [18, 18] and rows[1]["infra_errors"] == 2
    assert rows[0]["esm"] == 1.0 and rows[1]["memory_score"] == rows[1]["esm"]
    assert paired.stderr.strip().startswith("incomplete: paired on 18 questions;")
    assert f"{partial} misses 2 episodes (2 infra errors)" in paired.stderr


def test_runs_with_the_same_folder_name_get_a_legend(runs, tmp_path):
    copy = Path(
        shutil.copytree(
            runs / "vehicle-gold-a-long-model-name-v1", tmp_path / "x" / "vehicle-gold-a-long-model-name-v1"
        )
    )
    result = invoke("vehicle", "compare", runs / "vehicle-gold-a-long-model-name-v1", copy)
    assert result.exit_code == 0 and f"R2: {copy}" in result.stdout.replace("\n", "")


def test_damaged_run_is_named(runs, tmp_path):
    folder = Path(shutil.copytree(runs / "vehicle-gold-a-long-model-name-v1", tmp_path / "damaged"))
    (folder / "config.json").write_text("{")
    assert_one_line_error(
        invoke("vehicle", "compare", folder, folder), f"{folder}/config.json: not readable JSON"
    )


def test_a_table_into_a_closed_pipe_exits_quietly(runs):
    """rich turns a closed pipe into exit 1 ("incomplete"); it must be 141, as for | head."""
    from tests.cli.conftest import execmem

    gold, none = runs / "vehicle-gold-a-long-model-name-v1", runs / "vehicle-none-a-long-model-name-v1"
    process = execmem("vehicle", "compare", gold, none, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader is gone before the first table
    stderr = process.stderr.read()
    process.wait(timeout=60)
    assert (process.returncode, stderr) == (141, b"")
