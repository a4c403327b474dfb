"""FTS5 specifics: free-text queries never hit FTS5 syntax, and scores are per user space."""

from __future__ import annotations

import pytest

from execmem.memory.bm25 import Bm25Memory, fts_query
from tests.memory.conftest import at, msg

NOTES = [
    msg("2025-03-03 08:30", "Set the ambient light to green for the drive.", 1),
    msg("2025-03-03 08:31", "Navigation to the forestry site, and avoid tolls.", 2),
    msg("2025-03-03 08:32", "Seat massage on, level two (gentle).", 3),
]


@pytest.fixture
def memory() -> Bm25Memory:
    memory = Bm25Memory(windowing="turn")
    memory.add(NOTES, "gary", at("2025-03-03 09:00"))
    return memory


@pytest.mark.parametrize(
    ("query", "expected_line"),
    [
        ('"ambient light', 1),
        ("ambient (light", 1),
        ("green AND light", 1),
        ("NOT green OR", 1),
        ("-green", 1),
        ("gree* light*", 1),
        ("🚗 green 🌲", 1),
        ("NEAR(forestry tolls)", 2),
        ("text:forestry", 2),
        ("^massage {level} [two] 'gentle'", 3),
        ("seat-massage; level: two!", 3),
        ("avoid + tolls & \\ / | ~ @ # $ % =", 2),
    ],
)
def test_punctuation_and_operators_in_queries_are_plain_text(memory, query, expected_line):
    items = memory.search(query, "gary", 3)
    assert items[0].line_ids == (expected_line,)


@pytest.mark.parametrize("query", ["", "   ", "🚗🌲", "***", '""', "()", "-", "^:*"])
def test_queries_without_words_find_nothing(memory, query):
    assert memory.search(query, "gary", 3) == []


def test_an_operator_word_is_searched_as_a_word(memory):
    assert [item.line_ids for item in memory.search("AND", "gary", 3)] == [(2,)]


def test_query_builder_quotes_every_word():
    assert fts_query('a "b" AND (c) a') == '"a" OR "b" OR "AND" OR "c"'
    assert fts_query("🚗 -*") is None


def test_more_matching_terms_score_higher_and_scores_are_positive(memory):
    items = memory.search("ambient light green drive", "gary", 3)
    assert items[0].line_ids == (1,)
    assert all(item.score > 0 for item in items)
    assert [item.score for item in items] == sorted((item.score for item in items), reverse=True)


def test_scores_do_not_depend_on_other_users():
    alone = Bm25Memory(windowing="turn")
    alone.add(NOTES, "gary", at("2025-03-03 09:00"))
    crowded = Bm25Memory(windowing="turn")
    other = [msg("2025-03-03 08:00", f"green light number {i}", 100 + i) for i in range(30)]
    crowded.add(other, "patricia", at("2025-03-03 09:00"))
    crowded.add(NOTES, "gary", at("2025-03-03 09:00"))
    query = "green light for the drive"
    assert [i.score for i in alone.search(query, "gary", 3)] == [
        i.score for i in crowded.search(query, "gary", 3)
    ]
