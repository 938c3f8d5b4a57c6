"""`pbem publish DIR` and `[publish] dir`: the public site holds only public facts, and stays up to date.

A random bot game of every kind is played by email (the real pipeline): tests/test_history_visibility.py's,
whose checks after each poll include `check_site` here (a game of its own here was as long as that one).  Every
few polls the site is published and each page is checked against the record: it names
no event that was not public, no hidden item of any player that no public event had
named, never the seed before the end, and its "Now" section names exactly the
players the game waits for.  The secrecy scramble (each engine's `scramble`) changes
one player's secrets and the page must stay byte-identical.  Once a game is over its
page shows the seed and the whole history.
"""

from __future__ import annotations

import html as htmllib
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pbem.app import views
from pbem.app.publish import MANIFEST, publish
from pbem.cli import app
from pbem.history.export import build
from pbem.history.site import Now, game_page
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from tests.secrets_by_kind import HIDDEN
from tests.secrets_by_kind import names as _names

WHEN = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _plain(page: str) -> str:
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", page))


def _now_section(page: str) -> str:
    found = re.search(r'<section id="now".*?</section>', page, re.S)
    assert found, "every published page opens with its Now section"
    return _plain(found.group(0))


def check_site(cfg, directory: Path, name: str, checked: dict) -> None:
    publish(Home.of(cfg), directory, WHEN)
    page = (directory / f"{name}.html").read_text(encoding="utf-8")
    index = (directory / "index.html").read_text(encoding="utf-8")
    assert f'href="{name}.html"' in index
    with session(cfg.database_url) as s:
        game = store.game_by_name(s, name)
        loaded = store.load(s, game)
        eng, state = loaded.engine, loaded.state
        rows = store.events_for(s, game.id)
        public = {r.text for r in rows if store.event_of(r).visible_to(None)}
        secret = {r.text for r in rows if not store.event_of(r).visible_to(None)} - public
        over = store.is_over(s, game.id)
        status = "over" if over else store.control_state(s, game.id)
        waiting = views.waiting(eng, state) if status == "running" else []
        doc = json.loads(json.dumps(build(s, game, public=True)))
    plain = _plain(page)
    now = _now_section(page)
    if over:
        assert "The game is over." in now and game.seed in plain
        checked["over"] += 1
        return
    assert game.seed not in plain and game.seed not in index, "the seed is revealed only at the end"
    for text in secret:
        assert text not in page, f"a page names an event that was not public: {text!r}"
    for player in waiting:
        assert player in now
    for player in set(state["players"]) - set(waiting):
        assert not _names(player, now.split("All games")[0]), f"{player} is not asked, yet named in Now"
    if eng.kind in HIDDEN:
        known = "\n".join(public)
        for q in state["players"]:
            for item in HIDDEN[eng.kind](state, q):
                assert not (_names(item, plain) and not _names(item, known)), f"the page names {q}'s hidden {item!r}"
    # The scramble: another state that differs only in one player's secrets gives the same page, byte for byte.
    shown = game_page(doc, Now(status, tuple(waiting), None))
    for q in state["players"]:
        t = eng.scramble(state, q)
        other = dict(doc, final_view=json.loads(json.dumps(eng.view(t, None))))
        assert game_page(other, Now(status, tuple(views.waiting(eng, t)), None)) == shown, q
    checked["running"] += 1


def _home(tmp_path: Path, publish_dir: str | None) -> Path:
    from pbem.cli.support import init_home

    home = tmp_path / "home"
    init_home(home, "games@example.org")
    if publish_dir is not None:
        toml = home / "pbem.toml"
        toml.write_text(toml.read_text() + f'\n[publish]\ndir = "{publish_dir}"\ntitle = "Club games"\n')
    return home


def _new_game(home: Path, name: str, runner: CliRunner) -> None:
    cfg = str(home / "pbem.toml")
    seats = [
        a
        for p in ("Alice <alice@example.org>", "Bob <bob@example.org>", "Carol <carol@example.org>")
        for a in ("--player", p)
    ]
    r = runner.invoke(app, ["-c", cfg, "game", "new", "habsburg", "--name", name, *seats])
    assert r.exit_code == 0, r.output


