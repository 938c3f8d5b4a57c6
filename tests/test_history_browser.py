"""The HTML history of a seeded game of each kind, opened in headless Chromium.

No console errors, every chart present and drawn (SVG with paths or cells of
non-zero size), no network request, and screenshots saved as test artifacts in
test-artifacts/screenshots/ (desktop light, phone dark).  Chromium is the
Debian `chromium` package, driven over the DevTools pipe (tests/browser.py);
without it these tests are skipped with a visible reason.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from pbem.export import render
from tests.browser import Browser, find_chromium
from tests.test_history_golden import KINDS, seeded_export
from tests.test_history_render import EXPECTED_CHARTS

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        find_chromium() is None,
        reason="headless Chromium not found: install the Debian package chromium (apt-get install chromium)",
    ),
]

SHOTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "screenshots"

CHART_CHECK = """
(() => Array.from(document.querySelectorAll('svg.chart')).map(svg => {
  const box = svg.getBoundingClientRect();
  const lines = Array.from(svg.querySelectorAll('g.series[data-series] path.line'))
      .filter(p => p.getTotalLength() > 0);
  const marks = svg.querySelectorAll('g.series[data-series] .markers > *').length;
  const cells = Array.from(svg.querySelectorAll('g.cells rect')).filter(r => r.getBBox().width > 0).length;
  return {id: svg.id, width: box.width, height: box.height, lines: lines.length, marks, cells,
          title: (svg.querySelector('title') || {}).textContent || '',
          legend: svg.querySelectorAll('g.legend text').length};
}))()
"""


@pytest.fixture(scope="module")
def browser():
    with Browser() as b:
        yield b


@pytest.mark.parametrize("kind", KINDS)
def test_the_history_page_renders_in_chromium_without_errors_or_network(browser, kind: str, tmp_path: Path) -> None:
    doc = seeded_export(kind)
    page_file = tmp_path / f"{kind}.html"
    page_file.write_text(render(doc, "html"), encoding="utf-8")
    page = browser.open(page_file.as_uri(), width=1280, height=900)
    assert page.errors == [], f"{kind}: console errors {page.errors}"
    assert page.network_requests == [], f"{kind}: the page asked the network for {page.network_requests}"
    assert page.evaluate("document.title").startswith(doc["game"]["title"])
    charts = page.evaluate(CHART_CHECK)
    assert len(charts) >= len(EXPECTED_CHARTS.get(kind, {"scores"}))
    for c in charts:
        assert c["width"] > 200 and c["height"] > 100, f"{kind}: chart {c['id']} is not visible: {c}"
        assert c["title"] and c["legend"] >= 1, c
        assert c["lines"] + c["cells"] > 0, f"{kind}: chart {c['id']} is empty: {c}"
    assert page.evaluate("document.querySelectorAll('#secrets table.secrets tbody tr').length") == sum(
        1 for e in doc["events"] if e["visibility"] != "public"
    )
    # no horizontal scrolling on the desktop
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    shot = page.screenshot(SHOTS / f"{kind}.png")
    assert shot.stat().st_size > 20_000
    pdf = page.send("Page.printToPDF", printBackground=False)["data"]
    assert base64.b64decode(pdf)[:5] == b"%PDF-"


@pytest.mark.parametrize("kind", KINDS)
def test_the_history_page_fits_a_phone_in_dark_mode(browser, kind: str, tmp_path: Path) -> None:
    page_file = tmp_path / f"{kind}.html"
    page_file.write_text(render(seeded_export(kind), "html"), encoding="utf-8")
    page = browser.open(page_file.as_uri(), width=390, height=844, mobile=True, dark=True)
    assert page.errors == [] and page.network_requests == []
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(18, 18, 18)"
    # the page itself never scrolls sideways; only wide tables scroll inside their box
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    for c in page.evaluate(CHART_CHECK):
        assert 300 <= c["width"] <= 390, c
    page.screenshot(SHOTS / f"{kind}-phone-dark.png")
