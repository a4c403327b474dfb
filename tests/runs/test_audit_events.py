"""Which events a retrieval hits: all-events recall, latest-event recall and the stale rate, per
question in audit.json, recomputable from the stored items alone."""

from __future__ import annotations

import json
import statistics

import pytest

from execmem.runs.vehicle.audit import AuditConfig, run_audit
from execmem.suites.vehicle.retrieval import within_budget
from execmem.testing.scripted_memory import ScriptedMemory
from tests.runs.test_vehicle_audit import (
    EVENT_1,
    OFF_WINDOW,
    QUESTIONS_1,
    QUOTE_EVENT_2,
    release,  # noqa: F401 - the fixture
)

QUERY = QUESTIONS_1[0]["query"]  # events: March 1 9:00 AM (earlier), March 2 8:00 PM (latest)


def first_question(items, release_dir, ks=(1, 2, 3)):
    config = AuditConfig(memory="scripted", top_k=list(ks), scenarios=[1], data_dir=release_dir)
    return run_audit(config, memory=ScriptedMemory({QUERY: items}))


def test_an_earlier_event_without_the_latest_is_stale(release):  # noqa: F811
    report = first_question([OFF_WINDOW, EVENT_1, QUOTE_EVENT_2], release)
    first = report["questions"][0]
    assert first["latest_events"] == [1]
    # K=1: nothing hit; K=2: only the earlier event; K=3: both.
    assert [first[f"stale@{k}"] for k in (1, 2, 3)] == [0.0, 1.0, 0.0]
    assert [first[f"latest_event_recall@{k}"] for k in (1, 2, 3)] == [0.0, 0.0, 1.0]
    assert [first[f"all_events_recall@{k}"] for k in (1, 2, 3)] == [0.0, 0.0, 1.0]
    assert [first[f"evidence_recall@{k}"] for k in (1, 2, 3)] == [0.0, 0.5, 1.0]  # unchanged meaning


def test_the_latest_event_alone_is_not_stale_and_not_all_events(release):  # noqa: F811
    first = first_question([QUOTE_EVENT_2], release, ks=(1,))["questions"][0]
    assert (first["stale@1"], first["latest_event_recall@1"], first["all_events_recall@1"]) == (0.0, 1.0, 0.0)


def test_stale_is_undefined_for_a_single_event_and_left_out_of_the_mean(release):  # noqa: F811
    report = first_question([OFF_WINDOW, EVENT_1], release, ks=(2,))
    single = report["questions"][1]  # one event: nothing earlier to be stale with
    assert single["stale@2"] is None and single["latest_event_recall@2"] == 0.0
    assert report["overall"]["stale@2"] == 1.0  # the mean over the one question where it is defined
    assert report["overall"]["latest_event_recall@2"] == 0.0
    assert report["by_reasoning_type"]["state_shift"]["stale@2"] is None


def recompute(record: dict, ks, budgets) -> dict:
    """Every event figure from the record's events and items alone, independently of execmem."""
    n = len(record["events"])
    times = [e["when"] for e in record["events"]]
    latest = {i for i, when in enumerate(times) if when == max(times)}
    earlier = set(range(n)) - latest
    out = {}
    for k in ks:
        hit = set().union(*(set(item["events"]) for item in record["items"][:k]))
        out[f"evidence_recall@{k}"] = len(hit) / n
        out[f"all_events_recall@{k}"] = float(len(hit) == n)
        out[f"latest_event_recall@{k}"] = float(bool(hit & latest))
        out[f"stale@{k}"] = float(bool(hit & earlier) and not hit & latest) if earlier else None
        out[f"memtoken@{k}"] = sum(item["tokens"] for item in record["items"][:k])
    for budget in budgets:
        taken = within_budget([item["tokens"] for item in record["items"]], budget)
        hit = set().union(*(set(item["events"]) for item in record["items"][:taken]))
        out[f"budget_recall@{budget}"] = len(hit) / n
    return out


def test_figures_recomputed_from_audit_json_items_agree(vehicle_data, tmp_path):
    ks, budgets = [1, 3, 5], [250, 1000]
    config = AuditConfig(
        memory="bm25", top_k=ks, budget_tokens=budgets, scenarios=[1, 7], data_dir=vehicle_data
    )
    run_audit(config, tmp_path)
    report = json.loads((tmp_path / "audit.json").read_text())
    records = report["questions"]
    assert any(r["stale@5"] == 1.0 for r in records)  # the release does have stale retrievals
    for record in records:
        for search in (record, record["oracle"]):
            search = {**search, "events": record["events"]}
            for key, value in recompute(search, ks, budgets).items():
                assert search[key] == pytest.approx(value), (record["id"], key)
            for item in search["items"]:  # an item hits the events whose lines it holds
                lines = set(item["line_ids"])
                hits = [i for i, e in enumerate(record["events"]) if lines & set(e["line_ids"])]
                assert item["events"] == hits
    for key in ("all_events_recall@5", "latest_event_recall@5", "stale@5"):
        defined = [r[key] for r in records if r[key] is not None]
        assert report["overall"][key] == pytest.approx(statistics.fmean(defined), abs=1e-4)
        by_type = [r[key] for r in records if r["reasoning_type"] == "state_shift" and r[key] is not None]
        assert report["by_reasoning_type"]["state_shift"][key] == pytest.approx(
            statistics.fmean(by_type), abs=1e-4
        )
