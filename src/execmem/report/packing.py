"""Data the page carries: JSON, gzip-compressed and base64-encoded, unpacked in the browser with
``DecompressionStream`` (so 2,500 episodes stay a few megabytes), and JSON safe inside ``<script>``."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any


def pack(value: Any) -> str:
    """``value`` as compact JSON, gzip at level 9, base64."""
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack(text: str) -> Any:
    """The inverse of :func:`pack` (what the page's script does)."""
    return json.loads(gzip.decompress(base64.b64decode(text)).decode("utf-8"))


def script_json(value: Any) -> str:
    """JSON to place inside ``<script type="application/json">``: no ``<`` can close the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
