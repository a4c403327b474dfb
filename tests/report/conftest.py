"""Fixtures of the report tests: scripted vehicle runs and an audit made offline, the report built
from them, and headless Chromium (Debian's ``chromium``, driven by playwright; never a browser
download) with screenshots written as test artefacts.

Screenshots go to ``$EXECMEM_REPORT_SCREENSHOTS`` when set, else to a folder under pytest's
temporary path (printed with ``-s``: ``report screenshots: ...``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from execmem.runs.vehicle.audit import AuditConfig, run_audit
from execmem.testing.fake_server import FakeServer
from execmem.testing.vehicle_reader import ReaderPolicy
from tests.runs.conftest import questions, run_vehicle  # noqa: F401 - questions: a fixture

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
SCENARIOS = [1, 2]
MEMORIES = ("gold", "bm25")
"""Two runs of different memory conditions, the first the baseline."""

pytest.importorskip("vl_convert", reason='the report extra is not installed: pip install "execmem[report]"')
pytest.importorskip("jinja2", reason='the report extra is not installed: pip install "execmem[report]"')


@pytest.fixture(scope="session")
def reader_runs(tmp_path_factory, vehicle_data, questions) -> dict[str, Path]:  # noqa: F811
    """The scripted reader over the real HTTP client path: one run folder per memory, scenarios 1-2."""
    root = tmp_path_factory.mktemp("report-runs")
    with FakeServer(ReaderPolicy(questions)) as server:
        for memory in MEMORIES:
            run_vehicle(root / memory, server.base_url, vehicle_data, memory=memory, scenarios=SCENARIOS)
    return {memory: root / memory for memory in MEMORIES}


@pytest.fixture(scope="session")
def audit_folder(tmp_path_factory, vehicle_data) -> Path:
    out = tmp_path_factory.mktemp("report-audit")
    run_audit(AuditConfig(memory="bm25", scenarios=SCENARIOS, data_dir=vehicle_data), out)
    return out


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    configured = os.environ.get("EXECMEM_REPORT_SCREENSHOTS")
    folder = Path(configured) if configured else tmp_path_factory.mktemp("report-screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"report screenshots: {folder}")
    return folder


@pytest.fixture(scope="module")
def chromium():
    """A headless Chromium (playwright gives each launch a fresh profile). Playwright's sync API runs
    an event loop in this thread while it is open, so ask for the run folders (made with
    ``asyncio.run``) before this fixture, and keep it to one module."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")
    if not CHROMIUM.is_file():
        pytest.skip("Debian's chromium is not installed: apt-get install chromium")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def page(report, chromium):
    """The module's ``report`` (a fixture each module defines), open at 1280 pixels."""
    page = open_report(chromium, report)
    yield page
    page.close()


def open_report(chromium, path: Path, width: int = 1280, height: int = 900, scheme: str = "light"):
    """A new page showing the report, once its script has unpacked the episodes; every request it
    makes is recorded in ``page.requests``."""
    page = chromium.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
    page.requests = []
    page.errors = []
    page.on("request", lambda request: page.requests.append(request.url))
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("html[data-ready=yes]", timeout=60_000)
    return page
