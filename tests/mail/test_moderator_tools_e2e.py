"""The moderator's tools of issue 28 end to end over Dovecot and Postfix: the public site a poll
refreshes, and the outage rule with a moved clock, by real email (pbem polls over IMAP and sends
over SMTP through `run_poll`, the path cron takes; players read their mail over IMAP)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import pytest

from pbem.app.cron import run_poll
from pbem.cli.demo import demo_code
from pbem.record import store
from pbem.record.db import session
from tests.mail.test_e2e import World

pytestmark = pytest.mark.dovecot


@pytest.fixture
def world(debian_servers, tmp_path, monkeypatch) -> Iterator[World]:
    w = World(debian_servers, tmp_path, monkeypatch)
    w.cfg.publish_dir = tmp_path / "site"
    with w.readers:
        yield w


def _poll(w: World):
    w.servers.wait_for_count("moderator@example.test", w.in_flight, timeout=60)
    w.in_flight = 0
    run = run_poll(w.cfg, clock=w.clock)
    assert run.summary is not None, run.skipped
    return run.summary


def _now(page: str) -> str:
    found = re.search(r'<section id="now".*?</section>', page, re.S)
    assert found
    return re.sub(r"<[^>]+>", " ", found.group(0))


def test_the_site_follows_the_game_and_an_outage_moves_the_deadline_by_email(world: World) -> None:
    world.new_game("italian-wars", 2)
    assert _poll(world).sent == 2
    page = world.cfg.publish_dir / "g1.html"
    assert "Waiting for Alice, Bob" in _now(page.read_text())
    assert 'href="g1.html"' in (world.cfg.publish_dir / "index.html").read_text()
    world.new_mail("Alice"), world.new_mail("Bob")

    world.send("Alice <alice@example.test>", f"CODE {demo_code('e2e', 'Alice')}\nDISCARD NONE")
    _poll(world)
    assert "Waiting for Bob" in _now(page.read_text()), "the poll that took Alice's order rewrote the page"
    world.new_mail("Alice")

    with session(world.cfg.database_url) as s:
        g = store.game_by_name(s, "g1")
        due_at = store.aware(store.current_deadline(s, g.id).due_at)
    world.clock.advance(hours=60)  # pbem is down; the 48 h deadline passes meanwhile
    summary = _poll(world)
    assert summary.deadlines == 0
    with session(world.cfg.database_url) as s:
        g = store.game_by_name(s, "g1")
        moved = store.aware(store.current_deadline(s, g.id).due_at)
    assert moved == due_at + timedelta(hours=60) and moved > world.clock.now
    for player in ("Alice", "Bob"):
        mails = world.new_mail(player)
        assert any("Your deadline moves to" in m["Subject"] for m, _ in mails), player
    assert f"{moved:%a %d %b %Y %H:%M}" in _now(page.read_text())
