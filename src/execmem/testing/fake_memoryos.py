"""An in-process fake of MemoryOS (``memoryos-pro`` 0.1.0): the ``Memoryos`` class the adapter drives.

Shaped like the library where the adapter touches it: the constructor's keywords, ``add_memory``,
the short-term queue, ``retriever.retrieve_context``, the long-term user and assistant stores and
``client.client.chat.completions.create`` (the ``openai`` client every model call goes through).
Like MemoryOS it keeps a short-term queue of ``short_term_capacity`` pairs, moves the oldest to
mid-term pages when the queue is full, extracts knowledge and a profile from the pages once
``mid_term_heat_threshold`` pages wait, stamps those with the wall clock, files assistant knowledge
under ``assistant_id``, answers a failed model call with MemoryOS's placeholder text and keeps its
state in files under ``data_storage_path``. Pages are ranked by the cosine of the vectors of the
encoder installed in ``utils._model_cache`` (a missing one is an error: MemoryOS would fetch a
model from the hub). ``fake_modules()`` gives the modules to put in ``sys.modules``.
"""

from __future__ import annotations

import itertools
import json
import time
import types
from pathlib import Path
from types import SimpleNamespace as Obj
from typing import Any

import numpy as np

PLACEHOLDER = "Error: Could not get response from LLM."
_ids = itertools.count(1)


class FakeCompletions:
    """``chat.completions.create``: echoes the last message; ``fail`` makes it raise."""

    def __init__(self) -> None:
        self.fail = False
        self.requests: list[dict[str, Any]] = []

    def create(self, model: str, messages: list[dict[str, str]], **_: Any) -> Obj:
        self.requests.append({"model": model, "messages": messages})
        if self.fail:
            raise ConnectionError("fake endpoint is down")
        content = messages[-1]["content"]
        usage = Obj(prompt_tokens=len(content.split()), completion_tokens=3)
        return Obj(choices=[Obj(message=Obj(content=content))], usage=usage)


class FakeOpenAIClient:
    """MemoryOS's ``OpenAIClient``: ``chat_completion`` hides every failure behind a placeholder."""

    def __init__(self, api_key: str, base_url: str | None) -> None:
        self.api_key, self.base_url = api_key, base_url
        self.client = Obj(chat=Obj(completions=FakeCompletions()))

    def chat_completion(self, model: str, task: str, text: str) -> str:
        try:
            response = self.client.chat.completions.create(
                model=model, messages=[{"role": "user", "content": text}]
            )
        except Exception:  # noqa: BLE001 - what MemoryOS does
            return PLACEHOLDER
        return f"{task}: {response.choices[0].message.content}"


def get_embedding(text: str) -> np.ndarray:
    model = utils._model_cache.get("all-MiniLM-L6-v2")
    if model is None:
        raise RuntimeError("no encoder installed: MemoryOS would download all-MiniLM-L6-v2 from the hub")
    vector = np.asarray(model.encode([text], convert_to_numpy=True)[0], dtype=np.float32)
    return vector / (np.linalg.norm(vector) or 1.0)


utils = types.ModuleType("memoryos.utils")
utils._model_cache = {}
utils._embedding_cache = {}
utils.clear_embedding_cache = utils._embedding_cache.clear
utils.get_embedding = get_embedding


