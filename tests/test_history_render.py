"""The HTML history page and the `export` command: self-contained, structured, accessible, every chart drawn."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pbem.history import charts, nice_ticks, standings, turns
from pbem.history.export import render
from tests.test_history_golden import KINDS, seeded_export, seeded_home

#: Charts each kind must have, by id (more may follow); a kind not listed must chart at least its scores.
EXPECTED_CHARTS = {
    "habsburg": {"scores", "tokens", "holdings"},
    "italian-wars": {"scores", "streaks"},
    "dynasties": {"scores"},  # the Stakes are empty after every gambit: no chart
    "sixteen-thirty": {"scores", "countries-status", "countries-faction"},
}


class Outline(HTMLParser):
    """Tags, attributes and text of a page, enough to check its structure."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.headings: list[tuple[str, str]] = []
        self._h: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("h1", "h2", "h3"):
            self._h, self._text = tag, []

    def handle_endtag(self, tag):
        if tag == self._h:
            self.headings.append((tag, "".join(self._text).strip()))
            self._h = None

    def handle_data(self, data):
        if self._h:
            self._text.append(data)


def outline(html: str) -> Outline:
    o = Outline()
    o.feed(html)
    return o


def svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", html, re.S)]


def test_nice_ticks_are_round_and_cover_the_data() -> None:
    assert nice_ticks(0, 13) == [0, 5, 10, 15]
    assert nice_ticks(0, 87) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(0, 0) == [0, 1]
    assert nice_ticks(0, 3) == [0, 1, 2, 3]


@pytest.mark.parametrize("kind", KINDS)
def test_the_page_is_self_contained(kind: str) -> None:
    html = render(seeded_export(kind), "html")
    o = outline(html)
    for tag, attrs in o.tags:
        for name in ("src", "href", "action", "poster", "data"):
            value = attrs.get(name) or ""
            assert not re.match(r"\s*(https?:|//|ftp:)", value), f"<{tag} {name}={value!r}> loads from the network"
        assert tag not in ("link", "iframe", "object", "embed", "img", "base"), f"<{tag}> may load an external asset"
    assert not re.search(r"@import|url\s*\(", html), "CSS must not fetch anything"
    assert not re.findall(r"https?://(?!www\.w3\.org/2000/svg)", html)
    assert html.count("<script") == html.count("<script>") <= 1  # inline only, no src


@pytest.mark.parametrize("kind", KINDS)
def test_the_page_has_the_summary_standings_charts_timeline_secrets_and_seed(kind: str) -> None:
    doc = seeded_export(kind)
    html = render(doc, "html")
    o = outline(html)
    assert [h for h in o.headings if h[0] == "h1"] == [("h1", f"{doc['game']['title']}: {doc['game']['name']}")]
    h2 = [t for tag, t in o.headings if tag == "h2"]
    assert h2[:2] == ["Summary", "Standings"] and "Charts" in h2 and "Timeline" in h2
    assert "Everything that was secret" in h2 and h2[-1].startswith("Fairness")
    assert doc["result"]["summary"] in html and doc["seed_commitment"] in html
    assert f'<code class="seed">{doc["seed"]}</code>' in html and "SHA-256 of the seed equals the commitment" in html
    assert f"pbem verify {doc['game']['name']}.json" in html and "sha256sum" in html
    for p in doc["players"]:
        assert p["name"] in html
    # tables: a caption and scoped headers
    assert html.count("<table") == html.count("<caption>") >= 2
    assert all(a.get("scope") in ("col", "row") for t, a in o.tags if t == "th")
    # every event appears once: public ones in the timeline, the rest among the secrets
    for ev in doc["events"]:
        anchor = f'<li value="{ev["seq"]}"' if ev["visibility"] == "public" else f'<tr id="secret-{ev["seq"]}"'
        assert html.count(anchor) == 1, ev
    # the page adapts: viewport, dark mode, print
    assert 'name="viewport"' in html and "prefers-color-scheme: dark" in html and "@media print" in html


