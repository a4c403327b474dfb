"""Make the report: read the inputs, lay out the vehicle and coding sections, render the page."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from execmem.report.audits import load_audit, named
from execmem.report.charts import converter
from execmem.report.coding_runs import load_coding
from execmem.report.coding_section import coding_section
from execmem.report.inputs import Inputs
from execmem.report.page import environment, render_page
from execmem.report.tables import load_tables
from execmem.report.vehicle_runs import load_vehicle_run
from execmem.report.vehicle_section import Options, vehicle_section


@dataclass
class ReportOptions:
    data_dir: Path | None = None
    gold: Path | None = None
    memory_chars: int = 1000
    output_chars: int = 1500
    n_resamples: int = 10_000
    seed: int = 0
    title: str = "execmem report"


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
    vehicle = None
    if inputs.vehicle or inputs.audits:
        runs = [load_vehicle_run(folder, labels[folder], options.data_dir) for folder in inputs.vehicle]
        gold = load_vehicle_run(options.gold, "gold", options.data_dir) if options.gold else None
        settings = Options(options.data_dir, gold, options.memory_chars, options.n_resamples, options.seed)
        vehicle = vehicle_section(runs, named([load_audit(p) for p in inputs.audits]), settings)
    coding = None
    if inputs.coding or inputs.tables:
        coding_runs = [load_coding(folder, labels[folder]) for folder in inputs.coding]
        documents = [(path, load_tables(path)) for path in inputs.tables]
        coding = coding_section(
            coding_runs, documents, options.output_chars, options.n_resamples, options.seed
        )
    notes = [*(vehicle.notes if vehicle else []), *(coding.notes if coding else [])]
    shown = [*inputs.vehicle, *inputs.coding, *inputs.audits, *inputs.tables]
    context = {"title": options.title, "notes": notes, "vehicle": vehicle, "coding": coding, "inputs": shown}
    return Report(render_page(context), notes)


def run_labels(folders: list[Path]) -> dict[Path, str]:
    """Runs by folder name; two folders of one name get their parent's name too."""
    names = [folder.resolve().name for folder in folders]
    return {
        folder: name if names.count(name) == 1 else f"{folder.resolve().parent.name}/{name}"
        for folder, name in zip(folders, names, strict=True)
    }