def test_publish_writes_an_index_and_a_page_per_game_and_rewrites_only_what_changed(tmp_path: Path) -> None:
    runner = CliRunner()
    home = _home(tmp_path, None)
    cfg_path = str(home / "pbem.toml")
    _new_game(home, "hh1", runner)
    _new_game(home, "hh2", runner)
    site = tmp_path / "www"
    r = runner.invoke(app, ["-c", cfg_path, "publish", str(site)])
    assert r.exit_code == 0, r.output
    assert "published 2 game(s)" in r.output and "2 page(s) rewritten" in r.output
    assert {p.name for p in site.iterdir()} == {"index.html", "hh1.html", "hh2.html", MANIFEST}
    index = (site / "index.html").read_text()
    assert "Waiting for" in index and "hh1" in index and "hh2" in index

    again = runner.invoke(app, ["-c", cfg_path, "publish", str(site)])
    assert "0 page(s) rewritten" in again.output, again.output

    # The moderator pauses hh2: only its page is rewritten, and it says so.
    runner.invoke(app, ["-c", cfg_path, "game", "pause", "hh2"])
    before = (site / "hh1.html").stat().st_mtime_ns
    third = runner.invoke(app, ["-c", cfg_path, "publish", str(site)])
    assert "1 page(s) rewritten" in third.output, third.output
    assert (site / "hh1.html").stat().st_mtime_ns == before
    assert "paused" in _now_section((site / "hh2.html").read_text())
    forced = runner.invoke(app, ["-c", cfg_path, "publish", str(site), "--all"])
    assert "2 page(s) rewritten" in forced.output


def test_a_poll_refreshes_the_site_named_by_publish_dir(tmp_path: Path) -> None:
    runner = CliRunner()
    home = _home(tmp_path, "site")
    cfg_path = str(home / "pbem.toml")
    assert not (home / "site").exists()
    _new_game(home, "club1", runner)
    r = runner.invoke(app, ["-c", cfg_path, "poll"])  # sends the first reports, and writes the site
    assert r.exit_code == 0, r.output
    index = (home / "site" / "index.html").read_text()
    assert "<title>Club games</title>" in index and 'href="club1.html"' in index
    now = _now_section((home / "site" / "club1.html").read_text())
    assert "Waiting for" in now

    # A site deleted by hand comes back at the next poll, idle or not.
    (home / "site" / "index.html").unlink()
    r = runner.invoke(app, ["-c", cfg_path, "poll"])
    assert r.exit_code == 0, r.output
    assert (home / "site" / "index.html").exists()


def test_the_site_is_refused_a_document_that_is_not_public(tmp_path: Path) -> None:
    doc = {"audience": "moderator", "game": {}}
    with pytest.raises(ValueError, match="public documents only"):
        game_page(doc, Now("running", (), None))


def test_the_line_of_whom_a_game_waits_for_names_people_as_people() -> None:
    """walk7: the public page said "Waiting for Alice: it is asked to move until Wed 09 Dec 2026 01:57 UTC.", a
    person called "it".  Every count of players waited for, with and without a deadline: 2 of the 8 lines called
    a person "it" on efd12b07 (the other 6 "they", one "Waiting for Alice, Bob: they are asked ..."), 0 now."""
    from datetime import UTC, datetime

    from pbem.history.site import Now

    names = ("Alice", "Bob", "Zoë Müller", "Dave")
    for n in range(1, 5):
        for due in (None, datetime(2026, 12, 9, 1, 57, tzinfo=UTC)):
            line = Now("running", names[:n], due).line()
            assert re.fullmatch(r"Waiting for [^:]+ to move( \(deadline Wed 09 Dec 2026 01:57 UTC\))?\.", line), line
            assert all(name in line for name in names[:n]) and " it " not in line, line
