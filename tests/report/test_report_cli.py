"""`execmem report` from the command line: runs still going or stopped, bad input, tables documents,
--open, the missing extra, and the file's size for 5 runs of 500 episodes."""

from __future__ import annotations

import json
import shutil
import webbrowser
from pathlib import Path

from execmem.report.packing import pack, unpack
from execmem.runs.episode_log import lock_folder, unlock_folder
from execmem.suites.vehicle.aggregate import summarize
from tests.cli.conftest import assert_one_line_error, invoke
from tests.cli.test_lazy_groups import loaded_after
from tests.conftest import read_jsonl
from tests.report.synthetic import synthetic_run

TABLES = {
    "format": "execmem-coding-tables/1",
    "tables": [
        {
            "id": "layer-a",
            "title": "Layer A: SIEVE attribution",
            "columns": ["component", "share", "n", "note"],
            "rows": [["records", 0.6125, 48, None], ["length", 0.125, 48, {"ci": [0.1, 0.2]}]],
            "notes": ["shares of the uplift"],
            "chart": {"kind": "bars", "x": "component", "y": "share", "answers": "What made the uplift?"},
        }
    ],
}


def cut_run(source: Path, target: Path, keep: int) -> Path:
    """A copy of ``source`` stopped after ``keep`` episodes: no metrics.json yet."""
    shutil.copytree(source, target)
    (target / "metrics.json").unlink()
    lines = (target / "episodes.jsonl").read_text().splitlines(keepends=True)
    (target / "episodes.jsonl").write_text("".join(lines[:keep]))
    return target


def leaderboard_esm(html: str, run: str) -> str:
    row = html.split(f'<tr data-run="{run}">', 1)[1]
    return row.split('data-key="esm">', 1)[1].split("<", 1)[0]


def test_a_stopped_run_is_shown_as_far_as_it_got(reader_runs, tmp_path):
    run = cut_run(reader_runs["bm25"], tmp_path / "bm25-cut", keep=15)
    out = tmp_path / "report.html"
    result = invoke("report", run, "-o", out)
    assert result.exit_code == 1, result.output
    assert "incomplete: bm25-cut: unfinished: 15 of 20 episodes" in result.stderr
    html = out.read_text(encoding="utf-8")
    assert "Incomplete report." in html and "unfinished: 15 of 20 episodes" in html
    expected = summarize(read_jsonl(run / "episodes.jsonl"))["overall"]["exact_match"]
    assert leaderboard_esm(html, "bm25-cut") == f"{expected:.3f}"


def test_a_run_being_written_is_in_progress(reader_runs, tmp_path):
    run = shutil.copytree(reader_runs["gold"], tmp_path / "gold-live")
    lock_folder(run)  # as a running `vehicle run` holds it
    try:
        result = invoke("report", run, "-o", tmp_path / "report.html")
    finally:
        unlock_folder(run)
    assert result.exit_code == 1 and "in progress: 20 of 20 episodes" in result.stderr


def test_bad_inputs_get_one_error_line(reader_runs, tmp_path):
    missing = tmp_path / "nowhere"
    assert_one_line_error(invoke("report", missing, "-o", tmp_path / "r.html"), str(missing), "no such file")
    (tmp_path / "empty").mkdir()
    found = invoke("report", tmp_path / "empty", "-o", tmp_path / "r.html")
    assert_one_line_error(found, "empty", "not a vehicle run")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"tables": [{**TABLES["tables"][0], "rows": [[1, 2]]}]}))
    found = invoke("report", "--tables", bad, "-o", tmp_path / "r.html")
    assert_one_line_error(found, "bad.json", "tables.0", "row 0 has 2 cells for 4 columns")
    assert_one_line_error(invoke("report", reader_runs["gold"], "-o", tmp_path), "--out", "is a directory")
    assert_one_line_error(
        invoke("report", "--audit", tmp_path / "empty", "-o", tmp_path / "r.html"), "audit.json"
    )
    assert not (tmp_path / "r.html").exists()


def test_the_missing_extra_names_its_pip_install(reader_runs, tmp_path, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "vl_convert", None)  # as if not installed
    found = invoke("report", reader_runs["gold"], "-o", tmp_path / "r.html")
    assert_one_line_error(found, 'pip install "execmem[report]"')


