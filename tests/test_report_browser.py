"""report.html in a real browser: headless Chromium through playwright.

Chromium is found, never installed by the test: ``MATHHAMMER_CHROMIUM`` (a path), else ``chromium``,
``chromium-browser``, ``google-chrome`` on the ``PATH``. Without one the test skips with a one-line reason,
unless ``MATHHAMMER_REQUIRE_BROWSER=1`` (set by ``.ci/run``, which installs Chromium first): then it fails.
A screenshot of the page is kept in ``tests/artifacts/``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARMIES = ROOT / "profiles" / "armies"
ARTIFACTS = ROOT / "tests" / "artifacts"
NAMES = ("chromium", "chromium-browser", "google-chrome")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def find_chromium(env: dict[str, str], which=shutil.which) -> str | None:
    """The Chromium to drive: ``MATHHAMMER_CHROMIUM`` where set (an executable path), else the first of
    :data:`NAMES` on the ``PATH``; None where there is none."""
    given = env.get("MATHHAMMER_CHROMIUM")
    if given:
        return given if os.access(given, os.X_OK) else None
    return next((found for name in NAMES if (found := which(name))), None)


def _chromium() -> str:
    path = find_chromium(dict(os.environ))
    if path:
        return path
    why = "no headless Chromium found (set MATHHAMMER_CHROMIUM=/path/to/chromium, or install chromium)"
    if os.environ.get("MATHHAMMER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{why}; MATHHAMMER_REQUIRE_BROWSER=1 makes this test mandatory")
    pytest.skip(why)
    return ""  # pragma: no cover


def test_find_chromium_never_installs(tmp_path: Path) -> None:
    """The lookup reads the variable and the PATH only: an unusable ``MATHHAMMER_CHROMIUM`` is None (skip), not a
    fallback to something else; nothing on the PATH is None."""
    exe = tmp_path / "chromium"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert find_chromium({"MATHHAMMER_CHROMIUM": str(exe)}) == str(exe)
    assert find_chromium({"MATHHAMMER_CHROMIUM": str(tmp_path / "missing")}, which=lambda _n: "/usr/bin/x") is None
    assert find_chromium({}, which=lambda _n: None) is None
    assert (
        find_chromium({}, which=lambda n: f"/opt/{n}" if n == "chromium-browser" else None) == "/opt/chromium-browser"
    )


@pytest.fixture(scope="module")
def browser():
    playwright = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' (playwright)")
    path = _chromium()
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    from mathhammer.report import sweep, write_report

    out = tmp_path_factory.mktemp("browser") / "report"
    df = sweep(ARMIES / "terran_skirmish.toml", ARMIES / "daelaam_vanguard.toml", trials=2000, seed=3)
    write_report(df, out)
    return out / "report.html"


def test_report_html_in_headless_chromium(browser, report_page) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(report_page.as_uri())
    page.wait_for_load_state("load")

    tables = page.locator("table.sortable")
    assert tables.count() == 5  # 2 sides x 2 phases ranked, and every cell
    assert page.locator("#cells-table tbody tr").count() == 120

    images = page.evaluate("Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.src.slice(0, 22)])")
    assert len(images) == 12  # per side and phase: 2 heatmaps and 1 bar chart
    assert all(done and width > 0 and src == "data:image/png;base64," for done, width, src in images), images

    # Clicking a header sorts: the ranked table by cost, ascending, then descending.
    table = page.locator("#rank-1")
    cost_header = table.locator("thead th").nth(2)

    def column() -> list[float]:
        return [
            float(v) for v in table.locator("tbody tr td:nth-child(3)").evaluate_all("t => t.map(c => c.dataset.v)")
        ]

    cost_header.click()
    assert cost_header.get_attribute("aria-sort") == "ascending"
    assert column() == sorted(column())
    cost_header.click()
    assert cost_header.get_attribute("aria-sort") == "descending"
    assert column() == sorted(column(), reverse=True)
    # a text column sorts too
    name_header = table.locator("thead th").nth(1)
    name_header.click()
    names = table.locator("tbody tr td:nth-child(2)").all_inner_texts()
    assert names == sorted(names, key=str.lower)

    assert "seed" in page.locator("#settings + table").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=False)
    page.close()
    assert errors == []
