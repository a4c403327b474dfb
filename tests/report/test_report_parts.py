"""The report's small parts: intervals, cells, labels, JSON inside a script element."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from execmem.report.build import run_labels
from execmem.report.packing import script_json
from execmem.report.tables import cell
from execmem.runs.paired_stats import paired_bootstrap, percentile_interval


def test_the_interval_of_a_mean_is_the_paired_one_against_zero():
    values = np.random.default_rng(3).random(40)
    paired = paired_bootstrap(values, np.zeros(40), 2_000, seed=5)
    assert percentile_interval(values, 2_000, seed=5) == (paired.low, paired.high)
    low, high = percentile_interval(values, 2_000, seed=5)
    assert low < values.mean() < high


def test_cells_read_as_numbers_text_or_json():
    assert [cell(None), cell(True), cell(1234), cell(0.61254), cell(12345.678), cell("x"), cell([1, 2])] == [
        "–", "yes", "1,234", "0.6125", "12,345.7", "x", "[1, 2]"
    ]  # fmt: skip


def test_runs_of_one_folder_name_are_told_apart_by_their_parent(tmp_path: Path):
    a, b, c = tmp_path / "x" / "bm25", tmp_path / "y" / "bm25", tmp_path / "y" / "gold"
    assert list(run_labels([a, b, c]).values()) == ["x/bm25", "y/bm25", "gold"]


def test_json_in_a_script_element_cannot_close_it():
    text = script_json({"q": "</script><script>alert(1)</script>", "line": "a\u2028b"})
    assert "</" not in text and "\u2028" not in text
    assert json.loads(text) == {"q": "</script><script>alert(1)</script>", "line": "a\u2028b"}
