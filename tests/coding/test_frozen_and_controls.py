"""The frozen benchmark file, the everyday-text control and the frozen memory condition."""

from __future__ import annotations

import json
import re

import pytest

from execmem.suites.coding.conditions import MemorySource, describe_memory, memory_for
from execmem.suites.coding.everyday import everyday_memory, everyday_sentences
from execmem.suites.coding.experience import Experience
from execmem.suites.coding.frozen import FrozenFileError, dump_frozen, frozen_record, load_frozen
from execmem.suites.coding.records import RecordError, RecordPolicy
from tests.coding.paired_support import make_task

SOFTWARE_WORDS = {
    "bug",
    "code",
    "test",
    "tests",
    "fix",
    "patch",
    "error",
    "function",
    "class",
    "file",
    "python",
    "program",
    "computer",
    "software",
    "data",
    "debug",
    "commit",
    "repository",
    "variable",
    "compile",
    "server",
    "api",
    "script",
    "module",
    "install",
    "git",
    "email",
    "app",
    "website",
    "online",
    "digital",
    "algorithm",
}
EXPERIENCE = Experience(
    bug_class="wrong arithmetic operator",
    root_cause="`x * 3` in alpha/core.py",
    fix_pattern="replace `x * 3` with `x * 2`",
    reusable_lesson="look at `double` first",
)


def test_a_frozen_file_round_trips_and_names_its_errors(tmp_path):
    path = tmp_path / "frozen.jsonl"
    record = frozen_record("alpha__neg", "local/alpha", EXPERIENCE, {"history_ids": ["alpha__double"]})
    dump_frozen([record], path)
    loaded = load_frozen(path)
    assert loaded == {"alpha__neg": record} and record.text == EXPERIENCE.render()
    assert json.loads(path.read_text())["format"] == "execmem-frozen-v1"
    path.write_text(path.read_text() * 2)
    with pytest.raises(FrozenFileError, match=r"frozen.jsonl:2: field target: duplicate 'alpha__neg'"):
        load_frozen(path)
    broken = json.loads(path.read_text().splitlines()[0])
    del broken["experience"]["fix_pattern"]
    path.write_text(json.dumps(broken) + "\n")
    with pytest.raises(FrozenFileError, match=r"frozen.jsonl:1: field experience.fix_pattern"):
        load_frozen(path)
    with pytest.raises(FrozenFileError, match="cannot read"):
        load_frozen(tmp_path / "missing.jsonl")


def test_the_everyday_corpus_has_no_software_content():
    sentences = everyday_sentences()
    assert len(sentences) >= 100 and len(set(sentences)) == len(sentences)
    for sentence in sentences:
        words = set(re.findall(r"[a-z]+", sentence.lower()))
        assert not words & SOFTWARE_WORDS, sentence
        assert not re.search(r"[_/`(){}\[\]<>=#]", sentence), sentence


def test_the_everyday_control_is_exactly_as_long_and_fixed_per_target():
    for size in (1, 57, 400, 9000):  # 9000 characters: longer than the corpus, so it repeats
        memory = everyday_memory("alpha__neg", size)
        assert len(memory.text) == size and memory == everyday_memory("alpha__neg", size)
    assert everyday_memory("alpha__neg", 0).text is None
    assert everyday_memory("alpha__neg", 300).text != everyday_memory("beta__neg", 300).text


def test_the_frozen_condition_injects_the_record_and_the_controls_match_its_length(tmp_path):
    tasks = [make_task(tmp_path, "alpha", 1, "double"), make_task(tmp_path, "beta", 2, "neg")]
    record = frozen_record("beta__neg", "local/beta", EXPERIENCE, {"history_ids": ["beta__x"]})
    source = MemorySource(tasks, RecordPolicy(), {"beta__neg": record}, "sha")
    frozen = memory_for("frozen", tasks[1], source)
    assert frozen.text == record.text and frozen.sources == ("beta__x",)
    for control in ("irrelevant", "other-repo"):
        assert len(memory_for(control, tasks[1], source).text) == len(record.text)
    assert memory_for("frozen", tasks[0], source).text is None  # no record: no memory under any condition
    assert memory_for("irrelevant", tasks[0], source).text is None
    block = describe_memory("irrelevant", source)
    assert block["frozen_file_sha256"] == "sha" and block["matches"] == "frozen" and block["corpus_sha256"]
    with pytest.raises(RecordError, match="takes no frozen file"):
        memory_for("record", tasks[1], source)


def test_a_frozen_text_naming_its_target_is_refused(tmp_path):
    task = make_task(tmp_path, "alpha", 1, "double")
    leaking = EXPERIENCE.model_copy(update={"reusable_lesson": "this is alpha__double again"})
    source = MemorySource(
        [task], RecordPolicy(), {"alpha__double": frozen_record("alpha__double", "local/alpha", leaking, {})}
    )
    with pytest.raises(RecordError, match="names its target"):
        memory_for("frozen", task, source)
