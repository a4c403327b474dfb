"""Messages into units: turn, window and hour, with their text, timestamps and line ids."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from execmem.memory.windowing import WindowingConfig, format_line, make_units
from tests.memory.conftest import at, msg

DAY = [
    msg("2025-03-03 08:30", "first", 10),
    msg("2025-03-03 08:30", "second", 11, speaker="Justin Martinez"),
    msg("2025-03-03 08:59", "third", 12),
    msg("2025-03-03 09:00", "fourth", 13),
    msg("2025-03-04 09:15", "fifth", 14),
    msg("2025-03-04 09:40", "sixth", 15),
    msg("2025-03-04 11:05", "seventh", 16),
]


def test_a_line_keeps_its_time_and_speaker():
    assert format_line(DAY[1]) == "[2025-03-03 08:30] Justin Martinez: second"
    assert format_line(msg("2025-03-03 08:30", "no speaker", speaker="")) == "[2025-03-03 08:30] no speaker"


def test_turn_makes_one_unit_per_message():
    units = make_units(DAY, WindowingConfig(mode="turn"))
    assert [u.line_ids for u in units] == [(i,) for i in range(10, 17)]
    assert units[2].text == "[2025-03-03 08:59] Gary Allen: third"
    assert units[2].timestamps == (at("2025-03-03 08:59"),)


def test_window_cuts_fixed_runs_of_lines():
    units = make_units(DAY, WindowingConfig(mode="window", window_lines=3))
    assert [u.line_ids for u in units] == [(10, 11, 12), (13, 14, 15), (16,)]
    assert units[0].timestamps == (at("2025-03-03 08:30"), at("2025-03-03 08:59"))
    assert units[0].text.splitlines() == [format_line(m) for m in DAY[:3]]


def test_hour_groups_a_clock_hour_of_one_day():
    units = make_units(DAY, WindowingConfig(mode="hour"))
    assert [u.line_ids for u in units] == [(10, 11, 12), (13,), (14, 15), (16,)]
    assert (units[2].earliest, units[2].latest) == (at("2025-03-04 09:15"), at("2025-03-04 09:40"))


def test_messages_without_line_ids_still_form_units():
    units = make_units([msg("2025-03-03 08:30", "loose")], WindowingConfig(mode="hour"))
    assert units[0].line_ids == () and units[0].text.endswith("loose")


def test_no_messages_no_units():
    assert make_units([], WindowingConfig(mode="window")) == []


def test_describe_names_only_what_applies():
    assert WindowingConfig(mode="hour", window_lines=5).describe() == {"mode": "hour"}
    assert WindowingConfig(mode="window", window_lines=5).describe() == {"mode": "window", "window_lines": 5}


@pytest.mark.parametrize("bad", [{"mode": "day"}, {"mode": "window", "window_lines": 0}, {"size": 3}])
def test_bad_windowing_is_refused(bad):
    with pytest.raises(ValidationError):
        WindowingConfig(**bad)