class FakeMemoryos:
    """``Memoryos``: one user's memory under ``data_storage_path`` (see the module docstring)."""

    def __init__(self, user_id: str, openai_api_key: str, data_storage_path: str, **options: Any) -> None:
        self.user_id, self.assistant_id = user_id, options.get("assistant_id", "default_assistant_profile")
        self.options = options
        self.client = FakeOpenAIClient(openai_api_key, options.get("openai_base_url"))
        self.model = options.get("llm_model", "gpt-4o-mini")
        self.user_file = Path(data_storage_path, "users", user_id, "state.json")
        self.assistant_file = Path(data_storage_path, "assistants", self.assistant_id, "knowledge.json")
        self.state = _load(self.user_file, {"short": [], "pages": [], "knowledge": [], "profile": "None"})
        self.assistant_knowledge = _load(self.assistant_file, [])
        self.short_term_memory = Obj(get_all=lambda: list(self.state["short"]))
        self.retriever = Obj(retrieve_context=self._retrieve)
        self.user_long_term_memory = Obj(
            get_user_knowledge=lambda: list(self.state["knowledge"]),
            get_raw_user_profile=lambda user_id: self.state["profile"],
        )
        self.assistant_long_term_memory = Obj(get_assistant_knowledge=lambda: list(self.assistant_knowledge))

    def add_memory(self, user_input: str, agent_response: str, timestamp: str | None = None) -> None:
        self.state["short"].append(
            {"user_input": user_input, "agent_response": agent_response, "timestamp": timestamp}
        )
        while len(self.state["short"]) >= self.options.get("short_term_capacity", 10):
            self._evict(self.state["short"].pop(0))
        waiting = [p for p in self.state["pages"] if not p["analyzed"]]
        if waiting and len(waiting) >= self.options.get("mid_term_heat_threshold", 5.0):
            self._analyse(waiting)
        self._save()

    def _evict(self, pair: dict[str, Any]) -> None:
        meta = self.client.chat_completion(self.model, "meta", pair["user_input"])
        page = {**pair, "page_id": f"page_{next(_ids)}", "meta_info": meta, "analyzed": False}
        page["page_embedding"] = get_embedding(
            f"User: {pair['user_input']} Assistant: {pair['agent_response']}"
        ).tolist()
        self.state["pages"].append(page)

    def _analyse(self, pages: list[dict[str, Any]]) -> None:
        now = time.strftime("%Y-%m-%d %H:%M:%S")
        for page in pages:
            fact = self.client.chat_completion(self.model, "knowledge", page["user_input"].splitlines()[0])
            self.state["knowledge"].append({"knowledge": fact, "timestamp": now})
            answer = page["agent_response"].splitlines()[0]
            self.assistant_knowledge.append({"knowledge": f"Assistant answered: {answer}", "timestamp": now})
            page["analyzed"] = True
        said = " | ".join(p["user_input"].splitlines()[0] for p in self.state["pages"] if p["analyzed"])
        self.state["profile"] = self.client.chat_completion(self.model, "profile", said)

    def _retrieve(
        self, user_query: str, user_id: str, top_k_sessions: int = 5, top_k_knowledge: int = 20
    ) -> dict:
        self.client.chat_completion(
            self.model, "keywords", user_query
        )  # MemoryOS asks for the query's keywords
        query = get_embedding(user_query)
        limit = self.options.get("retrieval_queue_capacity", 7)
        return {
            "retrieved_pages": _ranked(query, self.state["pages"], "page_embedding", limit),
            "retrieved_user_knowledge": _by_text(query, self.state["knowledge"], top_k_knowledge),
            "retrieved_assistant_knowledge": _by_text(query, self.assistant_knowledge, top_k_knowledge),
            "retrieved_at": time.strftime("%Y-%m-%d %H:%M:%S"),
        }

    def _save(self) -> None:
        for path, document in ((self.user_file, self.state), (self.assistant_file, self.assistant_knowledge)):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(document))


def _ranked(query: np.ndarray, rows: list[dict[str, Any]], field: str, limit: int) -> list[dict[str, Any]]:
    scored = [(float(np.dot(query, np.asarray(row[field]))), i, row) for i, row in enumerate(rows)]
    return [row for score, _, row in sorted(scored, key=lambda s: (-s[0], s[1])) if score > 0.1][:limit]


def _by_text(query: np.ndarray, entries: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    vectors = [{**e, "vector": get_embedding(e["knowledge"]).tolist()} for e in entries]
    return [{k: v for k, v in e.items() if k != "vector"} for e in _ranked(query, vectors, "vector", limit)]


def _load(path: Path, empty: Any) -> Any:
    return json.loads(path.read_text()) if path.exists() else empty


def fake_modules() -> dict[str, types.ModuleType]:
    """``memoryos`` and ``memoryos.utils`` as the adapter imports them (the caches emptied)."""
    utils._model_cache.clear()
    utils._embedding_cache.clear()
    package = types.ModuleType("memoryos")
    package.Memoryos, package.utils = FakeMemoryos, utils
    return {"memoryos": package, "memoryos.utils": utils}
