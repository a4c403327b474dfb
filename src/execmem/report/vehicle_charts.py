"""The vehicle charts, as Vega-Lite specs of a given width (``charts.figure`` draws them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from execmem.report.charts import PALETTE, REFERENCE, ROW, WIDE, Spec
from execmem.suites.vehicle.diagnosis import LABELS

LABEL_COLOURS = dict(zip(LABELS, ("#999999", "#F0E442", "#D55E00", "#E69F00", "#CC79A7", "#0072B2",
                                  "#56B4E9", "#009E73"), strict=True))  # fmt: skip
SHARE = {"format": ".0%"}


def run_colour(runs: Sequence[str]) -> dict[str, Any]:
    """One colour per run, the same in every chart."""
    domain = list(runs)
    colours = [PALETTE[n % len(PALETTE)] for n in range(len(domain))]
    return {"field": "run", "type": "nominal", "title": "run", "scale": {"domain": domain, "range": colours}}


def esm_by_type(rows: list[dict[str, Any]], runs: Sequence[str]) -> Spec:
    """Grouped bars: ESM per reasoning type (``type``, ``run``, ``esm``, ``n``)."""

    def spec(width: int) -> dict[str, Any]:
        types = sorted({r["type"] for r in rows}, key=lambda t: [r["type"] for r in rows].index(t))
        return {
            "width": width,
            "height": {"step": 9, "for": "offset"},
            "data": {"values": rows},
            "mark": {"type": "bar"},
            "encoding": {
                "y": {"field": "type", "type": "nominal", "title": None, "sort": types},
                "yOffset": {"field": "run", "sort": list(runs)},
                "x": {"field": "esm", "type": "quantitative", "scale": {"domain": [0, 1]},
                      "title": "ESM (share of episodes exactly right)"},
                "color": run_colour(runs),
            },
        }  # fmt: skip

    return spec


def value_vs_field(rows: list[dict[str, Any]], runs: Sequence[str]) -> Spec:
    """One point per run and reasoning type (``run``, ``type``, ``field_f1``, ``value_f1``); below the
    diagonal, memory knew where to act but not the value."""

    def spec(width: int) -> dict[str, Any]:
        side = min(width, 420)
        axis = {"type": "quantitative", "scale": {"domain": [0, 1]}}
        return {
            "width": side,
            "height": side,
            "layer": [
                {"data": {"values": [{"f": 0, "v": 0}, {"f": 1, "v": 1}]},
                 "mark": {"type": "line", "color": REFERENCE, "strokeDash": [4, 3]},
                 "encoding": {"x": {"field": "f", **axis}, "y": {"field": "v", **axis}}},
                {"data": {"values": rows},
                 "mark": {"type": "point", "filled": True, "size": 60, "opacity": 0.85},
                 "encoding": {
                     "x": {"field": "field_f1", **axis, "title": "field F1 (the right fields changed)"},
                     "y": {"field": "value_f1", **axis, "title": "value F1 (set to the right values)"},
                     "color": run_colour(runs),
                     "shape": {"field": "type", "type": "nominal", "title": "reasoning type"},
                 }},
            ],
        }  # fmt: skip

    return spec


def esm_vs_memtoken(rows: list[dict[str, Any]], runs: Sequence[str]) -> Spec:
    """One point per run (``run``, ``esm``, ``memtoken``): quality against context cost."""

    def spec(width: int) -> dict[str, Any]:
        x = {"field": "memtoken", "type": "quantitative", "scale": {"type": "symlog", "constant": 10},
             "title": "MemToken (memory tokens per episode, symlog scale)"}  # fmt: skip
        y = {"field": "esm", "type": "quantitative", "scale": {"domain": [0, 1]}, "title": "ESM"}
        wide = width >= WIDE  # wide: each point named beside it; narrow: a legend instead
        colour = {**run_colour(runs), "legend": None} if wide else run_colour(runs)
        points = {"mark": {"type": "point", "filled": True, "size": 90},
                  "encoding": {"x": x, "y": y, "color": colour}}  # fmt: skip
        label = {"mark": {"type": "text", "align": "left", "dx": 7, "fontSize": 11},
                 "encoding": {"x": x, "y": y, "text": {"field": "run"}}}  # fmt: skip
        layers = [points, label] if wide else [points]
        return {"width": width, "height": 260, "data": {"values": rows}, "layer": layers}

    return spec


def recall_curves(rows: list[dict[str, Any]]) -> Spec:
    """Evidence recall@K per audited system (``system``, ``k``, ``recall``, ``query``)."""

    def spec(width: int) -> dict[str, Any]:
        return {
            "width": width,
            "height": 260,
            "data": {"values": rows},
            "mark": {"type": "line", "point": True},
            "encoding": {
                "x": {"field": "k", "type": "quantitative", "title": "K (items retrieved per question)"},
                "y": {"field": "recall", "type": "quantitative", "scale": {"domain": [0, 1]}, "axis": SHARE,
                      "title": "evidence recall@K (share of gold events hit)"},
                "color": {"field": "system", "type": "nominal", "title": "memory system"},
                "strokeDash": {"field": "query", "type": "nominal", "title": "searched with",
                               "sort": ["question", "oracle"]},
            },
        }  # fmt: skip

    return spec


def diagnosis_bars(rows: list[dict[str, Any]], group: str, title: str) -> Spec:
    """Stacked bars of failures by first broken link (``group``, ``label``, ``share``: of episodes)."""

    def spec(width: int) -> dict[str, Any]:
        groups = list(dict.fromkeys(r[group] for r in rows))
        return {
            "width": width,
            "height": ROW * len(groups),
            "data": {"values": rows},
            "mark": {"type": "bar"},
            "encoding": {
                "y": {"field": group, "type": "nominal", "title": None, "sort": groups},
                "x": {"field": "share", "type": "quantitative", "stack": "zero", "axis": SHARE,
                      "title": title},
                "color": {"field": "label", "type": "nominal", "title": "first broken link",
                          "scale": {"domain": list(LABELS), "range": list(LABEL_COLOURS.values())}},
                "order": {"field": "rank"},
            },
        }  # fmt: skip

    return spec
