"""The retrieval audit on a hand-made release whose right numbers are known by construction."""

from __future__ import annotations

import json
import math
import re
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from execmem.cli import vehicle_audit  # noqa: F401 - registers `vehicle audit`
from execmem.cli.main import app
from execmem.core.protocols import MemoryItem
from execmem.memory.bm25 import Bm25Memory
from execmem.runs.vehicle.audit import AuditConfig, oracle_query, run_audit
from execmem.suites.vehicle.dataset import load_questions
from execmem.testing.scripted_memory import ScriptedMemory

# Line numbers are file lines: the blank line 4 is skipped but counted.
HISTORY_1 = """\
[2025-03-01 09:00] Ann Lee: Please set the ambient light to green, it calms me.
[2025-03-01 09:02] Bob Ray: Green ambient light it is, all set.
[2025-03-01 09:30] Ann Lee: Lunch plans: sandwiches in room 144 at 9:44, joking.

[2025-03-02 20:00] Bob Ray: My headrest has to be at 44 or my neck hurts.
[2025-03-02 20:01] Ann Lee: Fine, headrest 44 for you then.
[2025-03-02 21:00] Bob Ray: Random talk about the football match tonight.
"""
HISTORY_2 = """\
[2025-05-01 10:00] Cat Poe: My xylophone lessons start on Tuesday at the conservatory.
[2025-05-01 10:01] Dan Fox: Then set the seat heating to level 2 for the trip.
"""
GOLD_1 = (
    "[March 1, 2025] At 9:00 AM, Ann asked for a green ambient light.\n"
    "[March 2, 2025] At 8:00 PM, Bob needs his headrest at 44."
)
QUESTIONS_1 = [
    {
        "query": "Ann and Bob get in: set things the way they like.",
        "gold_memory": GOLD_1,
        "reasoning_type": "preference_conflict",
        "new_answer": [
            'carcontrol_light_set_ambient_color(color="green")',
            'carcontrol_seat_set_headrest_height(seat="driver", value=44)',
        ],
    },
    {
        "query": "xylophone conservatory",
        "gold_memory": "[March 2, 2025] At 8:00 PM, Bob needs his headrest at 44.",
        "reasoning_type": "state_shift",
        "new_answer": ['carcontrol_seat_set_headrest_height(seat="driver", value=44)'],
    },
]
QUESTIONS_2 = [
    {
        "query": "xylophone lessons",
        "gold_memory": "[May 1, 2025] At 10:00 AM, Dan asked for seat heating at level 2.",
        "reasoning_type": "state_shift",
        "new_answer": ['carcontrol_seat_set_heating(seat="driver", level=2)'],
    }
]


def write_release(root: Path) -> Path:
    (root / "history").mkdir(parents=True)
    (root / "qa_data").mkdir()
    for n, history, questions in ((1, HISTORY_1, QUESTIONS_1), (2, HISTORY_2, QUESTIONS_2)):
        (root / "history" / f"history_{n}.txt").write_text(history, encoding="utf-8")
        payload = {"related_to_vehicle_preference": questions}
        (root / "qa_data" / f"qa_{n}.json").write_text(json.dumps(payload), encoding="utf-8")
    return root


@pytest.fixture
def release(tmp_path) -> Path:
    return write_release(tmp_path / "release")


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


LINE = {n: text for n, text in enumerate(HISTORY_1.splitlines(), start=1)}
OFF_WINDOW = MemoryItem(LINE[3], 3.0, line_ids=(3,))  # same day as event 1 but 30 minutes later
EVENT_1 = MemoryItem("\n".join(LINE[n] for n in (1, 2, 3)), 2.0, line_ids=(1, 2, 3))
QUOTE_EVENT_2 = MemoryItem("Bob Ray said: my headrest has to be at 44 or my neck hurts", 1.0)


