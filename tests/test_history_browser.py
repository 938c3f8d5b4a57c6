"""The HTML history of a seeded game of each kind, opened in headless Chromium.

No console errors, every chart present and drawn (SVG with paths or cells of
non-zero size), no network request, and screenshots saved as test artifacts in
test-artifacts/screenshots/ (desktop light, phone dark).  Chromium is the
Debian `chromium` package, driven over the DevTools pipe (tests/browser.py);
without it these tests are skipped with a visible reason.
"""

from __future__ import annotations

import atexit
import base64
import json
import shutil
import tempfile
from functools import cache
from pathlib import Path

import pytest

from pbem.history.export import build, render
from tests.browser import find_chromium
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


# Every text box of the timeline: the rendered text of the event number, of each line of the
# event text and of the "seen by" badge (a Range over each text node gives one box per line),
# so text drawn outside its element (as an inherited text-indent does) is caught, and a badge
# after a long wrapped text is compared with that text's lines, not with its whole paragraph.
OVERLAPS = """
(() => {
  document.querySelectorAll('#timeline details').forEach(d => { d.open = true; });
  const boxes = [];
  document.querySelectorAll('#timeline ol.events li').forEach(li => {
    li.querySelectorAll('.seq, .text, .badge').forEach(el => {
      const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walk.nextNode(); node; node = walk.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) {
          if (r.width > 0 && r.height > 0) {
            boxes.push({what: el.className, seq: li.value, text: node.textContent.slice(0, 40),
                        x0: r.left, x1: r.right, y0: r.top, y1: r.bottom});
          }
        }
      }
    });
  });
  boxes.sort((a, b) => a.y0 - b.y0);
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length && boxes[j].y0 < boxes[i].y1; j++) {
      const a = boxes[i], b = boxes[j];
      const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (w > 0.5 && h > 0.5) overlaps.push([a, b]);
    }
  }
  return {boxes: boxes.length, badges: boxes.filter(b => b.what.includes('badge')).length,
          overlaps: overlaps.slice(0, 3), count: overlaps.length};
})()
"""


@cache
def running_pages(kind: str) -> dict[str, str]:
    """The HTML pages of a seeded game of `kind` stopped half-way: moderator, --as (first seat) and --public."""
    from pbem.cli.demo import run
    from pbem.home import config as config_mod
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import Clock
    from tests.test_history_golden import game_of

    players, seed = game_of(kind)
    home = Path(tempfile.mkdtemp(prefix=f"pbem-running-{kind}-"))
    atexit.register(shutil.rmtree, home, True)
    r = run(kind, players, seed, home / "home", bot_seed="golden", clock=Clock(), max_polls=10)
    assert r.summary == "the game did not finish", r.summary
    cfg = config_mod.load(home / "home" / "pbem.toml")
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, r.game)
        first = json.loads(game.players_json)[0]
        docs = {
            "moderator": build(s, game),
            f"as-{first}": build(s, game, as_player=first),
            "public": build(s, game, public=True),
        }
    return {audience: render(doc, "html") for audience, doc in docs.items()}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_no_two_text_boxes_of_the_timeline_overlap(browser, kind: str, width: int, tmp_path: Path) -> None:
    pages = running_pages(kind)
    badges = 0
    for audience, page_html in pages.items():
        page_file = tmp_path / f"{kind}-{audience}.html"
        page_file.write_text(page_html, encoding="utf-8")
        page = browser.open(page_file.as_uri(), width=width, height=900, mobile=width < 500)
        got = page.evaluate(OVERLAPS)
        assert got["boxes"] > 10, f"{kind} {audience}: no timeline found"
        assert got["count"] == 0, (
            f"{kind} {audience} at {width}px: {got['count']} overlapping boxes, e.g. {got['overlaps']}"
        )
        badges += got["badges"]
        if audience.startswith("as-"):
            assert got["badges"] > 0, f"{kind} {audience}: no 'seen by' badge to check"
    assert badges > 0
