"""An in-process fake of LightMem (zjunlp/LightMem, commit 59133a4): ``LightMemory`` as the adapter uses it.

Shaped like the library where the adapter touches it: ``LightMemory.from_config`` (refusing keys
LightMem's configs do not have, and a segmenter without a compressor, as LightMem's constructor
fails then), ``add_memory`` (messages must alternate user / assistant and carry a ``time_stamp``;
times are normalised as LightMem does), ``manager.client.chat.completions.create`` (one call per
extraction; a failure is swallowed and nothing is stored, as in LightMem), ``text_embedder.embed``
(the fake server's hashed vectors), the offline update, and ``embedding_retriever`` with LightMem's
Qdrant wrapper's calls (inclusive ``gte``/``lte`` range filters, ``set_payload`` merging) over a
folder that persists to a file and is locked while a client is open, like local Qdrant.
Extraction makes one fact per user message, "<speaker> said: <content>", timed like that message.
``fake_modules()`` gives the modules to put in ``sys.modules``.
"""

from __future__ import annotations

import json
import re
import types
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace as Obj
from typing import Any

import numpy as np

from execmem.testing.fake_server import hashed_embedding

CONFIG_KEYS = {
    "pre_compress", "pre_compressor", "topic_segment", "precomp_topic_shared", "topic_segmenter",
    "messages_use", "metadata_generate", "text_summary", "memory_manager", "extract_threshold",
    "index_strategy", "text_embedder", "multimodal_embedder", "history_db_path", "retrieve_strategy",
    "context_retriever", "embedding_retriever", "summary_retriever", "update", "kv_cache", "kv_cache_path",
    "graph_mem", "version", "logging", "extraction_mode",
}  # fmt: skip
QDRANT_KEYS = {
    "collection_name",
    "embedding_model_dims",
    "client",
    "host",
    "port",
    "path",
    "url",
    "api_key",
    "on_disk",
}
_WORD = re.compile(r"[a-z]{5,}")


