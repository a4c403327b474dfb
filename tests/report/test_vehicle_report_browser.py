"""A report of two scripted vehicle runs (gold, bm25) and a bm25 audit, opened in headless Chromium
as a new user would: every chart drew, the numbers equal metrics.json, diagnose and compare, the
episode filters count right, and qa_1 #0 is found in both runs with its state diff against gold."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from execmem.runs.vehicle.compare import compare_rows, load_run
from execmem.runs.vehicle.diagnose import Diagnoser, diagnose
from execmem.runs.vehicle.diagnosis_sources import read_run
from tests.cli.conftest import invoke
from tests.conftest import read_jsonl
from tests.report.conftest import MEMORIES, open_report

CHARTS = (
    "leaderboard-esm", "esm-by-type", "value-field", "esm-memtoken", "audit-recall", "paired", "diagnosis",
    "diagnosis-by-type",
)  # fmt: skip
"""Every chart of a vehicle report with audits, in page order."""
MARKS = "g.role-mark > *"


@pytest.fixture(scope="module")
def report(reader_runs, audit_folder, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    result = invoke("report", *(reader_runs[m] for m in MEMORIES), "--audit", audit_folder, "-o", out)
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.stderr
    return out


def metrics(run: Path) -> dict:
    return json.loads((run / "metrics.json").read_text())


def test_every_chart_drew(page, screenshots):
    drawn = page.locator("figure.chart").evaluate_all("fs => fs.map(f => f.dataset.chart)")
    assert drawn == list(CHARTS)
    for chart in CHARTS:
        svg = page.locator(f"#fig-{chart} .svg.wide svg")
        box = svg.bounding_box()
        assert box["width"] > 250 and box["height"] > 40, (chart, box)
        assert svg.locator(MARKS).count() > 0, chart
    assert not page.locator(".svg.narrow svg").first.is_visible()
    # One point per run on the leaderboard, one per run but the baseline on the paired chart.
    assert page.locator("#fig-leaderboard-esm .svg.wide svg .mark-symbol.role-mark path").count() == 2
    assert page.locator("#fig-paired .svg.wide svg .mark-symbol.role-mark path").count() == 1
    assert not page.errors
    page.screenshot(path=screenshots / "vehicle-1280.png", full_page=True)


def test_the_leaderboard_shows_each_runs_metrics_json(page, reader_runs):
    for memory in MEMORIES:
        overall = metrics(reader_runs[memory])["overall"]
        row = page.locator(f"#leaderboard-table tr[data-run='{memory}']")

        def cell(key: str, row=row) -> str:
            return row.locator(f"td[data-key='{key}']").inner_text()

        assert cell("n") == str(overall["n"])
        assert cell("esm") == f"{overall['exact_match']:.3f}"
        for key in ("field", "value", "tool"):
            assert cell(f"{key}_f1") == f"{overall[key]['f1']:.3f}"
        assert cell("memtoken") == f"{overall['mean_memory_tokens']:,.0f}"
        assert cell("status") == "complete"
        low, high = map(float, re.findall(r"[0-9.]+", cell("esm_ci")))
        assert low <= overall["exact_match"] <= high
    gold_esm = metrics(reader_runs["gold"])["overall"]["exact_match"]
    bm25_esm = metrics(reader_runs["bm25"])["overall"]["exact_match"]
    score = page.locator("#leaderboard-table tr[data-run='bm25'] td[data-key='memory_score']").inner_text()
    assert score == f"{bm25_esm / gold_esm:.3f}"


def test_paired_and_diagnosis_tables_equal_compare_and_diagnose(page, reader_runs):
    rows = compare_rows([load_run(reader_runs[m]) for m in MEMORIES], intersect=True)
    shown = page.locator("#paired-table tr[data-run='bm25'] td[data-key='delta_esm']").inner_text()
    assert shown == f"{rows[1]['delta_esm']:+.3f}"
    for memory in MEMORIES:
        counts = diagnose(reader_runs[memory], write=False).overall.counts
        row = page.locator(f"#diagnosis-table tr[data-run='{memory}']")
        for label, count in counts.items():
            assert row.locator(f"td[data-key='{label}']").inner_text() == str(count)


def choose(page, **filters) -> str:
    """Set the episode browser's filters (others to all) and return its count line."""
    root = page.locator("#episodes")
    for key in ("run", "type", "label", "scenario"):
        root.locator(f"select[data-filter={key}]").select_option(str(filters.get(key, "")))
    root.locator("input[data-filter=text]").fill(filters.get("text", ""))
    return root.locator("[data-count]").inner_text()


