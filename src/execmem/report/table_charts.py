"""Charts of the tables documents that ask for one (a table's ``chart`` hint): attribution shares as
stacked bars, the strip ablation's and the headroom split's effects with their intervals, the dose
curve as lines. The table stays below the chart; the chart draws the same cells."""

from __future__ import annotations

from typing import Any

from execmem.report.charts import NARROW, PALETTE, ROW, WIDE, Figure, Spec, draw, interval_chart
from execmem.report.tables import ChartHint, Table, TablesDocument


def table_figures(documents: list[TablesDocument]) -> list[Figure]:
    """A figure for every table with a chart hint and at least one row it can draw."""
    figures = []
    for document in documents:
        for table in document.tables:
            spec = table_spec(table)
            if spec is not None and table.chart is not None:
                wide, narrow = draw(spec(WIDE), WIDE, table.title), draw(spec(NARROW), NARROW, table.title)
                figures.append(Figure(f"table-{table.id}", table.title, table.chart.answers, wide, narrow))
    return figures


def table_spec(table: Table) -> Spec | None:
    """The Vega-Lite spec of a hinted table; None when no row holds a number to draw."""
    hint = table.chart
    if hint is None:
        return None
    rows = drawable_rows(table, hint)
    if not rows:
        return None
    if hint.kind == "interval":
        keys = {"label": hint.x, "value": hint.y, "low": hint.low, "high": hint.high}
        points = [{key: r[column] for key, column in keys.items()} for r in rows]
        zero = any(p["low"] < 0 for p in points)
        return interval_chart(points, hint.y, zero, None)
    if hint.kind == "line":
        return _line(rows, hint)
    return _bars(rows, hint, stacked=hint.kind == "stacked")


def drawable_rows(table: Table, hint: ChartHint) -> list[dict[str, Any]]:
    """The rows as records, keeping those whose drawn quantities are all numbers."""
    quantities = [hint.y] + ([hint.low, hint.high] if hint.kind == "interval" else [])
    quantities += [hint.x] if hint.kind == "line" else []
    records = [dict(zip(table.columns, row, strict=True)) for row in table.rows]
    return [r for r in records if all(_number(r[q]) for q in quantities if q is not None)]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _bars(rows: list[dict[str, Any]], hint: ChartHint, stacked: bool) -> Spec:
    categories = list(dict.fromkeys(str(r[hint.x]) for r in rows))

    def spec(width: int) -> dict[str, Any]:
        encoding: dict[str, Any] = {
            "y": {"field": hint.x, "type": "nominal", "title": None, "sort": categories},
            "x": {"field": hint.y, "type": "quantitative", "title": hint.y},
        }
        height = ROW * len(categories)
        if hint.color:
            encoding["color"] = {"field": hint.color, "type": "nominal", "title": hint.color}
            if not stacked:
                encoding["yOffset"] = {"field": hint.color}
                height *= max(1, len({str(r[hint.color]) for r in rows}))
        encoding["x"]["stack"] = "zero" if stacked else None
        mark = {"type": "bar", "color": PALETTE[0]} if not hint.color else {"type": "bar"}
        return _chart(width, height, rows, mark, encoding)

    return spec


def _line(rows: list[dict[str, Any]], hint: ChartHint) -> Spec:
    def spec(width: int) -> dict[str, Any]:
        encoding: dict[str, Any] = {
            "x": {"field": hint.x, "type": "quantitative", "title": hint.x, "axis": {"tickMinStep": 1}},
            "y": {"field": hint.y, "type": "quantitative", "title": hint.y},
        }
        if hint.color:
            encoding["color"] = {"field": hint.color, "type": "nominal", "title": hint.color}
        mark = {"type": "line", "point": True} | ({} if hint.color else {"color": PALETTE[0]})
        return _chart(width, 220 if width >= WIDE else 180, rows, mark, encoding)

    return spec


def _chart(width: int, height: int, rows: list[dict[str, Any]], mark: dict, encoding: dict) -> dict[str, Any]:
    return {"width": width, "height": height, "data": {"values": rows}, "mark": mark, "encoding": encoding}