class FakeQdrant:
    """LightMem's ``Qdrant`` wrapper over a local folder (one collection)."""

    open_paths: set[str] = set()

    def __init__(self, configs: dict[str, Any]) -> None:
        unknown = set(configs) - QDRANT_KEYS
        if unknown:
            raise ValueError(f"Extra fields not allowed: {', '.join(sorted(unknown))}")
        self.path = Path(configs["path"])
        if str(self.path) in FakeQdrant.open_paths:
            raise RuntimeError(
                f"Storage folder {self.path} is already accessed by another instance of Qdrant client"
            )
        FakeQdrant.open_paths.add(str(self.path))
        self.file = self.path / "collection.json"
        self.points: dict[str, dict[str, Any]] = (
            json.loads(self.file.read_text()) if self.file.exists() else {}
        )
        self.client = Obj(close=lambda: FakeQdrant.open_paths.discard(str(self.path)))

    def insert(self, vectors: list, payloads: list, ids: list) -> None:
        for vector, payload, point_id in zip(vectors, payloads, ids, strict=True):
            self.points[point_id] = {"id": point_id, "vector": list(vector), "payload": dict(payload)}
        self._save()

    def search(
        self, query_vector: list, limit: int = 5, filters: dict | None = None, return_full: bool = False
    ):
        query = np.asarray(query_vector)
        hits = [
            {"id": p["id"], "score": float(np.dot(query, p["vector"])), "payload": dict(p["payload"])}
            for p in self.points.values()
            if _matches(p["payload"], filters or {})
        ]
        hits.sort(key=lambda hit: -hit["score"])
        return [hit if return_full else {"id": hit["id"], "score": hit["score"]} for hit in hits[:limit]]

    def update(self, vector_id: str, vector: list | None = None, payload: dict | None = None) -> None:
        point = self.points[vector_id]
        if vector is None:
            point["payload"].update(payload or {})  # set_payload merges
        else:
            point["vector"], point["payload"] = list(vector), dict(payload or point["payload"])
        self._save()

    def delete(self, vector_id: str) -> None:
        self.points.pop(vector_id)
        self._save()

    def exists(self, vector_id: str) -> bool:
        return vector_id in self.points

    def get_all(self, with_vectors: bool = True, with_payload: bool = True) -> list[dict[str, Any]]:
        return [
            {
                "id": p["id"],
                "payload": dict(p["payload"]) if with_payload else None,
                "vector": p["vector"] if with_vectors else None,
            }
            for p in self.points.values()
        ]

    def reset(self) -> None:
        self.points = {}
        self._save()

    def _save(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        self.file.write_text(json.dumps(self.points))


def _matches(payload: dict[str, Any], filters: dict[str, Any]) -> bool:
    for key, wanted in filters.items():
        value = payload.get(key)
        if isinstance(wanted, dict):
            if value is None or (wanted.get("gte") is not None and value < wanted["gte"]):
                return False
            if wanted.get("lte") is not None and value > wanted["lte"]:
                return False
        elif value != wanted:
            return False
    return True


class FakeCompletions:
    def __init__(self) -> None:
        self.fail = False
        self.requests: list[dict[str, Any]] = []

    def create(self, **params: Any) -> Obj:
        self.requests.append(params)
        if self.fail:
            raise ConnectionError("fake endpoint is down")
        return Obj(usage=Obj(prompt_tokens=10, completion_tokens=5, total_tokens=15))


class FakeLightMemory:
    """``LightMemory``: one collection of memory entries (see the module docstring)."""

    def __init__(self, config: dict[str, Any]) -> None:
        unknown = set(config) - CONFIG_KEYS
        if unknown:
            raise ValueError(f"BaseMemoryConfigs has no fields {sorted(unknown)}")
        if config.get("topic_segment") and not config.get("pre_compress"):
            raise AttributeError("'LightMemory' object has no attribute 'compressor'")
        self.config = config
        self.dims = config["embedding_retriever"]["configs"]["embedding_model_dims"]
        self.manager = Obj(
            client=Obj(chat=Obj(completions=FakeCompletions())), config=config["memory_manager"]
        )
        self.text_embedder = Obj(embed=lambda text: hashed_embedding(str(text), self.dims))
        self.embedding_retriever = FakeQdrant(config["embedding_retriever"]["configs"])
        self.buffer: list[dict[str, Any]] = []

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> FakeLightMemory:
        return cls(config)

    def add_memory(self, messages: list[dict[str, Any]], METADATA_GENERATE_PROMPT: Any = None, *,  # noqa: N803
                   force_segment: bool = False, force_extract: bool = False) -> dict[str, Any]:  # fmt: skip
        for index, message in enumerate(messages):
            expected = "user" if index % 2 == 0 else "assistant"
            if message.get("role") != expected or not message.get("time_stamp"):
                raise ValueError(
                    f"message {index}: LightMem pairs each user message with the assistant one after it"
                )
        self.buffer.extend(_normalised(messages))
        if force_extract:
            self._extract(self.buffer)
            self.buffer = []
        return {"api_call_nums": 1 if force_extract else 0}

    def construct_update_queue_all_entries(self, top_k: int = 20, keep_top_n: int = 10) -> None:
        for point in self.embedding_retriever.points.values():
            point["payload"]["update_queue"] = []

    def offline_update_all_entries(self, score_threshold: float = 0.9) -> None:
        """An entry sharing a word of 5+ letters with a later entry is rewritten with it."""
        points = sorted(
            self.embedding_retriever.points.values(), key=lambda p: p["payload"]["float_time_stamp"]
        )
        for index, point in enumerate(points):
            later = [p for p in points[index + 1 :] if _shared(p, point)]
            if later:
                self._call()
                memory = f"{point['payload']['memory']} (now: {later[-1]['payload']['memory']})"
                self.embedding_retriever.update(
                    point["id"], point["vector"], {**point["payload"], "memory": memory}
                )

    def _extract(self, messages: list[dict[str, Any]]) -> None:
        try:
            self._call()
        except Exception:  # noqa: BLE001 - LightMem's meta_text_extract swallows it and stores nothing
            return
        for message in messages[::2]:
            speaker = message.get("speaker_name") or "user"
            fact = f"{speaker} said: {message['content']}"
            moment = datetime.fromisoformat(message["time_stamp"])
            payload = {
                "time_stamp": message["time_stamp"], "float_time_stamp": moment.timestamp(),
                "weekday": message["weekday"], "memory": fact, "topic_id": 0,
                "speaker_name": message.get("speaker_name", ""),
            }  # fmt: skip
            point_id = str(uuid.uuid4())
            self.embedding_retriever.insert([self.text_embedder.embed(fact)], [payload], [point_id])

    def _call(self) -> None:
        self.manager.client.chat.completions.create(
            model=self.manager.config["configs"]["model"], messages=[]
        )


def _normalised(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """LightMem's ``MessageNormalizer``: ISO times to milliseconds, 500 ms apart within one stamp."""
    seen: dict[str, datetime] = {}
    normalised = []
    for message in messages:
        raw = message["time_stamp"]
        moment = seen[raw] + timedelta(milliseconds=500) if raw in seen else datetime.fromisoformat(raw)
        seen[raw] = moment
        normalised.append(
            {
                **message,
                "time_stamp": moment.isoformat(timespec="milliseconds"),
                "weekday": moment.strftime("%a"),
            }
        )
    return normalised


def _shared(a: dict[str, Any], b: dict[str, Any]) -> bool:
    words = set(_WORD.findall(a["payload"]["memory"].lower())) - {"allen", "said"}
    return bool(words & set(_WORD.findall(b["payload"]["memory"].lower())))


def fake_modules() -> dict[str, types.ModuleType]:
    """``lightmem``, ``lightmem.memory`` and ``lightmem.memory.lightmem`` as the adapter imports them."""
    FakeQdrant.open_paths.clear()
    module = types.ModuleType("lightmem.memory.lightmem")
    module.LightMemory = FakeLightMemory
    return {"lightmem": types.ModuleType("lightmem"), "lightmem.memory": types.ModuleType("lightmem.memory"),
            "lightmem.memory.lightmem": module}  # fmt: skip