def test_tables_documents_are_drawn_as_they_come(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    document = tmp_path / "layer_a.json"
    document.write_text(json.dumps(TABLES))
    out = tmp_path / "tables.html"
    result = invoke("report", document, "-o", out, "--open")
    assert result.exit_code == 0, result.output
    assert opened == [out.resolve().as_uri()]
    html = out.read_text(encoding="utf-8")
    assert 'data-table="layer-a"' in html and "Layer A: SIEVE attribution" in html
    for cell in (
        "<td>0.6125</td>",
        "<td>48</td>",
        "<td>–</td>",
        "{&#34;ci&#34;: [0.1, 0.2]}",
        "shares of the uplift",
    ):
        assert cell in html


def test_a_coding_run_folders_own_tables_are_found(tmp_path):
    run = tmp_path / "coding-off"
    (run / "trajectories").mkdir(parents=True)
    manifest = {
        "memory": {"condition": "off"},
        "seeds": [0, 1],
        "tasks": {"order": ["t1"]},
        "model": {"model": "m"},
    }
    (run / "manifest.json").write_text(json.dumps(manifest))
    episode = {"id": "t1@0", "instance_id": "t1", "seed": 0, "resolved": True, "end_reason": "submitted",
               "steps": 1, "input_tokens": 10, "output_tokens": 5, "commands": 1, "agent_s": 0.1,
               "memory_chars": 0, "model_errors": {}, "outcomes": {"a.py::test_x": "passed"}}  # fmt: skip
    (run / "episodes.jsonl").write_text(json.dumps(episode) + "\n")
    (run / "layer_b.json").write_text(json.dumps(TABLES))
    out = tmp_path / "coding.html"
    result = invoke("report", run, "-o", out)
    assert result.exit_code == 1 and "unfinished: 1 of 2 episodes" in result.stderr  # seed 1 never ran
    html = out.read_text(encoding="utf-8")
    assert 'data-table="layer-a"' in html and str(run / "layer_b.json") in html
    assert 'id="coding-table"' in html and "no paired comparison" in html


def test_packed_data_round_trips():
    value = {"text": "</script><b>é</b>", "n": [1, 2.5, None]}
    assert unpack(pack(value)) == value


def test_five_runs_of_500_episodes_stay_under_5_mb(vehicle_data, tmp_path):
    runs = [tmp_path / f"run-{n}" for n in range(5)]
    for n, run in enumerate(runs):
        synthetic_run(run, vehicle_data, "bm25", seed=n)
    out = tmp_path / "big.html"
    result = invoke("report", *runs, "-o", out, "--resamples", "1000")
    assert result.exit_code == 0, result.output
    size = out.stat().st_size
    assert size < 5_000_000, size
    html = out.read_text(encoding="utf-8")
    data = json.loads(html.split('id="vehicle-data">', 1)[1].split("</script>", 1)[0])
    assert sum(len(unpack(blob)) for blob in data["episodes"].values()) == 2500


def test_the_report_command_loads_nothing_heavy_until_it_runs():
    loaded = loaded_after("report", "--help")
    assert "execmem.cli.report" in loaded
    assert not {m for m in loaded if m.startswith(("execmem.report", "numpy", "vl_convert", "jinja2"))}
    assert "execmem.cli.report" not in loaded_after("version")


def diagnosis_cell(html: str, run: str, label: str) -> str:
    row = html.split('id="diagnosis-table"', 1)[1].split(f'<tr data-run="{run}">', 1)[1]
    return row.split(f'data-key="{label}">', 1)[1].split("<", 1)[0]


def test_a_runs_diagnosis_json_is_read_while_it_covers_the_run(reader_runs, tmp_path):
    run = shutil.copytree(reader_runs["bm25"], tmp_path / "bm25")
    assert invoke("vehicle", "diagnose", run, "--json").exit_code == 0
    saved = json.loads((run / "diagnosis.json").read_text())
    saved["overall"]["counts"]["extra_action"] = 99  # a mark only the file has
    (run / "diagnosis.json").write_text(json.dumps(saved))
    out = tmp_path / "read.html"
    assert invoke("report", run, "-o", out).exit_code == 0
    assert diagnosis_cell(out.read_text(encoding="utf-8"), "bm25", "extra_action") == "99"
    cut = cut_run(run, tmp_path / "bm25-cut", keep=12)  # the file now covers 20 episodes of 12
    assert invoke("report", cut, "-o", out).exit_code == 1
    html = out.read_text(encoding="utf-8")
    assert diagnosis_cell(html, "bm25-cut", "extra_action") == "0"
    assert "diagnosis.json covers 20 episodes, the run has 12" in html
