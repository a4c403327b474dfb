"""Counting tokens the way the endpoint will, to fit prompts into a model's context window.

``--tokenizer`` takes:

* ``auto`` (default): the OpenAI encoding of an OpenAI model name (``gpt-4o*``, ``gpt-4.1*``,
  ``o1``/``o3``/``o4*``, ``gpt-5*``: o200k_base; ``gpt-4``, ``gpt-3.5*``: cl100k_base), else the
  fallback below;
* ``tiktoken:ENCODING``: that OpenAI encoding (o200k_base, cl100k_base);
* a path to a Hugging Face ``tokenizer.json`` (or a folder holding one): the model's own tokenizer;
* ``chars``: the fallback, ``ceil(characters / 4 * 1.25)``. Real tokenizers give 3.2-3.7
  characters per token on the vehicle history, so plain characters/4 undercounts by up to 25%;
  the margin covers that, at the price of cutting a little more than needed.

OpenAI encodings come from ``bpe-openai`` (bundled data, works offline) or ``tiktoken`` (fetches
its data once); tokenizer files are read with ``tokenizers``: ``pip install "execmem[tokenizers]"``.
Every counter describes itself, and runs record which one they used.
"""

from __future__ import annotations

import hashlib
import importlib
import math
import warnings
from pathlib import Path
from typing import Any, Protocol

from execmem.core.tokens import CHARS_PER_TOKEN

FALLBACK_MARGIN = 1.5
EXTRA = 'pip install "execmem[tokenizers]"'
_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")
_CL100K_PREFIXES = ("gpt-4", "gpt-3.5", "gpt-35")


class TokenizerError(ValueError):
    """The tokenizer asked for cannot be used; the message says why and what to do."""


class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int: ...

    def describe(self) -> dict[str, Any]: ...


class CharCounter:
    """The documented fallback: characters / 4, times a safety margin."""

    def __init__(self, margin: float = FALLBACK_MARGIN, why: str = "asked for") -> None:
        self.margin, self.why = margin, why
        self.name = f"chars/{CHARS_PER_TOKEN}x{margin:g}"

    def count(self, text: str) -> int:
        return math.ceil(len(text) * self.margin / CHARS_PER_TOKEN)

    def describe(self) -> dict[str, Any]:
        return {"kind": "chars", "name": self.name, "margin": self.margin, "why": self.why}


class EncodingCounter:
    """An OpenAI BPE encoding (bpe-openai or tiktoken; both give the same tokens)."""

    def __init__(self, encoding: str) -> None:
        self.encoding, self.backend = encoding, ""
        self._encoder = self._load(encoding)
        self.name = f"tiktoken:{encoding}"

    def _load(self, encoding: str) -> Any:
        problems = []
        for backend in ("bpe_openai", "tiktoken"):
            try:
                with warnings.catch_warnings():  # bpe-openai reads its data with a deprecated call
                    warnings.simplefilter("ignore", DeprecationWarning)
                    encoder = importlib.import_module(backend).get_encoding(encoding)
            except ImportError:
                problems.append(f"{backend} is not installed")
                continue
            except Exception as exc:  # noqa: BLE001 - tiktoken fails offline in many ways
                problems.append(f"{backend}: {type(exc).__name__}: {str(exc)[:120]}")
                continue
            self.backend = backend.replace("_", "-")
            return encoder
        raise TokenizerError(f"cannot load the {encoding} encoding ({'; '.join(problems)}); {EXTRA}")

    def count(self, text: str) -> int:
        return len(self._encoder.encode_ordinary(text))

    def describe(self) -> dict[str, Any]:
        return {"kind": "tiktoken", "name": self.name, "encoding": self.encoding, "backend": self.backend}


class FileTokenizerCounter:
    """A model's own tokenizer from its Hugging Face ``tokenizer.json``."""

    def __init__(self, path: Path) -> None:
        path = path / "tokenizer.json" if path.is_dir() else path
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise TokenizerError(f"reading {path} needs the tokenizers package; {EXTRA}") from None
        try:
            data = path.read_bytes()
            self._tokenizer = Tokenizer.from_str(data.decode("utf-8"))
        except Exception as exc:  # noqa: BLE001 - OSError, bad UTF-8, or the plain Exception of tokenizers
            raise TokenizerError(f"--tokenizer {path}: not a readable tokenizer.json ({exc})") from None
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self.path, self.sha256 = path, hashlib.sha256(data).hexdigest()
        self.name = f"tokenizer.json sha256:{self.sha256[:12]}"

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def describe(self) -> dict[str, Any]:
        return {"kind": "tokenizer.json", "name": self.name, "path": str(self.path), "sha256": self.sha256}


def openai_encoding(model: str) -> str | None:
    """The encoding of an OpenAI model name (a provider prefix like ``openai/`` is ignored)."""
    name = model.rsplit("/", 1)[-1].lower()
    if name.startswith(_O200K_PREFIXES):
        return "o200k_base"
    if name.startswith(_CL100K_PREFIXES):
        return "cl100k_base"
    return None


def make_counter(spec: str, model: str) -> TokenCounter:
    """The counter ``--tokenizer spec`` asks for (see the module docstring)."""
    if spec == "chars":
        return CharCounter()
    if spec.startswith("tiktoken:"):
        return EncodingCounter(spec.split(":", 1)[1])
    if spec == "auto":
        encoding = openai_encoding(model)
        if encoding is None:
            return CharCounter(why=f"no tokenizer known for model {model!r}; name one with --tokenizer")
        try:
            return EncodingCounter(encoding)
        except TokenizerError as exc:
            return CharCounter(why=str(exc))
    path = Path(spec).expanduser()
    if not path.exists():
        raise TokenizerError(
            f"--tokenizer {spec!r}: not auto, chars, tiktoken:ENCODING or an existing tokenizer.json"
        )
    return FileTokenizerCounter(path.resolve())
