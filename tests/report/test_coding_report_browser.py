"""A report of three scripted coding runs (off, record, irrelevant on two synthetic repositories) and
a tables document, opened in headless Chromium: the charts drew, the resolved rates equal
metrics.json, the paired effects equal `coding compare`, and the trajectory viewer filters and
shows an episode's memory, commands and test outcomes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execmem.runs.coding.compare import load_coding_run, paired_report
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.fake_server import FakeServer
from tests.cli.conftest import invoke
from tests.coding.conftest import needs_bwrap
from tests.coding.paired_support import make_tasks, memory_oracle, run_condition
from tests.conftest import read_jsonl
from tests.report.test_report_cli import TABLES

pytestmark = needs_bwrap
ROLES = ("off", "record", "irrelevant")


@pytest.fixture(scope="module")
def coding_runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("report-coding")
    tasks_file = make_tasks(root)
    with FakeServer(memory_oracle(load_tasks(tasks_file))) as server:
        for role in ROLES:
            run_condition(root / "runs" / role, tasks_file, server.base_url, role)
    return {role: root / "runs" / role for role in ROLES}


@pytest.fixture(scope="module")
def report(coding_runs, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("coding-report")
    (folder / "layer_a.json").write_text(json.dumps(TABLES))
    out = folder / "report.html"
    result = invoke("report", *coding_runs.values(), "--tables", folder / "layer_a.json", "-o", out)
    assert result.exit_code == 0, result.output
    return out


def test_the_coding_charts_drew_and_the_rates_are_metrics_json(page, coding_runs, screenshots):
    for chart in ("coding-resolved", "coding-effects", "table-layer-a"):
        svg = page.locator(f"#fig-{chart} .svg.wide svg")
        assert svg.bounding_box()["width"] > 250 and svg.locator("g.role-mark > *").count() > 0
    for role, run in coding_runs.items():
        rate = json.loads((run / "metrics.json").read_text())["resolved_rate"]
        shown = page.locator(f"#coding-table tr[data-run='{role}'] td[data-key='rate']").inner_text()
        assert shown == f"{rate:.3f}"
    report = paired_report([load_coding_run(coding_runs[role]) for role in ROLES])
    rows = page.locator("#effects-table tbody tr")
    for n, effect in enumerate(report["effects"]):
        cells = rows.nth(n).locator("td").all_inner_texts()
        assert rows.nth(n).locator("th").inner_text() == effect["comparison"]
        assert cells[1] == f"{effect['estimate']:+.3f}"
    assert page.locator("[data-table='layer-a'] tbody tr").count() == 2
    assert not page.errors
    page.screenshot(path=screenshots / "coding-1280.png", full_page=True)


def test_the_trajectory_viewer_filters_and_shows_an_episode(page, coding_runs, screenshots):
    root = page.locator("#trajectories")
    record = read_jsonl(coding_runs["record"] / "episodes.jsonl")
    total = sum(len(read_jsonl(run / "episodes.jsonl")) for run in coding_runs.values())
    assert root.locator("[data-count]").inner_text() == f"{total} of {total} episodes"
    root.locator("select[data-filter=run]").select_option("record")
    root.locator("select[data-filter=resolved]").select_option("yes")
    resolved = [e for e in record if e["resolved"]]
    assert root.locator("[data-count]").inner_text() == f"{len(resolved)} of {total} episodes"
    episode = resolved[0]
    item = root.locator(f"details[data-id='record:{episode['id']}']")
    item.locator("summary").click()
    body = item.locator(".body")
    memory = json.loads((coding_runs["record"] / "memory.json").read_text())[episode["instance_id"]]["text"]
    assert body.locator("pre").first.inner_text() == memory
    commands = body.locator("pre.command").all_inner_texts()
    assert commands[-1] == "$ echo EXECMEM_SUBMIT" and len(commands) == episode["commands"]
    tests = body.locator("table").last.locator("tbody tr")
    assert tests.count() == len(episode["outcomes"])
    assert set(tests.locator("td:first-child").all_inner_texts()) == set(episode["outcomes"])
    item.screenshot(path=screenshots / "coding-trajectory.png")
