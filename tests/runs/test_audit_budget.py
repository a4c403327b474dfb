"""Evidence recall within a token budget: items in rank order while they fit, no partial items."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from execmem.cli.main import app
from execmem.core.protocols import MemoryItem
from execmem.runs.vehicle.audit import AuditConfig, run_audit
from execmem.suites.vehicle.retrieval import within_budget
from execmem.testing.scripted_memory import ScriptedMemory
from tests.runs.test_vehicle_audit import (
    EVENT_1,
    OFF_WINDOW,
    QUESTIONS_1,
    QUOTE_EVENT_2,
    release,  # noqa: F401 - the fixture
    tokens,
)

QUERY = QUESTIONS_1[0]["query"]
RANKED = [OFF_WINDOW, EVENT_1, QUOTE_EVENT_2]  # hits: none, event 1, event 2


def audit(budgets, answers, release_dir):
    config = AuditConfig(
        memory="scripted", top_k=[3], budget_tokens=budgets, scenarios=[1], data_dir=release_dir
    )
    return run_audit(config, memory=ScriptedMemory(answers))


@pytest.mark.parametrize(
    ("sizes", "budget", "taken"),
    [([10, 20, 5], 30, 2), ([10, 20, 5], 29, 1), ([10, 20, 5], 35, 3), ([40, 1], 39, 0), ([], 5, 0)],
)
def test_within_budget_stops_at_the_first_item_that_does_not_fit(sizes, budget, taken):
    assert within_budget(sizes, budget) == taken


def test_budget_recall_counts_whole_items_in_rank_order(release):  # noqa: F811
    first_two = tokens(OFF_WINDOW.text) + tokens(EVENT_1.text)
    everything = first_two + tokens(QUOTE_EVENT_2.text)
    budgets = [first_two - 1, first_two, everything]
    first = audit(budgets, {QUERY: RANKED}, release)["questions"][0]
    # One token short: EVENT_1 does not fit, and counts not even in part.
    assert first[f"budget_recall@{first_two - 1}"] == 0.0
    assert first[f"budget_tokens@{first_two - 1}"] == tokens(OFF_WINDOW.text)
    assert (first[f"budget_recall@{first_two}"], first[f"budget_tokens@{first_two}"]) == (0.5, first_two)
    assert (first[f"budget_recall@{everything}"], first[f"budget_tokens@{everything}"]) == (1.0, everything)


def test_a_smaller_later_item_is_not_taken_in_place_of_one_that_did_not_fit(release):  # noqa: F811
    big = MemoryItem(EVENT_1.text * 10, 3.0, line_ids=(3,))  # large and no hit
    budget = tokens(QUOTE_EVENT_2.text) + 1
    first = audit([budget], {QUERY: [big, QUOTE_EVENT_2]}, release)["questions"][0]
    assert first[f"budget_recall@{budget}"] == 0.0 and first[f"budget_tokens@{budget}"] == 0


def test_budget_figures_are_aggregated_and_kept_per_question_for_the_oracle_too(release, tmp_path):  # noqa: F811
    out = tmp_path / "out"
    args = ["vehicle", "audit", "--memory", "bm25", "--scenarios", "1-2", "--top-k", "1,3"]
    result = CliRunner(env={"COLUMNS": "200"}).invoke(
        app, [*args, "--budget-tokens", "40,20", "--data", str(release), "--out", str(out), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    assert "within a token budget" in result.stdout and "recall ≤40 tok" in result.stdout
    report = json.loads((out / "audit.json").read_text())
    assert report["config"]["budget_tokens"] == [20, 40]
    records = report["questions"]
    for key in ("budget_recall@20", "budget_tokens@40"):
        assert key in report["overall"] and key in report["overall"]["oracle"]
        assert all(key in r and key in r["oracle"] for r in records)
    recalls = [r["budget_recall@40"] for r in records]
    assert report["overall"]["budget_recall@40"] == pytest.approx(sum(recalls) / len(recalls), abs=1e-4)
    for record in records:  # recomputable from the stored items
        taken = within_budget([item["tokens"] for item in record["items"]], 40)
        assert record["budget_tokens@40"] == sum(item["tokens"] for item in record["items"][:taken])


@pytest.mark.parametrize("value", ["0", "x", ""])
def test_bad_budgets_exit_2_naming_the_option(release, value):  # noqa: F811
    result = CliRunner().invoke(
        app, ["vehicle", "audit", "--memory", "bm25", "--budget-tokens", value, "--data", str(release)]
    )
    assert result.exit_code == 2 and "--budget-tokens" in result.output
