"""Tables documents that ask for a chart (attribution shares, ablation effects, dose curves) get one
in the report, drawing the table's own cells; a hint naming no column is bad input."""

from __future__ import annotations

import json
import re

from execmem.report.table_charts import table_figures
from execmem.report.tables import TablesDocument
from execmem.runs.report_tables import ReportTable, tables_document
from tests.cli.conftest import assert_one_line_error, invoke

SHARES = ReportTable(
    id="attribution-shares",
    title="Attribution shares per system",
    columns=["system", "label", "share", "n"],
    rows=[
        ["bm25", "ranking miss", 0.5, 4],
        ["bm25", "form degradation", 0.5, 4],
        ["fusion", "use failure", 1.0, 2],
    ],
    chart={
        "kind": "stacked",
        "x": "system",
        "y": "share",
        "color": "label",
        "answers": "Where did it break?",
    },
)
ABLATION = ReportTable(
    id="strip-ablation",
    title="Strip ablation",
    columns=["arm", "delta", "low", "high", "p"],
    rows=[["flagged lines removed", 0.25, 0.1, 0.4, 0.01], ["random lines removed", -0.05, -0.2, 0.1, 0.6]],
    chart={"kind": "interval", "x": "arm", "y": "delta", "low": "low", "high": "high"},
)
DOSE = ReportTable(
    id="dose-bm25",
    title="Dose curve",
    columns=["top_k", "resolved", "system"],
    rows=[[1, 0.5, "bm25"], [2, 0.6, "bm25"], [3, None, "bm25"], [5, 0.4, "bm25"]],
    chart={"kind": "line", "x": "top_k", "y": "resolved", "color": "system"},
)


def marks(svg: str) -> int:
    """How many marks the drawing holds (the paths and lines inside its mark groups)."""
    groups = re.findall(r'<g class="mark-[a-z]+ role-mark[^"]*"[^>]*>(.*?)</g>', svg, re.S)
    return sum(len(re.findall(r"<(?:path|line)\b", group)) for group in groups)


def test_each_hinted_table_is_drawn_from_its_cells():
    document = TablesDocument.model_validate(tables_document([SHARES, ABLATION, DOSE]))
    figures = {f.id: f for f in table_figures([document])}
    assert set(figures) == {"table-attribution-shares", "table-strip-ablation", "table-dose-bm25"}
    assert marks(figures["table-attribution-shares"].wide) == 3  # one bar per row
    assert figures["table-attribution-shares"].answers == "Where did it break?"
    # an interval and a point per arm, and the no-difference line since an interval crosses zero
    assert marks(figures["table-strip-ablation"].wide) == 2 + 2 + 1
    dose = figures["table-dose-bm25"].wide
    assert ">top_k<" in dose and ">resolved<" in dose  # the axes name their columns
    assert marks(dose) == 1 + 3  # the line, and a point for each row that has a value


def test_a_table_without_a_hint_or_a_number_draws_nothing():
    plain = ReportTable(id="funnel", title="Funnel", columns=["stage", "n"], rows=[["validate", 63]])
    empty = ReportTable(
        id="none-yet", title="t", columns=["arm", "delta"], rows=[["a", None]],
        chart={"kind": "bars", "x": "arm", "y": "delta"},
    )  # fmt: skip
    document = TablesDocument.model_validate(tables_document([plain, empty]))
    assert table_figures([document]) == []
    assert "chart" not in plain.to_dict()


def test_the_report_draws_a_hinted_table_above_it(tmp_path):
    document = tmp_path / "attribution.json"
    document.write_text(json.dumps(tables_document([SHARES])))
    out = tmp_path / "r.html"
    result = invoke("report", document, "-o", out)
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert 'id="fig-table-attribution-shares"' in html and 'data-table="attribution-shares"' in html
    assert html.index('id="fig-table-attribution-shares"') < html.index('data-table="attribution-shares"')


def test_a_hint_naming_no_column_is_one_error_line(tmp_path):
    bad = tables_document([SHARES])
    bad["tables"][0]["chart"]["color"] = "reason"
    document = tmp_path / "bad.json"
    document.write_text(json.dumps(bad))
    found = invoke("report", document, "-o", tmp_path / "r.html")
    assert_one_line_error(found, "bad.json", "tables.0", "'reason', which is not one of the columns")
    bad["tables"][0]["chart"] = {"kind": "interval", "x": "system", "y": "share"}
    document.write_text(json.dumps(bad))
    found = invoke("report", document, "-o", tmp_path / "r.html")
    assert_one_line_error(found, "bad.json", "needs its 'low' and 'high' columns")
