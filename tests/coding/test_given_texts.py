"""Given-text files and the ``given`` memory condition: the file format, the slot, the manifest, a run."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from execmem.cli.main import app
from execmem.runs.coding.compare import load_coding_run
from execmem.suites.coding.conditions import MemorySource, describe_memory, memory_for
from execmem.suites.coding.given import GivenFileError, GivenText, dump_given, load_given
from execmem.suites.coding.records import RecordError, RecordPolicy
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.fake_server import FakeServer
from tests.coding.conftest import needs_bwrap
from tests.coding.paired_support import make_task, make_tasks, memory_oracle, run_condition


def line(target, text="alpha/core.py", arm="original", **derived):
    return GivenText(target=target, text=text, arm=arm, derived_from=derived)


def test_a_given_file_round_trips_and_names_its_errors(tmp_path):
    path = tmp_path / "given.jsonl"
    dump_given([line("a", kind="strip", seed=0), line("b", None, kind="strip", seed=0)], path)
    found = load_given(path)
    assert list(found) == ["a", "b"] and found["b"].text is None and found["a"].derived_from["seed"] == 0
    a, b = '{"target": "a", "text": "x", "arm": "o"}\n', '{"target": "b", "text": "y", "arm": "p"}\n'
    cases = {
        a + a: ":2: field target: duplicate",
        a + b: ":2: field arm",
        '{"target": "a", "text": "x"}\n': ":1: field arm",
        '{"target": "a", "text": "x", "arm": "o", "extra": 1}\n': ":1: field extra",
        "[1]\n": ":1: expected a JSON object",
        "\n": "no target",
    }  # fmt: skip
    for content, message in cases.items():
        path.write_text(content)
        with pytest.raises(GivenFileError, match=message):
            load_given(path)


def test_the_given_condition_injects_the_text_and_declares_the_arm(tmp_path):
    task = make_task(tmp_path, "alpha", 1, "double")
    given = {"alpha__double": line("alpha__double", "look at alpha/core.py", "flagged-removed",
                                   kind="strip-ablation", seed=3, history_ids=["h1"])}  # fmt: skip
    source = MemorySource([task], RecordPolicy(), given=given, given_sha256="abc")
    memory = memory_for("given", task, source)
    assert memory.text == "look at alpha/core.py" and memory.sources == ("h1",)
    assert memory_for("irrelevant", task, source).to_dict()["chars"] == len(memory.text)
    block = describe_memory("given", source)
    assert block["arm"] == "flagged-removed" and block["given_file_sha256"] == "abc"
    assert block["derived_from"] == {"kind": "strip-ablation", "seed": 3, "history_ids": ["h1"]}
    assert describe_memory("irrelevant", source)["matches"] == "given"
    leaking = {"alpha__double": line("alpha__double", "see alpha__double")}
    with pytest.raises(RecordError, match="names its target"):
        memory_for("given", task, MemorySource([task], RecordPolicy(), given=leaking))
    with pytest.raises(RecordError, match="needs a given-text file"):
        memory_for("given", task, MemorySource([task], RecordPolicy()))
    with pytest.raises(RecordError, match="takes no given-text file"):
        memory_for("record", task, source)


@needs_bwrap
def test_a_given_run_injects_each_targets_text_and_only_runs_its_targets(tmp_path):
    tasks_file = make_tasks(tmp_path, ("alpha",))
    tasks = load_tasks(tasks_file)
    given = tmp_path / "gate.jsonl"
    dump_given([line("alpha__double", "alpha/core.py holds the bug", "gate", kind="gate"),
                line("alpha__inc", None, "gate", kind="gate")], given)  # fmt: skip
    with FakeServer(memory_oracle(tasks)) as server:
        run_condition(tmp_path / "run", tasks_file, server.base_url, "given", seeds=1, given_file=given)
    run = load_coding_run(tmp_path / "run")
    assert run.manifest["tasks"]["order"] == ["alpha__double", "alpha__inc"]
    memory_block = run.manifest["memory"]
    assert memory_block["arm"] == "gate" and memory_block["derived_from"] == {"kind": "gate"}
    assert {e["instance_id"]: e["resolved"] for e in run.episodes.values()} == {
        "alpha__double": True,
        "alpha__inc": False,
    }
    memory = json.loads((tmp_path / "run" / "memory.json").read_text())
    assert memory["alpha__inc"]["text"] is None


def test_the_cli_names_a_missing_given_file_and_an_unknown_target(tmp_path):
    tasks_file = make_tasks(tmp_path, ("alpha",))
    runner = CliRunner()
    args = ["coding", "run", "--tasks", str(tasks_file), "--model", "m", "--memory", "given"]
    missing = runner.invoke(app, [*args, "--given", str(tmp_path / "no.jsonl"), "--out", str(tmp_path / "r")])
    assert missing.exit_code == 2 and "--given" in missing.output
    unknown = tmp_path / "unknown.jsonl"
    dump_given([line("zeta__x")], unknown)
    out = ["--out", str(tmp_path / "r2"), "--unsafe-local"]
    result = runner.invoke(app, [*args, "--given", str(unknown), *out])
    assert result.exit_code == 2 and "target zeta__x is not in" in result.output
