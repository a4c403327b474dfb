"""Locating gold-memory events in the history, and the gold values a retrieval should bring back."""

from __future__ import annotations

from datetime import datetime

import pytest

from execmem.suites.vehicle.calls import ToolCall
from execmem.suites.vehicle.dataset import HistoryLine, Question, load_history, load_questions
from execmem.suites.vehicle.evidence import (
    EvidenceError,
    HistoryIndex,
    gold_values,
    locate,
    split_events,
    to_24h,
    value_present,
)


def line(line_no: int, stamp: str, text: str = "words") -> HistoryLine:
    return HistoryLine(1, line_no, datetime.strptime(stamp, "%Y-%m-%d %H:%M"), "Ann Lee", text)


def question(gold_memory: str = "", calls: tuple[ToolCall, ...] = ()) -> Question:
    return Question(1, 0, "preference_conflict", "query", gold_memory, (), calls)


def test_every_event_of_the_release_is_placed(vehicle_data):
    questions = load_questions(vehicle_data)
    histories = {n: HistoryIndex(load_history(vehicle_data, n)) for n in range(1, 51)}
    placed = [p for q in questions for p in locate(q, histories[q.scenario])]
    assert len(placed) == 1034
    assert sum(not p.placed for p in placed) == 0


def test_release_event_lands_on_its_own_lines(vehicle_data):
    first = load_questions(vehicle_data, [1])[0]
    placed = locate(first, load_history(vehicle_data, 1))
    texts = {h.line_no: h.text for h in load_history(vehicle_data, 1)}
    assert [p.event.when for p in placed] == [
        datetime(2025, 4, 15, 9, 0),
        datetime(2025, 3, 10, 8, 0),
        datetime(2025, 3, 25, 19, 30),
    ]
    assert "blue panel set" in texts[placed[0].line_ids[0]]
    assert any("green instrument panel" in texts[n] for n in placed[1].line_ids)
    assert any("I prefer white" in texts[n] for n in placed[2].line_ids)


def test_events_are_split_with_12_hour_clock_times():
    memory = (
        "[March 1, 2025] At 12:05 AM, Ann could not sleep.\n"
        "[March 1, 2025] 'At 12:30 PM, Bob said: 'lunch'.\n"
        "It spans a second line.\n"
        "[December 31, 2024] At 11:59 pm, Ann drove home."
    )
    events = split_events(memory)
    assert [e.when for e in events] == [
        datetime(2025, 3, 1, 0, 5),
        datetime(2025, 3, 1, 12, 30),
        datetime(2024, 12, 31, 23, 59),
    ]
    assert events[0].text == "Ann could not sleep."
    assert events[1].text == "Bob said: 'lunch'.\nIt spans a second line."
    assert [to_24h(12, "A"), to_24h(12, "P"), to_24h(1, "a"), to_24h(11, "p")] == [0, 12, 1, 23]


@pytest.mark.parametrize(
    "memory",
    [
        "no date at all",
        "preamble [March 1, 2025] At 9:00 AM, x",
        "[March 1, 2025] Ann drove without a time.",
        "[Smarch 1, 2025] At 9:00 AM, x",
        "[February 30, 2025] At 9:00 AM, x",
        "[March 1, 2025] At 13:00 PM, x",
        "[March 1, 2025] At 9:75 AM, x",
    ],
)
def test_unreadable_gold_memory_is_an_error(memory):
    with pytest.raises(EvidenceError):
        split_events(memory)


HISTORY = [
    line(1, "2025-03-01 00:00", "midnight"),
    line(2, "2025-03-01 09:00"),
    line(3, "2025-03-01 09:03"),
    line(4, "2025-03-01 09:05"),
    line(5, "2025-03-01 09:06"),
    line(6, "2025-03-01 12:00", "noon"),
    line(7, "2025-03-01 23:58"),
    line(8, "2025-03-02 00:01"),
    line(9, "2025-03-02 09:02"),
]


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        ("9:00 AM", (2, 3, 4)),  # the minute and 5 after, inclusive; 09:06 is out
        ("9:01 AM", (3, 4, 5)),  # no line at the minute: the window still finds the conversation
        ("12:00 AM", (1,)),  # midnight, not noon
        ("12:00 PM", (6,)),
        ("11:57 PM", (7,)),  # the window never runs into the next day
        ("10:00 AM", ()),  # nothing within 5 minutes: unplaced
    ],
)
def test_events_are_placed_on_the_lines_of_their_minute_and_after(when, expected):
    placed = locate(question(f"[March 1, 2025] At {when}, something happened."), HISTORY)
    assert placed[0].line_ids == expected
    assert placed[0].placed == bool(expected)


def test_the_window_can_be_widened():
    placed = locate(question("[March 1, 2025] At 9:00 AM, x"), HistoryIndex(HISTORY), window_minutes=6)
    assert placed[0].line_ids == (2, 3, 4, 5)


def test_gold_values_keep_strings_and_numbers_but_not_booleans_or_selectors():
    calls = (
        ToolCall("carcontrol_instrumentPanel_set_color", {"color": "Blue"}),
        ToolCall("carcontrol_light_set_color", {"color": "blue", "zone": "all"}),
        ToolCall("carcontrol_seat_set_headrest_height", {"seat": "driver", "value": 44}),
        ToolCall("carcontrol_radio_tune", {"frequency": 98.5, "enabled": True, "name": " "}),
        ToolCall("carcontrol_navigation_set_view", {"view": "north_up", "waypoints": ["a", "b"]}),
    )
    assert gold_values(question(calls=calls)) == ("Blue", 44, 98.5, "north_up")


@pytest.mark.parametrize(
    ("value", "text", "present"),
    [
        (44, "put the headrest at 44.", True),
        (44, "room 144", False),
        (44, "about 4.4 units", False),
        (44, "44.5 degrees", False),
        (44, "we leave at 9:44", False),
        (98.5, "tune to 98.5 FM", True),
        ("north_up", "I like the North-up view", True),
        ("north_up", "north up please", True),
        ("north_up", "northup", False),
        ("face_feet", "air on my face and feet", True),
        ("red", "a reddish glow", False),
        ("Blue", "the BLUE panel", True),
        ("89.5 FM", "switch to 89.5 fm now", True),
    ],
)
def test_values_are_matched_as_whole_words_and_numbers(value, text, present):
    assert value_present(value, text) is present
