"""The words fusion's lexical side compares: stems, stop words, clock times, lexicon terms."""

from __future__ import annotations

import pytest

from execmem.memory.terms import Lexicon, index_words, query_terms, states_number, stem


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("lights", "light"),
        ("lighting", "light"),
        ("adjusted", "adjust"),
        ("batteries", "battery"),
        ("glass", "glass"),
        ("bus", "bus"),
        ("his", "his"),
        ("sing", "sing"),
        ("red", "red"),
        ("speed", "speed"),
    ],
)
def test_stem_strips_only_common_suffixes_of_long_enough_words(word, expected):
    assert stem(word) == expected


def test_query_terms_drop_clock_times_and_stop_words_and_are_stemmed():
    assert query_terms("At 7:30 AM, Thomas told the car: 'Dim the lights to 40.'") == [
        "thoma",
        "told",
        "car",
        "dim",
        "light",
        "40",
    ]
    assert index_words("Thomas dimmed the lights") == ["thoma", "dimm", "the", "light"]


def test_lexicon_splits_identifiers_and_drops_stop_words():
    assert Lexicon(["instrumentPanel", "north_up", "set_the_Lights", "a"]).words == frozenset(
        {"instrument", "panel", "north", "set", "light"}
    )
    assert not Lexicon([])


def test_states_number():
    assert states_number("set it to 44") and states_number("video at 480p")
    assert not states_number("set it to warm")