def test_the_episode_filters_count_what_they_keep(page, reader_runs):
    bm25 = read_jsonl(reader_runs["bm25"] / "episodes.jsonl")
    assert choose(page) == "40 of 40 episodes"
    assert choose(page, run="bm25") == "20 of 40 episodes"
    exact = sum(bool(e["exact_match"]) for e in bm25)
    assert choose(page, run="bm25", label="exact") == f"{exact} of 40 episodes"
    labels = {e.id: e.label for e in diagnose(reader_runs["bm25"], write=False).episodes}
    retrieved = sum(label == "not_retrieved" for label in labels.values())
    assert retrieved > 0 and choose(page, run="bm25", label="not_retrieved") == f"{retrieved} of 40 episodes"
    in_1 = sum(e["scenario"] == 1 and e["reasoning_type"] == "preference_conflict" for e in bm25)
    assert choose(page, run="bm25", scenario=1, type="preference_conflict") == f"{in_1} of 40 episodes"
    assert page.locator("#episodes ol.items > li").count() == in_1


def test_qa_1_0_is_found_in_both_runs_with_its_state_diff(page, reader_runs, screenshots):
    assert choose(page, text="qa_1 #0") == "2 of 40 episodes"
    for memory in MEMORIES:
        sources = read_run(reader_runs[memory])
        diagnoser = Diagnoser(sources, sources.data_dir(None))
        record = next(r for r in sources.records() if r["id"] == "1-0")
        expected = diagnoser.describe(diagnoser.examine(record))
        item = page.locator(f"#episodes details[data-id='{memory}:1-0']")
        item.locator("summary").click()
        body = item.locator(".body")
        assert expected["query"] in body.locator("blockquote").inner_text()
        assert body.get_by_text("EVIDENCE IN THE HISTORY", exact=False).count() == 1
        first_line = expected["evidence"][0].lines[0]
        assert f"{first_line.line} · {first_line.time}" in body.inner_text()
        rows = body.locator("table").last.locator("tbody tr")
        assert rows.count() == len(expected["state_diff"])
        for n, (path, diff) in enumerate(expected["state_diff"].items()):
            cells = rows.nth(n).locator("td").all_inner_texts()
            assert cells[0] == path and cells[2] == _shown(diff.gold) and cells[4] == diff.status
        item.screenshot(path=screenshots / f"qa_1-0-{memory}.png")


def _shown(value) -> str:
    """A value as the page's script writes it (JavaScript's String(), JSON for objects)."""
    if value is None:
        return "(unchanged)"
    if isinstance(value, bool | dict | list):
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def test_it_opens_offline_with_nothing_fetched(page, report):
    assert all(url.startswith("file:") for url in page.requests), page.requests
    html = report.read_text(encoding="utf-8")
    assert "default-src 'none'" in html and not re.search(r"""(src|href)=["']https?:""", html)


def test_on_a_phone_the_narrow_charts_show_and_nothing_overflows(report, chromium, screenshots):
    page = open_report(chromium, report, width=390, height=844)
    try:
        assert page.locator("#fig-diagnosis .svg.narrow svg").is_visible()
        assert not page.locator("#fig-diagnosis .svg.wide svg").is_visible()
        for chart in CHARTS:
            assert page.locator(f"#fig-{chart} .svg.narrow svg").bounding_box()["width"] <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=screenshots / "vehicle-phone.png", full_page=True)
    finally:
        page.close()


def test_the_dark_theme_recolours_page_and_chart_text(report, chromium, screenshots):
    page = open_report(chromium, report, scheme="dark")
    try:
        dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert dark == "rgb(13, 17, 23)"
        fill = page.locator("#fig-diagnosis .svg.wide svg .role-axis-label text").first
        assert fill.evaluate("t => getComputedStyle(t).fill") == "rgb(230, 237, 243)"
        page.locator("#theme").click()  # auto -> light
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
        page.locator("#theme").click()  # light -> dark
        page.screenshot(path=screenshots / "vehicle-dark.png", full_page=True)
    finally:
        page.close()
