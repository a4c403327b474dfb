"""The score definitions, checked on hand-built cases where the numbers are known."""

from __future__ import annotations

import pytest

from execmem.suites.vehicle.calls import parse_call_string as c
from execmem.suites.vehicle.scoring import PRF, score_prediction, tool_score

HEADREST = c('carcontrol_seat_set_headrest_height(seat="driver", value=44)')
AMBIENT_GREEN = c('carcontrol_light_set_ambient_color(color="green")')  # changes color and is_on


def test_exact_prediction():
    score = score_prediction([HEADREST], [HEADREST])
    assert score.exact_match
    assert score.field == score.value == score.tool == PRF(1.0, 1.0, 1.0)


def test_right_field_wrong_value():
    score = score_prediction([HEADREST], [c('carcontrol_seat_set_headrest_height(seat="driver", value=40)')])
    assert not score.exact_match
    assert score.field == PRF(1.0, 1.0, 1.0)
    assert score.value == PRF(0.0, 0.0, 0.0)
    assert (score.counts.tp, score.counts.correct, score.counts.fp) == (1, 0, 0)


def test_group_target_gives_false_positive():
    score = score_prediction([HEADREST], [c('carcontrol_seat_set_headrest_height(seat="front", value=44)')])
    assert not score.exact_match
    assert score.field.precision == 0.5 and score.field.recall == 1.0
    assert score.value.precision == 0.5
    assert score.tool == PRF(0.0, 0.0, 0.0)


def test_partial_change_is_a_miss():
    # the gold changes color and powers the ambient light on; the prediction only powers it on
    score = score_prediction([AMBIENT_GREEN], [c("carcontrol_light_set_ambient_enabled(enabled=true)")])
    assert score.counts.should_change == 2 and score.counts.missed == 1
    assert score.field == PRF.of(1.0, 0.5)
    assert not score.exact_match


def test_case_insensitive_strings_and_numeric_equality():
    gold = [c('carcontrol_navigation_navigate_to(destination="Airport")')]
    pred = [c('carcontrol_navigation_navigate_to(destination="AIRPORT")')]
    assert score_prediction(gold, pred).exact_match
    # True is stored for an int field and equals 1 to the scorer
    gold = [c('carcontrol_seat_set_heating_level(seat="driver", level=1)')]
    pred = [c('carcontrol_seat_set_heating_level(seat="driver", level=true)')]
    assert score_prediction(gold, pred).exact_match


def test_empty_reference():
    default = [c("carcontrol_instrumentPanel_set_brightness(brightness=3)")]
    nothing = score_prediction(default, [])
    assert nothing.exact_match and nothing.field == PRF(1.0, 1.0, 1.0) and nothing.value.f1 == 1.0
    assert nothing.tool == PRF(0.0, 0.0, 0.0)
    extra = score_prediction(default, [HEADREST])
    assert not extra.exact_match
    # |C| = 0 and the prediction changed something: the reference scores recall 0, not 1
    assert extra.field == PRF(0.0, 0.0, 0.0) and extra.value == PRF(0.0, 0.0, 0.0)


def test_empty_reference_recall_is_all_or_nothing_for_both_state_levels():
    rejected = [c("carcontrol_instrumentPanel_set_brightness(brightness=6)")]  # out of range: no change
    for predicted, expected in (([], 1.0), (rejected, 1.0), ([HEADREST, HEADREST], 0.0)):
        score = score_prediction(rejected, predicted)
        assert score.field.recall == score.value.recall == expected
        assert score.field.precision == score.value.precision == expected
        assert score.exact_match is (expected == 1.0)


def test_failing_and_unknown_predictions_change_nothing():
    score = score_prediction([HEADREST], [c("carcontrol_seat_set_headrest_height(value=44)"), c("nope(a=1)")])
    assert score.counts.tp == score.counts.fp == 0
    assert score.field == PRF(0.0, 0.0, 0.0)


def test_added_path_must_be_added_and_removed_path_removed():
    station = [c('carcontrol_radio_play_station(name="News FM")')]
    assert score_prediction(station, [c('carcontrol_radio_play_station(frequency="98.7MHz")')]).exact_match
    removed = [c("carcontrol_HUD_switch(switch=null)")]  # the raw-storing switch removes the path
    assert score_prediction(removed, removed).exact_match
    wrong = score_prediction(removed, [c('carcontrol_HUD_switch(switch="x")')])
    assert wrong.counts.tp == 1 and wrong.counts.correct == 0


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        (["a(x=1)", "a(x=1)"], ["a(x=1)"], PRF.of(1.0, 0.5)),
        (["a(x=1)"], ["a(x=1)", "a(x=1)"], PRF.of(0.5, 1.0)),
        (["a(x=1, y=2)"], ["a(y=2, x=1)"], PRF(1.0, 1.0, 1.0)),
        (["a(x=1)"], [], PRF(0.0, 0.0, 0.0)),
    ],
)
def test_tool_score_counts_each_gold_call_once(gold, pred, expected):
    assert tool_score([c(s) for s in gold], [c(s) for s in pred]) == expected