@pytest.mark.parametrize("kind", KINDS)
def test_every_chart_has_axes_a_legend_a_title_and_a_description(kind: str) -> None:
    doc = seeded_export(kind)
    got = charts(doc)
    assert EXPECTED_CHARTS.get(kind, {"scores"}) <= {c.id for c in got}
    players = [p["name"] for p in doc["players"]]
    ns = "{http://www.w3.org/2000/svg}"
    for chart in got:
        svg = ET.fromstring(chart.svg)
        assert svg.get("role") == "img" and svg.get("aria-labelledby")
        assert svg.find(f"{ns}title").text == chart.title and svg.find(f"{ns}desc").text
        assert svg.findall(f".//{ns}g[@class='axis']"), chart.id
        labels = [t.text for t in svg.iter(f"{ns}text") if t.get("class") == "label"]
        assert labels, f"{chart.id}: axis labels"
        if "countries" in chart.id:
            assert len(svg.findall(f".//{ns}rect")) >= 8 * len(doc["events"][0:1])
            continue
        series = [g for g in svg.iter(f"{ns}g") if (g.get("class") or "").startswith("series")]
        names = {g.get("data-series") for g in series if g.get("data-series")}
        if chart.id != "stakes":
            assert names == set(players), chart.id
        paths = [p for g in series if g.get("data-series") for p in g.iter(f"{ns}path") if p.get("class") == "line"]
        assert paths and all(len(p.get("d")) > 10 for p in paths)
        legend = svg.find(f".//{ns}g[@class='legend']")
        assert {t.text for t in legend.iter(f"{ns}text")} >= (names if chart.id != "stakes" else set())
        dashes = {p.get("stroke-dasharray") for p in paths}
        assert len(dashes) == min(len(names), len(paths)) or len(names) == 1, "series differ by dash too"


def test_the_page_during_the_game_keeps_the_seed_and_reveals_nothing_extra() -> None:
    doc = seeded_export("dynasties")
    doc["game"]["over"], doc["seed"], doc["result"] = False, None, None
    doc.pop("finished")
    doc["audience"] = "public"
    doc["events"] = [e for e in doc["events"] if e["visibility"] == "public" and e["kind"] != "game-over"]
    doc["orders"] = []
    html = render(doc, "html")
    h2 = [t for tag, t in outline(html).headings if tag == "h2"]
    assert "Everything that was secret" not in h2
    assert '<code class="seed">' not in html and "stays secret until the game is over" in html
    assert "Standings after gambit" in html and "in progress" in html


def test_turn_groups_follow_the_scores_events() -> None:
    doc = seeded_export("italian-wars")
    groups = turns(doc)
    scores = [e for e in doc["events"] if e["kind"] == "scores"]
    assert groups[0].title == "Set-up" and groups[-1].title == "End of the game"
    assert [g.title for g in groups[1:-1]] == [f"Hand {e['data']['hand']}" for e in scores]
    assert all(g.events[-1]["kind"] == "scores" for g in groups[1:-1])
    assert sum(len(g.events) for g in groups) == len(doc["events"])
    top = standings(doc)["rows"][0]
    assert top["winner"] and top["player"] in doc["result"]["winners"]


def _cli(home: Path, *args: str):
    from typer.testing import CliRunner

    from pbem.cli import app

    return CliRunner().invoke(app, ["--config", str(home / "pbem.toml"), *args])


def test_cli_exports_html_text_and_json_to_a_file(tmp_path: Path) -> None:
    home = seeded_home("italian-wars")
    for fmt, needle in (("html", "<!DOCTYPE html>"), ("text", "--- Hand 1"), ("json", '"pbem-history"')):
        out = tmp_path / f"game.{fmt}"
        res = _cli(home, "export", "italian-wars-demo", "--format", fmt, "-o", str(out))
        assert res.exit_code == 0, res.output
        assert needle in out.read_text()
    res = _cli(home, "export", "italian-wars-demo", "--format", "html", "--as", "Bob")
    assert res.exit_code == 0 and "Bob&#39;s record" in res.output
    assert _cli(home, "export", "italian-wars-demo", "--format", "pdf").exit_code == 2
    assert _cli(home, "export", "italian-wars-demo", "--as", "Bob", "--public").exit_code == 2


def test_cli_exports_every_game_into_a_folder(tmp_path: Path) -> None:
    home = seeded_home("dynasties")
    res = _cli(home, "export", "--all", str(tmp_path / "out"))
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "dynasties-demo.html",
        "dynasties-demo.json",
        "dynasties-demo.txt",
    ]
    assert "wrote 3 files for 1 game in" in res.output
    assert _cli(home, "export", "dynasties-demo", "--all", str(tmp_path / "x")).exit_code == 2
