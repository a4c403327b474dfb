"""The LLM distiller and judge through the fake server: validated JSON, one repair, cached replies."""

from __future__ import annotations

import asyncio
import json

import pytest

from execmem.agents.coding.sieve.distiller import DistillError, LLMDistiller
from execmem.agents.coding.sieve.judge import LLMJudge
from execmem.agents.coding.sieve.prompts import DISTILL_VERSION, JUDGE_VERSION
from execmem.llm.cache import ResponseCache
from execmem.llm.client import OpenAIChatModel
from execmem.llm.config import ModelConfig
from execmem.suites.coding.history import HistoryItem, TargetView
from execmem.testing.fake_server import FakeServer, Reply, scripted

FIELDS = {
    "bug_class": "wrong operator",
    "root_cause": "`x * 3` in alpha/core.py",
    "fix_pattern": "use `x * 2`",
    "reusable_lesson": "check `double` first",
}
TARGET = TargetView(
    instance_id="alpha__double-3",
    repo="local/alpha",
    problem_statement="double(3) is wrong",
    created_at="2024-01-03T00:00:00Z",
)
ITEM = HistoryItem(
    instance_id="alpha__double-1",
    repo="local/alpha",
    created_at="2024-01-01T00:00:00Z",
    problem_statement="double(3) gave 9",
    trajectory="step 1:\n$ grep -n 'def double' alpha/core.py",
    model_patch="+    return x * 2",
    resolved=True,
    end_reason="submitted",
    seed=0,
)


def distill(server: FakeServer, cache: ResponseCache | None = None):
    async def go():
        model = OpenAIChatModel(ModelConfig(model="m", base_url=server.base_url, backoff_base_s=0.01), cache)
        try:
            return await LLMDistiller(model).distill(TARGET, ITEM)
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_a_fenced_json_reply_becomes_an_experience_and_is_cached(tmp_path):
    reply = Reply(content=f"Here it is:\n```json\n{json.dumps(FIELDS)}\n```")
    cache = ResponseCache(tmp_path / "responses.sqlite")
    with FakeServer(scripted([reply])) as server:
        experience = distill(server, cache)
        again = distill(server, cache)
        assert len(server.requests) == 1  # the second answer came from the cache
    cache.close()
    assert experience.model_dump() == FIELDS and again == experience
    body = server.requests[0]
    assert body["messages"][0]["role"] == "system" and "<earlier_patch>" in body["messages"][1]["content"]
    assert LLMDistiller(None).name == "llm" and DISTILL_VERSION == "sieve-distill-v1"


def test_an_invalid_reply_gets_one_repair_turn():
    bad, good = Reply(content='{"bug_class": "x"}'), Reply(content=json.dumps(FIELDS))
    with FakeServer(scripted([bad, good])) as server:
        experience = distill(server)
        repair = server.requests[1]["messages"]
    assert experience.bug_class == "wrong operator"
    assert repair[-2]["content"] == '{"bug_class": "x"}' and "root_cause" in repair[-1]["content"]


def test_two_invalid_replies_are_a_distill_error():
    replies = scripted([Reply(content="no json here"), Reply(content="{not json}")])
    with FakeServer(replies) as server, pytest.raises(DistillError, match="after 2 replies"):
        distill(server)


def test_the_judge_returns_a_validated_verdict():
    async def go(server):
        model = OpenAIChatModel(ModelConfig(model="m", base_url=server.base_url))
        try:
            return await LLMJudge(model).judge(
                "new issue", "old issue", {"shared_files": ["a.py"], "score": 1.5}
            )
        finally:
            await model.aclose()

    with FakeServer(scripted([Reply(content='{"relevant": true, "reason": "same function"}')])) as server:
        verdict = asyncio.run(go(server))
        sent = json.loads(server.requests[0]["messages"][1]["content"])
    assert verdict.relevant and verdict.reason == "same function"
    assert sent == {
        "new_issue": "new issue",
        "earlier_issue": "old issue",
        "shared": {"shared_files": ["a.py"], "score": 1.5},
    }
    assert JUDGE_VERSION == "sieve-judge-v1"
