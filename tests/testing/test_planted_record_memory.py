"""The planted-record memory (a test double): each form has the properties the attribution looks for,
derived from the target's eligible history as the harness ingests it, and the planted solver reacts
to them as planned (the clean record names the fix, the degraded ones do not)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from execmem.memory import available_memories, create_memory
from execmem.runs.coding.layer_b.ingest import history_ids, ingest, user_space
from execmem.suites.coding.anchoring import claims
from execmem.suites.coding.attribution.anchors import gold_anchors
from execmem.suites.coding.attribution.rules import is_clean
from execmem.suites.coding.history import target_view
from execmem.suites.coding.system_input import target_query
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.planted_coding_solver import names_fix
from execmem.testing.planted_record_forms import INSTRUCTION_LINES, PROMPT
from execmem.testing.planted_record_memory import FORMS, PlantedRecordMemory
from tests.coding.layer_b_support import write_sieve_history
from tests.coding.sieve_support import make_sieve_tasks

TARGET = "alpha__double-3"  # its history: alpha__double-1 (fixed double, the useful one), alpha__inc-2


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("planted-memory")
    tasks = {t.instance_id: t for t in load_tasks(make_sieve_tasks(root))}
    from execmem.runs.coding.layer_b.history import SieveHistory

    history = SieveHistory(write_sieve_history(root / "sieve", list(tasks.values())))
    return tasks, history


def search(world, form: str, top_k: int = 5, **options):
    tasks, history = world
    target = tasks[TARGET]
    memory = PlantedRecordMemory(form=form, **options)
    space = user_space(TARGET)
    record = ingest(memory, space, history.eligible(TARGET), target_view(target))
    items = memory.search(
        target_query(target_view(target), "problem"), space, top_k, before=target.created_at
    )
    return target, items, [history_ids(item.line_ids, record["lines"]) for item in items]


def test_the_clean_record_is_short_and_names_the_fix(world):
    target, items, sources = search(world, "clean")
    text = items[0].text
    assert len(text.splitlines()) <= 2 and "alpha/core.py" in text and "function double" in text
    assert names_fix(target, text) and sources[0] == ["alpha__double-1"]  # the useful history, first
    assert items[0].metadata == {"planted_form": "clean", "planted_role": "planted"}
    assert [item.metadata["planted_role"] for item in items[1:]] == ["other"]


def test_the_polluted_record_is_a_long_transcript_with_instructions_and_shell_noise(world):
    target, items, _ = search(world, "polluted")
    lines = items[0].text.splitlines()
    flagged = [line for line in lines if INSTRUCTION_LINES.search(line)]
    assert len(lines) >= 60 and 4 <= len(flagged) < len(lines) / 3  # enough unflagged lines to strip
    assert any(line.startswith(PROMPT) for line in lines) and "[exit code 0]" in lines
    assert names_fix(target, items[0].text)  # the experience is in there, buried
    longer = search(world, "polluted", polluted_lines=120)[1][0].text
    assert len(longer.splitlines()) >= 120


def test_degraded_forms_do_not_name_the_fix(world):
    target, general, _ = search(world, "over-general")
    assert claims(general[0].text) == [] and not names_fix(target, general[0].text)
    _, symptom, _ = search(world, "symptom")
    assert symptom[0].text.startswith("Error seen in an earlier task:")
    assert not re.search(r"(?m)^(?:[-+@]|diff )", symptom[0].text) and not names_fix(target, symptom[0].text)
    _, missing, _ = search(world, "fix-missing")
    fields = [line.split(":")[0] for line in missing[0].text.splitlines()]
    assert fields == ["Bug class", "Root cause", "Reusable lesson"]  # the fix field is missing
    assert "alpha/core.py" in missing[0].text and not names_fix(target, missing[0].text)


def test_the_misleading_record_is_clean_and_anchored_but_names_another_function(world):
    target, items, sources = search(world, "misleading")
    text = items[0].text
    assert sources[0] == ["alpha__double-1"] and items[0].metadata["planted_role"] == "planted"
    assert "alpha/core.py" in text and "function inc" in text and "double" not in text
    assert not names_fix(target, text)  # the file is right, the function is not: the solver misses
    assert is_clean(text, gold_anchors(target.patch))  # no form rule holds: a failure is in the use
    assert [item.metadata["planted_role"] for item in items[1:]] == ["other"]


def test_the_ranking_miss_puts_the_useful_record_second(world):
    target, items, sources = search(world, "ranking-miss")
    roles = [item.metadata["planted_role"] for item in items]
    assert roles[:2] == ["distractor", "useful"] and sources[:2] == [["alpha__inc-2"], ["alpha__double-1"]]
    assert not names_fix(target, items[0].text) and names_fix(target, items[1].text)
    assert len(search(world, "ranking-miss", top_k=1)[1]) == 1


def test_forms_per_space_and_the_cut_off(world):
    memory = PlantedRecordMemory(form="mixed", plan={"target-a": "symptom"})
    assert memory.form_for("target-a") == "symptom"
    spread = {memory.form_for(f"target-{n}") for n in range(60)}
    assert spread == set(FORMS) and memory.form_for("target-7") == memory.form_for("target-7")
    with pytest.raises(ValueError, match="unknown planted form 'vague'"):
        PlantedRecordMemory(form="vague")
    target, _, _ = search(world, "clean")
    tasks, history = world
    memory = PlantedRecordMemory()
    ingest(memory, "s", history.eligible(TARGET), target_view(target))
    cut = tasks["alpha__inc-2"].created_at + timedelta(microseconds=1)  # before inc-2's later messages
    assert len(memory.search("double", "s", 5, before=cut)) == 1
    assert memory.search("double", "other space", 5) == []


def test_it_is_selectable_only_where_its_test_plugin_is_installed(planted_memory):
    assert planted_memory in available_memories()
    memory = create_memory(planted_memory, form="ranking-miss")
    assert memory.describe()["test_double"] is True and memory.describe()["form"] == "ranking-miss"


def test_execmem_itself_never_lists_it():
    assert "planted-records" not in available_memories()
