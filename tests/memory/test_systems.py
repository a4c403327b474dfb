"""Behaviour every embedded system owes the protocol: isolation, cut-off, reset, provenance."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from execmem.core.protocols import MemorySystem
from tests.memory.conftest import at, msg

EARLY = [
    msg("2025-03-03 08:30", "For the cabin I always want the ambient light in green, it calms me.", 1),
    msg("2025-03-03 08:31", "Noted, green ambient light it is.", 2, speaker="Justin Martinez"),
    msg("2025-03-10 19:05", "The forestry pamphlet needs a new chapter on Egleston.", 3),
]
LATE = [
    msg(
        "2025-04-12 09:00", "Change of plan: set the ambient light to purple from now on, green bores me.", 4
    ),
    msg("2025-04-12 09:02", "Purple ambient light from now on, got it.", 5, speaker="Justin Martinez"),
]
QUERY = "which colour should the ambient light be"


def lines(items) -> set[int]:
    return {line for item in items for line in item.line_ids}


def test_matches_the_protocol(build):
    memory = build()
    assert isinstance(memory, MemorySystem)
    assert memory.describe()["system"] == build.system


def test_one_user_never_sees_another_users_memory(build):
    memory = build()
    memory.add(
        [msg("2025-03-03 08:30", "Xylophone lessons every Tuesday at the conservatory.", 1)],
        "alice",
        at("2025-03-03 09:00"),
    )
    memory.add(
        [msg("2025-03-03 08:30", "Set the seat heater to level three please.", 7)],
        "bob",
        at("2025-03-03 09:00"),
    )
    query = "xylophone lessons conservatory Tuesday"
    assert "Xylophone" in memory.search(query, "alice", 5)[0].text
    for_bob = memory.search(query, "bob", 5)
    assert all("Xylophone" not in item.text for item in for_bob)
    assert lines(for_bob) <= {7}
    assert memory.search(query, "carol", 5) == []


def test_cut_off_returns_only_what_was_said_before_it(build):
    memory = build(windowing="turn")
    memory.add(EARLY, "gary", at("2025-03-10 20:00"))
    memory.add(LATE, "gary", at("2025-04-12 10:00"))
    assert {4, 5} <= lines(memory.search(QUERY, "gary", 5))
    before = memory.search(QUERY, "gary", 5, before=at("2025-04-01 00:00"))
    assert lines(before) and lines(before) <= {1, 2, 3}
    assert "green" in before[0].text and "purple" not in " ".join(item.text for item in before)


def test_cut_off_is_strict(build):
    memory = build(windowing="turn")
    memory.add(EARLY + LATE, "gary", at("2025-04-12 10:00"))
    assert 4 not in lines(memory.search(QUERY, "gary", 10, before=at("2025-04-12 09:00")))
    assert 4 in lines(memory.search(QUERY, "gary", 10, before=at("2025-04-12 09:01")))


def test_a_window_that_straddles_the_cut_off_is_hidden_whole(build):
    memory = build(windowing="hour")
    memory.add(LATE, "gary", at("2025-04-12 10:00"))
    assert memory.search(QUERY, "gary", 5, before=at("2025-04-12 09:01")) == []
    assert lines(memory.search(QUERY, "gary", 5, before=at("2025-04-12 09:03"))) == {4, 5}


def test_reset_clears_only_that_user(build):
    memory = build()
    memory.add(EARLY, "gary", at("2025-03-10 20:00"))
    memory.add(LATE, "patricia", at("2025-04-12 10:00"))
    memory.reset("gary")
    assert memory.search(QUERY, "gary", 5) == []
    assert lines(memory.search(QUERY, "patricia", 5)) == {4, 5}
    memory.add(LATE, "gary", at("2025-04-12 10:00"))
    assert lines(memory.search(QUERY, "gary", 5)) == {4, 5}


def test_items_carry_their_source_lines_and_times(build):
    memory = build(windowing="hour")
    memory.add(EARLY, "gary", at("2025-03-10 20:00"))
    items = {item.line_ids: item for item in memory.search(QUERY, "gary", 5)}
    assert set(items) == {(1, 2), (3,)}
    first = items[(1, 2)]
    assert first.timestamps == (at("2025-03-03 08:30"), at("2025-03-03 08:31"))
    assert (
        first.text.splitlines()[1] == "[2025-03-03 08:31] Justin Martinez: Noted, green ambient light it is."
    )
    assert first.metadata["written_at"] == "2025-03-10T20:00:00"


def test_hits_come_best_first_and_at_most_top_k(build):
    memory = build(windowing="turn")
    memory.add(EARLY + LATE, "gary", at("2025-04-12 10:00"))
    items = memory.search(QUERY, "gary", 2)
    assert len(items) == 2
    assert items[0].score >= items[1].score
    assert memory.search(QUERY, "gary", 0) == []


def test_state_lives_in_the_run_file(build, tmp_path):
    path = tmp_path / "run.sqlite"
    build(path=path, windowing="hour").add(EARLY, "gary", at("2025-03-10 20:00"))
    reopened = build(path=path, windowing="hour")
    assert lines(reopened.search(QUERY, "gary", 5)) == {1, 2, 3}
    assert reopened.describe()["path"] == str(path)


def test_a_collection_refuses_a_different_windowing(build, tmp_path):
    path = tmp_path / "run.sqlite"
    build(path=path, windowing="hour")
    with pytest.raises(ValueError, match="written as"):
        build(path=path, windowing="turn")
    build(path=path, windowing="turn", collection="other")


def test_describe_records_windowing(build):
    memory = build(windowing={"mode": "window", "window_lines": 4})
    assert memory.describe()["windowing"] == {"mode": "window", "window_lines": 4}


def test_paths_must_be_absolute(build):
    with pytest.raises(ValidationError, match="absolute"):
        build(path="relative/run.sqlite")
