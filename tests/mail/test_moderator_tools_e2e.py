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
from tests.mail.conftest import MODERATOR
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
    assert "Waiting for Alice and Bob to move" in _now(page.read_text())
    assert 'href="g1.html"' in (world.cfg.publish_dir / "index.html").read_text()
    world.new_mail("Alice"), world.new_mail("Bob")

    world.send("Alice <alice@example.test>", f"CODE {demo_code('e2e', 'Alice')}\nDISCARD NONE")
    _poll(world)
    assert "Waiting for Bob to move" in _now(page.read_text()), "the poll that took Alice's order rewrote the page"
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


class Moderated:
    """`World`'s polls, counting the mail pbem sends the moderator: it lands in the inbox pbem reads (the
    moderator's own mailbox), where the next poll files it unanswered (it carries pbem's X-Loop)."""

    def __init__(self, w: World) -> None:
        self.w, self.filed = w, 0

    def poll(self):
        w = self.w
        to_moderator = w.sent_to(MODERATOR)
        w.servers.wait_for_count(MODERATOR, w.in_flight + to_moderator - self.filed, timeout=60)
        w.in_flight, self.filed = 0, to_moderator
        run = run_poll(w.cfg, clock=w.clock)
        assert run.summary is not None, run.skipped
        return run.summary

    def moderators_mail(self, subject: str):
        """The mail pbem sent the moderator with this subject, read from the moderator's mailbox over IMAP."""
        from email import policy
        from email.parser import BytesParser

        for raw in self.w.servers.wait_for(MODERATOR, self.w.sent_to(MODERATOR) - self.filed, timeout=60):
            m = BytesParser(policy=policy.default).parsebytes(raw)
            if m["Subject"] == subject:
                return m
        raise AssertionError(f"no mail {subject!r} in the moderator's mailbox")


def _due(w: World):
    with session(w.cfg.database_url) as s:
        g = store.game_by_name(s, "g1")
        return store.aware(store.current_deadline(s, g.id).due_at)


def test_absence_undo_and_moderating_by_email_then_verify(world: World) -> None:
    """A player goes AWAY (the deadline waits for them) and comes BACK; the moderator undoes an input by
    mail with the moderator code, then extends by replying to pbem's acknowledgement; verify passes."""
    import json
    from datetime import timedelta

    from pbem.app.moderating import make_code
    from pbem.history.export import build, verify
    from pbem.home.app import Home

    w, m = world, Moderated(world)
    w.cfg.outage_after = timedelta(days=30)  # the clock jumps below are the players' pace, not an outage
    w.new_game("italian-wars", 2)
    code = make_code(Home.of(w.cfg), w.clock.now)
    assert m.poll().sent == 2
    w.new_mail("Alice"), w.new_mail("Bob")
    start, due0 = w.clock.now, _due(w)

    w.send("Bob <bob@example.test>", f"CODE {demo_code('e2e', 'Bob')}\nAWAY 3")
    w.send("Alice <alice@example.test>", f"CODE {demo_code('e2e', 'Alice')}\nDISCARD NONE")
    assert m.poll().accepted == 2
    assert any("away until" in mail["Subject"] for mail, _ in w.new_mail("Bob"))
    w.new_mail("Alice")

    w.clock.now = due0 + timedelta(minutes=5)
    assert m.poll().deadlines == 0, "Bob is away: the deadline waits for him"
    assert _due(w) == start + timedelta(days=3)
    for player in ("Alice", "Bob"):
        assert any("The game waits for Bob" in mail["Subject"] for mail, _ in w.new_mail(player)), player

    w.send("Bob <bob@example.test>", f"CODE {demo_code('e2e', 'Bob')}\nBACK")
    w.send("Bob <bob@example.test>", f"CODE {demo_code('e2e', 'Bob')}\nDISCARD NONE")
    assert m.poll().accepted == 2
    w.new_mail("Alice"), w.new_mail("Bob")
    with session(w.cfg.database_url) as s:
        seq = store.load(s, store.game_by_name(s, "g1")).seq
    assert seq >= 2

    w.send(f"Test Moderator <{MODERATOR}>", f"CODE {code}\nUNDO TO 1 WHY Bob's discard was misread")
    assert m.poll().accepted == 1
    for player in ("Alice", "Bob"):
        mails = w.new_mail(player)
        assert any("Reason: Bob's discard was misread" in text for _, text in mails), player
    ack = m.moderators_mail("Re: [pbem g1] orders")
    assert (
        "done: UNDO TO 1 WHY Bob's discard was misread -> back after input 1" in ack.get_body(("plain",)).get_content()
    )

    due = _due(w)
    w.send(f"Test Moderator <{MODERATOR}>", "EXTEND 1d\n\n> earlier text", In_Reply_To=ack["Message-ID"])
    assert m.poll().accepted == 1, "a reply to pbem's mail to the moderator needs no code"
    assert _due(w) == due + timedelta(days=1)
    for player in ("Alice", "Bob"):
        assert any("extended" in text for _, text in w.new_mail(player)), player
    # the README's "Moderating by mail" (walk6): pbem's answer lands in the inbox pbem reads, and the next poll
    # files it, unanswered, with the mail it did not apply: the moderator reads it in the rejected folder
    from email import message_from_bytes

    def ids(folder: str) -> set[str]:
        return {str(message_from_bytes(raw)["Message-ID"]) for raw in w.servers.mailbox(MODERATOR, folder)}

    assert ack["Message-ID"] in ids(w.cfg.imap.rejected_folder) - ids("INBOX"), "the answer is not filed as rejected"

    with session(w.cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    v = verify(doc, partial=True)
    assert v.ok, v.problem
    from pbem.app.undo import listed

    rows = listed(Home.of(w.cfg), "g1")  # the moderator's numbers; the players' events name none
    (back,) = [r for r in rows if r.kind == "undo"]
    assert [r.seq for r in rows if r.undone_by == back.seq] == list(range(2, seq + 1)) and back.back_to == 1
