"""The one-command offline pipeline: SIEVE, the three Layer A runs and the comparison."""

from __future__ import annotations

import json

from execmem.suites.coding.frozen import load_frozen
from execmem.testing.offline_sieve import main
from tests.coding.conftest import needs_bwrap
from tests.coding.sieve_support import make_sieve_tasks


@needs_bwrap
def test_one_command_runs_sieve_and_layer_a(tmp_path, capfd):
    tasks_file = make_sieve_tasks(tmp_path)
    assert (
        main(["--out", str(tmp_path / "out"), "--tasks", str(tasks_file), "--seeds", "2", "--ceiling", "0"])
        == 0
    )
    printed = capfd.readouterr()
    assert "SIEVE funnel" in printed.out and "Layer A: resolved rate per solver" in printed.out
    assert "$ execmem coding sieve" in printed.err and "$ execmem coding compare" in printed.err
    kept = load_frozen(tmp_path / "out" / "sieve" / "frozen.jsonl")
    assert sorted(kept) == [
        "alpha__double-3",
        "alpha__double-4",
        "beta__neg-2",
    ]  # no plants: no ceiling, no stall
    report = json.loads((tmp_path / "out" / "layer-a" / "compare.json").read_text())
    effect = next(e for e in report["effects"] if e["comparison"] == "frozen - off")
    assert report["n_targets"] == 3 and effect["estimate"] == 1.0
    assert [t["id"] for t in report["tables"]] == ["layer-a-resolved", "layer-a-cost"]
