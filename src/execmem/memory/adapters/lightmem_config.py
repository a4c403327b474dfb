"""The configuration dict ``LightMemory.from_config`` takes, built from the adapter's settings.

The keys are LightMem's (``lightmem.configs.base.BaseMemoryConfigs`` and the module configs under
it), as its README configures it: LLMLingua-2 pre-compression, a topic segmenter sharing the
compressor's model (LightMem builds the segmenter from the compressor, so segmentation needs
compression), extraction by the ``openai`` memory manager, ``embedding`` indexing and retrieval
over a local Qdrant folder, ``offline`` update. Without segmentation each ``add()`` is one segment.
Only the embedding index is used: LightMem's ``context`` index writes ``memory_entries.json`` into
the current directory.
"""

from __future__ import annotations

from typing import Any


def lightmem_config(settings: Any, api_key: str, folder: str, collection: str) -> dict[str, Any]:
    """LightMem's config for one user's ``LightMemory`` (``settings``: a ``LightMemConfig``)."""
    s = settings
    return {
        "pre_compress": s.pre_compress,
        "pre_compressor": _compressor(s) if s.pre_compress else None,
        "topic_segment": s.topic_segment,
        "precomp_topic_shared": s.topic_segment,
        "topic_segmenter": {"model_name": "llmlingua-2", "configs": {}} if s.topic_segment else None,
        "messages_use": s.messages_use,
        "extraction_mode": s.extraction_mode,
        "metadata_generate": True,
        "text_summary": True,
        "memory_manager": {
            "model_name": "openai",
            "configs": {
                "model": s.model,
                "api_key": api_key,
                "max_tokens": s.max_tokens,
                "openai_base_url": s.base_url,
            },
        },
        "extract_threshold": s.extract_threshold,
        "index_strategy": "embedding",
        "text_embedder": {"model_name": s.embedder, "configs": _embedder(s, api_key)},
        "retrieve_strategy": "embedding",
        "embedding_retriever": {
            "model_name": "qdrant",
            "configs": {
                "collection_name": collection,
                "embedding_model_dims": s.embedding_dims,
                "path": folder,
                "on_disk": True,  # LightMem deletes the folder of a collection that is not on disk
            },
        },
        "update": "offline",
    }


def _compressor(s: Any) -> dict[str, Any]:
    llmlingua = {"model_name": s.llmlingua_model, "device_map": s.device, "use_llmlingua2": True}
    return {
        "model_name": "llmlingua-2",
        "configs": {
            "llmlingua_config": llmlingua,
            "compress_config": {"instruction": "", "rate": s.compress_rate, "target_token": -1},
        },
    }


def _embedder(s: Any, api_key: str) -> dict[str, Any]:
    if s.embedder == "openai":
        return {
            "model": s.embedding_model,
            "api_key": api_key,
            "embedding_dims": s.embedding_dims,
            "openai_base_url": s.base_url,
        }
    return {
        "model": s.embedding_model,
        "embedding_dims": s.embedding_dims,
        "model_kwargs": {"device": s.device},
    }