def test_numbers_on_a_hand_made_scenario(release):
    query = QUESTIONS_1[0]["query"]
    memory = ScriptedMemory({query: [OFF_WINDOW, EVENT_1, QUOTE_EVENT_2]})
    config = AuditConfig(memory="scripted", top_k=[1, 2, 3], scenarios=[1], data_dir=release)
    report = run_audit(config, memory=memory)
    first = report["questions"][0]
    assert [e["line_ids"] for e in first["events"]] == [[1, 2], [5, 6]]
    assert first["values"] == ["green", 44]
    # K=1: a line of the right day outside the event window, with "144" and "9:44": no hit, no value.
    assert (first["evidence_recall@1"], first["value_coverage@1"], first["noise@1"]) == (0.0, 0.0, 1.0)
    # K=2: lines 1-2 hit event 1 by line ids; line 3 is noise, in proportion to its size.
    assert (first["evidence_recall@2"], first["value_coverage@2"]) == (0.5, 0.5)
    share = tokens(LINE[3]) / sum(tokens(LINE[n]) for n in (1, 2, 3))
    noise_2 = (tokens(OFF_WINDOW.text) + tokens(EVENT_1.text) * share) / (
        tokens(OFF_WINDOW.text) + tokens(EVENT_1.text)
    )
    assert first["noise@2"] == pytest.approx(noise_2)
    # K=3: an item without line ids quoting line 5 hits event 2 by its words, and carries 44.
    assert (first["evidence_recall@3"], first["value_coverage@3"]) == (1.0, 1.0)
    assert first["memtoken@3"] == sum(tokens(i.text) for i in (OFF_WINDOW, EVENT_1, QUOTE_EVENT_2))
    assert report["questions"][1]["items"] == [] and report["questions"][1]["noise@3"] is None
    assert report["overall"]["evidence_recall@3"] == 0.5  # macro over the two questions: 1.0 and 0.0
    assert memory.adds == [("audit-1", [1, 2, 3], datetime(2025, 3, 1, 9, 30))] + [
        ("audit-1", [5, 6], datetime(2025, 3, 2, 20, 1)),
        ("audit-1", [7], datetime(2025, 3, 2, 21, 0)),
    ]


def test_oracle_query_is_scored_separately(release):
    question = load_questions(release, [1])[0]
    assert oracle_query(question) == "Ann asked for a green ambient light.\nBob needs his headrest at 44."
    memory = ScriptedMemory({oracle_query(question): [QUOTE_EVENT_2, EVENT_1]})
    config = AuditConfig(memory="scripted", top_k=[1, 2], scenarios=[1], data_dir=release)
    oracle = run_audit(config, memory=memory)["questions"][0]["oracle"]
    assert (oracle["evidence_recall@1"], oracle["evidence_recall@2"]) == (0.5, 1.0)
    assert [item["line_ids"] for item in oracle["items"]] == [[], [1, 2, 3]]


def test_text_items_need_most_of_a_lines_words(release):
    vague = MemoryItem("Bob Ray mentioned his neck once", 1.0)  # 1 of line 5's 10 words
    query = QUESTIONS_1[0]["query"]
    config = AuditConfig(memory="scripted", top_k=[1], scenarios=[1], data_dir=release)
    first = run_audit(config, memory=ScriptedMemory({query: [vague]}))["questions"][0]
    assert (first["evidence_recall@1"], first["noise@1"]) == (0.0, 1.0)


