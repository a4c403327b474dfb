"""SIEVE's model-facing stages through the fake server: the judge's screen and the distiller's checks."""

from __future__ import annotations

import asyncio
import json

from execmem.agents.coding.sieve.distiller import LLMDistiller
from execmem.agents.coding.sieve.judge import LLMJudge
from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig
from execmem.runs.coding.sieve import screen_stage
from execmem.runs.coding.sieve.distill_stage import distill_pair
from execmem.suites.coding.history import HistoryItem
from execmem.suites.coding.tasks import load_tasks
from execmem.testing.fake_server import FakeServer, Reply
from tests.coding.sieve_support import make_sieve_tasks, sieve_config


def judge_policy(body: dict) -> Reply:
    """Relevant only when the earlier issue is about double (a rule the test can check)."""
    sent = json.loads(body["messages"][1]["content"])
    if "inc(3)" in sent["earlier_issue"]:
        return Reply(content="I think not.")  # no JSON, twice: a judge failure
    return Reply(
        content=json.dumps({"relevant": "double(3)" in sent["earlier_issue"], "reason": "same function?"})
    )


def test_the_judge_keeps_only_the_candidates_it_finds_relevant(tmp_path):
    tasks = load_tasks(make_sieve_tasks(tmp_path))
    targets = ["alpha__inc-2", "alpha__double-3", "alpha__double-4"]
    with FakeServer(judge_policy) as server:
        config = sieve_config(
            tmp_path / "tasks" / "tasks.jsonl", tmp_path / "out", server.base_url, judge=True
        )

        async def go():
            model = OpenAIChatModel(config.model)
            try:
                judge = LLMJudge(model)
                stage = screen_stage.screen_stage(
                    config, "sha", targets, [t.instance_id for t in tasks], judge
                )
                valid = {t.instance_id for t in tasks}
                return await screen_stage.run_screen(
                    stage, tasks, targets, valid, config, judge, lambda m: None
                )
            finally:
                await model.aclose()

        results = asyncio.run(go())
        sent = [json.loads(b["messages"][1]["content"]) for b in server.requests]
    assert results["alpha__inc-2"]["kept"] == ["alpha__double-1"]
    assert results["alpha__double-3"]["shortlist"] == ["alpha__double-1", "alpha__inc-2"]
    assert results["alpha__double-3"]["kept"] == ["alpha__double-1"]
    assert "error" in results["alpha__double-3"]["judge"]["alpha__inc-2"]
    assert results["alpha__double-4"]["kept"] == ["alpha__double-3", "alpha__double-1"]
    assert all(r["dropped"] is None for r in results.values())
    assert all(set(s) == {"new_issue", "earlier_issue", "shared"} for s in sent)
    target_patch = next(t.patch for t in tasks if t.instance_id == "alpha__double-3")
    assert not any(
        target_patch in b["messages"][1]["content"] for b in server.requests
    )  # evidence, not the patch


ITEM = HistoryItem(
    instance_id="alpha__double-1",
    repo="local/alpha",
    created_at="2024-01-01T00:00:00Z",
    problem_statement="double(3) gave 9",
    trajectory="step 1:\n$ grep -n 'def double' alpha/core.py",
    model_patch="--- a/alpha/core.py\n+++ b/alpha/core.py\n+    return x * 2",
    resolved=True,
    end_reason="submitted",
    seed=0,
)


def distilled(tmp_path, fields: dict, drop_unanchored: bool = False) -> dict:
    tasks = load_tasks(make_sieve_tasks(tmp_path))
    target = next(t for t in tasks if t.instance_id == "alpha__double-3")
    with FakeServer(lambda body: Reply(content=json.dumps(fields))) as server:

        async def go():
            model = OpenAIChatModel(ModelConfig(model="m", base_url=server.base_url))
            try:
                return await distill_pair(target, ITEM, LLMDistiller(model), drop_unanchored)
            finally:
                await model.aclose()

        return asyncio.run(go())


FIELDS = {
    "bug_class": "wrong constant",
    "root_cause": "`return x * 3` in alpha/core.py",
    "fix_pattern": "return `x * 2` from double",
    "reusable_lesson": "check the multiplier first",
}


def test_an_anchored_experience_is_ok_and_an_unanchored_one_is_flagged(tmp_path):
    line = distilled(tmp_path / "a", FIELDS)
    assert line["status"] == "ok" and line["anchoring"]["unanchored"] == [
        "return x * 3"
    ]  # not in the trajectory
    assert line["distiller"]["kind"] == "llm" and line["text"].startswith("Bug class: wrong constant")
    invented = {**FIELDS, "reusable_lesson": "see helpers/mult.py and scale_value"}
    flagged = distilled(tmp_path / "b", invented, drop_unanchored=True)
    assert flagged["status"] == "unanchored"
    assert {"helpers/mult.py", "scale_value"} <= set(flagged["anchoring"]["unanchored"])


def test_an_experience_naming_its_target_is_dropped(tmp_path):
    line = distilled(tmp_path, {**FIELDS, "reusable_lesson": "same as alpha__double-3"})
    assert line["status"] == "leak" and line["leaks"] == ["alpha__double-3"]


def test_the_pool_scope_runs_every_pool_task_and_the_shortlist_scope_only_the_kept(tmp_path):
    from execmem.runs.coding.sieve.episodes import EpisodeRuns
    from execmem.runs.coding.sieve.history_stage import history_specs

    tasks = load_tasks(make_sieve_tasks(tmp_path))
    valid = {t.instance_id for t in tasks}
    for scope, expected in (
        ("shortlist", ["alpha__double-1"]),
        ("pool", ["alpha__double-1", "alpha__inc-2"]),
    ):
        config = sieve_config(
            tmp_path / "tasks" / "tasks.jsonl",
            tmp_path / "out",
            "http://127.0.0.1:9/v1",
            history_scope=scope,
            screen={"top_n": 1},
        )
        target = next(t for t in tasks if t.instance_id == "alpha__double-3")
        screened = {
            "alpha__double-3": {**screen_stage.screen_target(target, tasks, valid, config), "dropped": None}
        }
        specs = history_specs(EpisodeRuns(config, lambda m: None), screened, config)
        assert [spec.task for spec in specs] == expected and all(spec.memory == "off" for spec in specs)
