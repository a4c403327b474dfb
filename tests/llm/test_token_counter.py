"""Token counters for --tokenizer: OpenAI encodings, a model's tokenizer.json, the chars fallback."""

from __future__ import annotations

import math

import pytest

from execmem.llm.token_counter import (
    CharCounter,
    TokenizerError,
    make_counter,
    openai_encoding,
)

TEXT = "[2024-03-01 08:15] Gary: set the driver seat heating to level 3 when it is below 5 degrees"


def _word_tokenizer(path):
    """A tiny word-level tokenizer.json: one token per whitespace-separated word."""
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(sorted(set(TEXT.split())))}}
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tokenizer.save(str(path))
    return path


@pytest.mark.parametrize(
    ("model", "encoding"),
    [("gpt-4o-mini", "o200k_base"), ("openai/gpt-4.1", "o200k_base"), ("o3-mini", "o200k_base"),
     ("gpt-4-turbo", "cl100k_base"), ("gpt-3.5-turbo", "cl100k_base"), ("qwen2.5:7b", None),
     ("SmolLM2-135M", None)],
)  # fmt: skip
def test_openai_names_map_to_their_encoding(model, encoding):
    assert openai_encoding(model) == encoding


def test_an_openai_model_is_counted_with_its_encoding_offline():
    pytest.importorskip("bpe_openai", reason='the offline encodings come with "execmem[tokenizers]"')
    counter = make_counter("auto", "gpt-4o-mini")
    assert counter.name == "tiktoken:o200k_base" and counter.describe()["backend"] == "bpe-openai"
    assert counter.count("Hello world") == 2  # o200k_base: "Hello", " world"
    assert counter.count(TEXT) > math.ceil(len(TEXT) / 4)  # timestamps and digits cost more than chars/4


def test_a_named_tokenizer_file_or_its_folder_counts_with_the_models_own_tokens(tmp_path):
    path = _word_tokenizer(tmp_path / "tokenizer.json")
    for spec in (str(path), str(tmp_path)):
        counter = make_counter(spec, "any-model")
        assert counter.count(TEXT) == len(TEXT.split())
        assert counter.describe()["kind"] == "tokenizer.json" and counter.describe()["sha256"]


def test_unknown_models_fall_back_to_characters_with_a_margin():
    counter = make_counter("auto", "qwen2.5:7b")
    assert isinstance(counter, CharCounter) and "name one with --tokenizer" in counter.describe()["why"]
    assert counter.count(TEXT) == math.ceil(len(TEXT) * 1.5 / 4)
    assert make_counter("chars", "gpt-4o").name == "chars/4x1.5"


@pytest.mark.parametrize("spec", ["no/such/tokenizer.json", "tiktoken:no_such_encoding"])
def test_a_tokenizer_that_cannot_be_used_is_a_clear_error(spec):
    with pytest.raises(TokenizerError, match="tokenizer|encoding"):
        make_counter(spec, "m")


def test_a_file_that_is_not_a_tokenizer_is_named(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    pytest.importorskip("tokenizers")
    with pytest.raises(TokenizerError, match="not a readable tokenizer.json"):
        make_counter(str(bad), "m")
