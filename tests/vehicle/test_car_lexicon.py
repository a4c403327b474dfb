"""The car's vocabulary reaches memory systems that take a lexicon, and only them."""

from __future__ import annotations

from execmem.agents.vehicle.conditions.memory_system import open_system
from execmem.memory.terms import Lexicon
from execmem.suites.vehicle.lexicon import car_lexicon
from execmem.suites.vehicle.world import MODULES


def test_the_lexicon_is_made_of_the_tools_words():
    words = Lexicon(car_lexicon()).words
    assert set(MODULES) <= set(car_lexicon())  # module names, kept whole for the memory to split
    assert {"instrument", "panel", "ambient", "headrest", "ventilation", "hud", "sunroof", "light"} <= words
    assert {"volume", "brightness", "temperature", "heat"} <= words  # tool and parameter names, stemmed
    assert not {"the", "to", "of", "carcontrol"} & words
    assert not {"based", "needed", "true", "automatically"} & words  # description filler stays out


def test_open_system_offers_the_lexicon_to_systems_that_take_one(tmp_path):
    path = str(tmp_path / "state.sqlite")
    fusion = open_system("fusion", path, {"embedder": "hashing"})
    assert fusion.describe()["lexicon"]["words"] == len(Lexicon(car_lexicon()).words)
    bm25 = open_system("bm25", str(tmp_path / "bm25.sqlite"), {})
    assert "lexicon" not in bm25.describe()["settings"]
