"""The planted coding solver: its documented probability, its draws, its near-miss patches."""

from __future__ import annotations

import json
import subprocess

import pytest

from execmem.testing.fake_policies import Fault
from execmem.testing.planted_coding_solver import Plant, PlantedSolver, draw, fix_location, near_miss, planted
from tests.coding.sieve_support import BUGS, GOOD, make_sieve_tasks


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    from execmem.suites.coding.tasks import load_tasks

    return load_tasks(make_sieve_tasks(tmp_path_factory.mktemp("planted")))


def by_id(tasks, name):
    return next(task for task in tasks if task.instance_id == name)


def test_the_probability_follows_the_documented_formula(tasks):
    solver = PlantedSolver(tasks, {"alpha__inc-2": Plant(0.3, 0.6)}, ceiling=0.0, length_cost=0.1)
    task = by_id(tasks, "alpha__inc-2")
    naming = "look at `inc` in alpha/core.py"
    assert solver.probability(task, None) == pytest.approx(0.3)
    assert solver.probability(task, naming) == pytest.approx(0.3 + 0.6 - 0.1 * len(naming) / 1000)
    assert solver.probability(task, "alpha/core.py only") == pytest.approx(0.3 - 0.1 * 18 / 1000)
    assert solver.probability(task, "`inc` but no file") < 0.3  # the function alone is not enough
    assert solver.probability(task, "the include in alpha/core.py") < 0.3  # a whole word, not a part
    assert solver.probability(task, "x" * 10_000) == 0.0  # clipped at 0
    assert fix_location(task) == ("alpha/core.py", ["inc"])
    init = task.model_copy(update={"meta": {"function": "Cache.__init__"}})
    solver.plants[init.instance_id] = Plant(0.0, 1.0)
    assert solver.probability(init, "`Cache.__init__` in alpha/core.py") > 0.9
    assert solver.probability(init, "see alpha/core.py and pkg/__init__.py") == 0  # a path is no function


def test_instruction_lines_and_any_memory_cost_what_they_are_planted_to(tasks):
    plants = {"alpha__inc-2": Plant(0.8, 0.0, memory_cost=0.5)}
    solver = PlantedSolver(tasks, plants, ceiling=0.0, length_cost=0.0, instruction_cost=0.1)
    task = by_id(tasks, "alpha__inc-2")
    told = "You must read this.\nPlease submit soon.\nnothing to see"
    assert solver.probability(task, None) == pytest.approx(0.8)
    assert solver.probability(task, "nothing to see") == pytest.approx(0.3)
    assert solver.probability(task, told) == pytest.approx(0.8 - 0.5 - 2 * 0.1)
    assert solver.describe()["instruction_cost"] == 0.1


def test_draws_are_fixed_per_instance_and_seed_and_shared_by_conditions(tasks):
    solver = PlantedSolver(tasks, ceiling=0.0, base=0.5)
    task = by_id(tasks, "alpha__double-1")
    assert draw("0", task.instance_id, 3) == draw("0", task.instance_id, 3) != draw("0", task.instance_id, 2)
    for seed in range(20):  # off resolves => a memory naming the fix resolves too (common random numbers)
        if solver.resolves(task, None, seed):
            assert solver.resolves(task, "`double` in alpha/core.py", seed)
    values = [draw("x", i) for i in range(2000)]
    assert min(values) >= 0 and max(values) < 1 and abs(sum(values) / 2000 - 0.5) < 0.03
    ceiling = PlantedSolver(tasks, ceiling=0.5)
    share = sum(p.p_off == 1.0 for p in ceiling.plants.values()) / len(tasks)
    assert 0 < share < 1


def test_the_near_miss_applies_to_the_buggy_base_and_names_the_function(tasks, tmp_path):
    task = by_id(tasks, "alpha__double-3")
    _, _, function, good, bad = BUGS[task.instance_id]
    repo = tmp_path / "repo"
    (repo / "alpha").mkdir(parents=True)
    (repo / "alpha" / "core.py").write_text(GOOD.replace(good, bad, 1))
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    patch = near_miss(task.patch, [function])
    subprocess.run(["git", "apply", "-"], cwd=repo, input=patch.encode(), check=True)
    text = (repo / "alpha" / "core.py").read_text()
    assert "    # execmem-scripted: double reviewed here, left unchanged\n    return x * 4" in text
    assert text.replace("    # execmem-scripted: double reviewed here, left unchanged\n", "") == GOOD.replace(
        good, bad, 1
    )


def test_the_factory_reads_a_plant_file_and_other_prompts_are_refused(tasks, tmp_path):
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_text("".join(task.model_dump_json() + "\n" for task in tasks))
    plant = tmp_path / "plant.json"
    plant.write_text(
        json.dumps({"beta__neg-1": {"p_off": 0.5, "effect": 0.2, "stall": True, "memory_cost": 0.1}})
    )
    solver = planted(tasks=str(tasks_file), plant=str(plant), ceiling="0", instruction_cost="0.2")
    assert (
        solver.plants["beta__neg-1"] == Plant(0.5, 0.2, True, 0.1)
        and solver.plants["alpha__inc-2"].p_off == 0.0
    )
    assert solver.instruction_cost == 0.2
    refused = solver(
        {"messages": [{"role": "system", "content": "judge"}, {"role": "user", "content": "{}"}]}
    )
    assert isinstance(refused, Fault) and refused.status == 400
