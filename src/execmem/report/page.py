"""The page itself: one HTML file from the template, with its styles, script and data inline."""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import resources
from typing import Any

from execmem import __version__
from execmem.memory.registry import MissingExtraError
from execmem.report.packing import script_json
from execmem.report.tables import cell


def environment() -> Any:
    """The template environment (jinja2, the ``report`` extra), HTML-escaping every value."""
    try:
        import jinja2
    except ImportError as exc:
        raise MissingExtraError("execmem report", "execmem", "report", exc) from None
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("execmem.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(num=number, count=count, interval=interval, money=money, cell=cell, json=script_json)
    return env


def render_page(context: dict[str, Any]) -> str:
    """The whole report as one string."""
    assets = resources.files("execmem.report") / "assets"
    page = {
        "css": (assets / "report.css").read_text(encoding="utf-8"),
        "js": (assets / "report.js").read_text(encoding="utf-8"),
        "version": __version__,
        "made": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    return environment().get_template("report.html.j2").render(**page, **context)


def number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def count(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f}"


def interval(low: float | None, high: float | None, digits: int = 3, signed: bool = False) -> str:
    if low is None or high is None:
        return "–"
    sign = "+" if signed else ""
    return f"[{low:{sign}.{digits}f}, {high:{sign}.{digits}f}]"


def money(value: float | None) -> str:
    return "–" if value is None else f"{value:,.4f}"
