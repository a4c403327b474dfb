"""Charts as Vega-Lite specs drawn to SVG here, at report time (``vl-convert-python``, the
``report`` extra): the file needs no script and no network to show them, and they print.

Every chart is drawn twice, for a wide screen and for a phone; CSS shows one. Colours are the
Okabe-Ito palette (safe for the common colour-vision deficiencies) without its black, so marks
read on the light and the dark theme alike; axis text and grid lines take the theme's colours
from the page's CSS (the SVG's classes ``role-axis-label`` etc.).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from execmem.memory.registry import MissingExtraError
from execmem.report.captions import CAPTIONS

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#999999")
REFERENCE = "#888888"
"""Reference lines (zero, the diagonal): mid grey, visible on both themes."""
WIDE, NARROW = 600, 320
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
ROW = 22
"""Height of one bar or point row, in pixels."""
Spec = Callable[[int], dict[str, Any]]
"""A chart: its Vega-Lite spec for a given width."""
_SIZE = re.compile(r'^(<svg[^>]*?) width="([0-9.]+)" height="([0-9.]+)"')


def config(width: int) -> dict[str, Any]:
    """The look shared by every chart: no frame, a faint grid, the palette, legends below."""
    return {
        "background": None,
        "font": FONT,
        "view": {"stroke": None},
        "axis": {
            "labelFontSize": 11, "titleFontSize": 12, "titleFontWeight": "normal",
            "gridColor": REFERENCE, "gridOpacity": 0.25, "domainColor": REFERENCE, "tickColor": REFERENCE,
            "labelLimit": 200 if width >= WIDE else 110,
        },
        "legend": {"orient": "bottom", "labelFontSize": 11, "titleFontSize": 11, "titleFontWeight": "normal",
                   "columns": 3 if width >= WIDE else 2, "labelLimit": 220 if width >= WIDE else 130},
        "range": {"category": list(PALETTE)},
        "title": {"fontSize": 13, "fontWeight": "normal", "anchor": "start"},
    }  # fmt: skip


@dataclass(frozen=True)
class Figure:
    """One chart of the page: what it answers, and its two drawings."""

    id: str
    title: str
    answers: str
    wide: str
    narrow: str


def converter() -> Any:
    """The Vega-Lite converter; MissingExtraError naming the extra when it is not installed."""
    try:
        import vl_convert
    except ImportError as exc:
        raise MissingExtraError("execmem report", "execmem", "report", exc) from None
    return vl_convert


def figure(chart_id: str, spec_for: Spec) -> Figure:
    """``spec_for(width)`` drawn at both widths, under its caption (``captions.CAPTIONS``)."""
    title, answers = CAPTIONS[chart_id]
    wide, narrow = draw(spec_for(WIDE), WIDE, title), draw(spec_for(NARROW), NARROW, title)
    return Figure(chart_id, title, answers, wide, narrow)


def draw(spec: dict[str, Any], width: int, title: str) -> str:
    """The spec as an SVG that scales down to its container (its size kept as the most it grows to)."""
    full = {"$schema": SCHEMA, "config": config(width), **spec}
    svg = converter().vegalite_to_svg(full)
    found = _SIZE.match(svg)
    if found is None:  # an SVG without a size is shown as it is
        return svg
    head, w, h = found.groups()
    sized = f'{head} role="img" aria-label="{html.escape(title)}" style="max-width:{w}px"'
    return sized + svg[found.end() :]


def interval_chart(rows: list[dict[str, Any]], x_title: str, zero: bool, domain: list[float] | None) -> Spec:
    """A point with its interval per row (``label``, ``value``, ``low``, ``high``): the leaderboard's
    ESM, a paired ΔESM, a resolved rate. ``zero`` draws the no-difference line."""

    def spec(width: int) -> dict[str, Any]:
        scale = {"domain": domain} if domain else {"zero": False}
        x = {"type": "quantitative", "title": x_title, "scale": scale}
        y = {"field": "label", "type": "nominal", "title": None, "sort": None}
        layers: list[dict[str, Any]] = [
            {"mark": {"type": "rule", "strokeWidth": 2, "color": PALETTE[0]},
             "encoding": {"x": {**x, "field": "low"}, "x2": {"field": "high"}, "y": y}},
            {"mark": {"type": "point", "filled": True, "size": 70, "color": PALETTE[0]},
             "encoding": {"x": {**x, "field": "value"}, "y": y}},
        ]  # fmt: skip
        if zero:
            layers.insert(0, _zero_rule())
        return {"width": width, "height": ROW * len(rows), "data": {"values": rows}, "layer": layers}

    return spec


def _zero_rule() -> dict[str, Any]:
    return {
        "data": {"values": [{"zero": 0}]},
        "mark": {"type": "rule", "color": REFERENCE, "strokeDash": [4, 3]},
        "encoding": {"x": {"field": "zero", "type": "quantitative"}},
    }
