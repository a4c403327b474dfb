"""Make the report: read the inputs, lay out the vehicle and coding sections, render the page."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from execmem.report.audits import load_audit, named
from execmem.report.charts import converter
from execmem.report.coding_runs import load_coding
from execmem.report.coding_section import CodingSection, coding_section
from execmem.report.inputs import Inputs
from execmem.report.options import ReportOptions
from execmem.report.page import environment, render_page
from execmem.report.tables import load_tables
from execmem.report.vehicle_runs import load_vehicle_run
from execmem.report.vehicle_section import VehicleSection, vehicle_section


@dataclass
class Report:
    html: str
    notes: list[str] = field(default_factory=list)
    """What is incomplete (runs in progress, unfinished, with infra errors, unpairable)."""

    @property
    def complete(self) -> bool:
        return not self.notes


def build_report(inputs: Inputs, options: ReportOptions) -> Report:
    """The page for ``inputs``; ReportError, CompareError or DataNotFound naming what cannot be read."""
    converter(), environment()  # a missing extra is said before any work
    labels = run_labels([*inputs.vehicle, *inputs.coding])
    vehicle = _vehicle(inputs, labels, options) if inputs.vehicle or inputs.audits else None
    coding = _coding(inputs, labels, options) if inputs.coding or inputs.tables else None
    notes = [*(vehicle.notes if vehicle else []), *(coding.notes if coding else [])]
    shown = [*inputs.vehicle, *inputs.coding, *inputs.audits, *inputs.tables]
    context = {"title": options.title, "notes": notes, "vehicle": vehicle, "coding": coding, "inputs": shown}
    return Report(render_page(context), notes)


def _vehicle(inputs: Inputs, labels: dict[Path, str], options: ReportOptions) -> VehicleSection:
    runs = [load_vehicle_run(folder, labels[folder], options.data_dir) for folder in inputs.vehicle]
    gold = load_vehicle_run(options.gold, "gold", options.data_dir) if options.gold else None
    return vehicle_section(runs, named([load_audit(path) for path in inputs.audits]), options, gold)


def _coding(inputs: Inputs, labels: dict[Path, str], options: ReportOptions) -> CodingSection:
    runs = [load_coding(folder, labels[folder]) for folder in inputs.coding]
    return coding_section(runs, [(path, load_tables(path)) for path in inputs.tables], options)


def run_labels(folders: list[Path]) -> dict[Path, str]:
    """Runs by folder name; two folders of one name get their parent's name too."""
    names = [folder.resolve().name for folder in folders]
    return {
        folder: name if names.count(name) == 1 else f"{folder.resolve().parent.name}/{name}"
        for folder, name in zip(folders, names, strict=True)
    }