def test_bm25_end_to_end_keeps_scenarios_apart(release, tmp_path):
    config = AuditConfig(memory="bm25", windowing="turn", top_k=[1, 5], scenarios=[1, 2], data_dir=release)
    memory = Bm25Memory(windowing="turn")
    report = run_audit(config, tmp_path / "out", memory)
    by_id = {q["id"]: q for q in report["questions"]}
    # Scenario 1 is asked about words only scenario 2 said: nothing comes back.
    assert by_id["1-1"]["items"] == [] and by_id["1-1"]["memtoken@5"] == 0
    assert by_id["1-1"]["noise@5"] is None
    assert memory.search("xylophone", "audit-1", 10) == []
    assert [item.line_ids for item in memory.search("xylophone", "audit-2", 10)] == [(1,)]
    # Scenario 2's query finds line 1, inside the event's window but without the value (level 2);
    # the oracle query finds line 2, which has it.
    query, oracle = by_id["2-0"], by_id["2-0"]["oracle"]
    assert [i["line_ids"] for i in query["items"]] == [[1]]
    assert (query["evidence_recall@1"], query["value_coverage@1"]) == (1.0, 0.0)
    assert oracle["items"][0]["line_ids"] == [2]
    assert (oracle["evidence_recall@1"], oracle["value_coverage@1"]) == (1.0, 1.0)
    assert json.loads((tmp_path / "out" / "audit.json").read_text()) == report


KEYS = {"evidence_recall", "value_coverage", "noise", "memtoken"}
KEYS |= {"all_events_recall", "latest_event_recall", "stale"}


def test_audit_json_schema(release, tmp_path):
    config = AuditConfig(memory="bm25", top_k=[1, 3], scenarios=[1, 2], data_dir=release)
    report = run_audit(config, tmp_path)
    assert list(report) == [
        "overall",
        "by_reasoning_type",
        "unplaced_events",
        "latency_ms",
        "ingest_s",
        "config",
        "questions",
    ]
    metric_keys = {f"{m}@{k}" for m in KEYS for k in (1, 3)}
    metric_keys |= {f"{m}@{b}" for m in ("budget_recall", "budget_tokens") for b in (250, 1000)}
    blocks = [report["overall"], *report["by_reasoning_type"].values()]
    assert list(report["by_reasoning_type"]) == ["preference_conflict", "state_shift"]
    for block in blocks:
        assert set(block) == metric_keys | {"oracle"}
        assert set(block["oracle"]) == metric_keys
    assert report["unplaced_events"] == 0 and set(report["latency_ms"]) == {"p50", "p95"}
    assert report["config"]["system"]["system"] == "bm25"
    assert report["config"]["windowing"] == {"mode": "hour"} and report["config"]["top_k"] == [1, 3]
    assert len(report["config"]["data"]["sha256"]) == 64
    assert report["config"]["data"]["release_files_verified"] is False  # hand-made, not the release
    assert [q["id"] for q in report["questions"]] == ["1-0", "1-1", "2-0"]
    assert metric_keys <= set(report["questions"][0]) and "items" in report["questions"][0]["oracle"]


runner = CliRunner()


def test_cli_writes_the_report_and_prints_tables(release, tmp_path):
    out = tmp_path / "audit"
    args = ["vehicle", "audit", "--memory", "bm25", "--scenarios", "1-2", "--top-k", "1,3"]
    result = runner.invoke(app, [*args, "--data", str(release), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "evidence recall" in result.stdout and "preference_conflict" in result.stdout
    assert json.loads((out / "audit.json").read_text())["config"]["top_k"] == [1, 3]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--memory", "nope"], r"unknown memory system 'nope'; available: .*\bbm25\b"),
        (["--memory", "bm25", "--top-k", "0"], "each from 1 to 1000"),
        (["--memory", "bm25", "--scenarios", "51"], "outside scenarios"),
        (["--memory", "bm25", "--memory-option", "nonsense"], "KEY=VALUE"),
        (["--memory", "bm25", "--memory-option", "rrf_k=3"], "rrf_k"),
    ],
)
def test_cli_errors_exit_2_and_say_why(release, args, message):
    result = runner.invoke(app, ["vehicle", "audit", *args, "--data", str(release), "--quiet"])
    assert result.exit_code == 2
    assert re.search(message, " ".join(result.output.split()))


def test_cli_missing_data_exits_2(tmp_path):
    result = runner.invoke(app, ["vehicle", "audit", "--memory", "bm25", "--data", str(tmp_path / "none")])
    assert result.exit_code == 2 and "not found" in result.output
