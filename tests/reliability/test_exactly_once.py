"""Issue 12, "Intake is exactly-once against the real world", end to end on the Maildir transport.

A player sends revision A of a secret Tribute, then B; then a late copy of A
arrives (re-delivered: one more `Received` header) and a message C written
between A and B arrives last.  B stays on file and is what the deadline
resolves; the copy is recorded as a duplicate of A, C is refused, and the
player is told which revision is on file.  (The same over Dovecot + Postfix:
tests/reliability/test_hostile_over_imap.py.)
"""

from __future__ import annotations

import re
import sqlite3

from pbem.app import games
from pbem.home.app import Home
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail, signed
from tests.test_moderator import asked, run_poll

ANN, BEN = ("Ann", "ann@players.test"), ("Ben", "ben@players.test")


def _db(cfg) -> sqlite3.Connection:
    return sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))


def test_a_late_copy_and_an_older_message_never_replace_the_newer_revision(home, clock) -> None:
    games.create_game(Home.of(home), "dynasties", "dy1", [ANN, BEN], seed="exactly-once", clock=clock, codes=CODES)
    run_poll(home, clock)
    seen: set = set()
    sent_mail(home, seen)
    reqs, _ = asked(home, "dy1")
    a, b, c = next(r for r in reqs if r.player == "Ann").legal[:3]

    def order(line: str, date: str, subject: str) -> bytes:
        return order_mail(f"Ann <{ANN[1]}>", "dy1", signed("Ann", line), subject=f"[pbem dy1] {subject}", Date=date)

    raw_a = order(a, "Mon, 05 Jan 2026 11:00:00 +0000", "tribute")
    deliver(home, raw_a)
    assert run_poll(home, clock).accepted == 1
    clock.advance(minutes=5)
    deliver(home, order(b, "Mon, 05 Jan 2026 11:30:00 +0000", "tribute, second thoughts"))
    assert run_poll(home, clock).accepted == 1
    sent_mail(home, seen)

    clock.advance(minutes=5)
    copy_a = b"Received: from relay2.players.test by mx.pbem.test; Mon, 5 Jan 2026 12:09:00 +0000\n" + raw_a
    deliver(home, copy_a)
    deliver(home, order(c, "Mon, 05 Jan 2026 11:10:00 +0000", "tribute from my phone"))
    s = run_poll(home, clock)
    assert (s.duplicates, s.rejected, s.accepted) == (1, 1, 0)

    con = _db(home)
    rows = con.execute("SELECT id, outcome, duplicate_of, reason FROM inbound_messages ORDER BY id").fetchall()
    (id_a, *_), (_, out_b, *_), (_, out_copy, dup_of, _), (_, out_c, _, why_c) = rows
    assert (out_b, out_copy, dup_of, out_c) == ("accepted", "duplicate", id_a, "rejected")
    assert "before the revision on file" in why_c
    lines = [r[0] for r in con.execute("SELECT lines_json FROM orders WHERE player = 'Ann' ORDER BY seq")]
    assert lines == [f'["{a}"]', f'["{b}"]'], "neither the copy nor C was applied"

    told = [m for m in sent_mail(home, seen) if m["To"].addresses[0].addr_spec == ANN[1]]
    assert len(told) == 2, "the copy of a replaced revision and the older message: each told what stands"
    for m in told:
        text = body_of(m)
        assert b in text and "tribute, second thoughts" in text and "sent 2026-01-05 11:30 UTC" in text
        assert CODES["Ann"] not in text
    assert "a copy of orders" in body_of(told[0]) and "written before" in body_of(told[1])

    clock.advance(days=3)
    run_poll(home, clock)
    revealed = con.execute("SELECT text FROM events WHERE text LIKE 'Tributes revealed:%'").fetchone()[0]
    assert re.search(rf"Ann: {re.escape(b.removeprefix('TRIBUTE '))}[;.]", revealed), revealed
    con.close()


def test_a_strangers_mail_reusing_a_players_message_id_is_another_message_and_history_still_verifies(
    home, clock
) -> None:
    """Same Message-ID, other sender: not a copy.  It is recorded (ignored) beside the player's message; a
    stranger's mail is not even filed with the game it names (issue 12: the game is not loaded for a sender who
    is no registered seat), so the export lists the player's message alone and still verifies."""
    from pbem.history.export import build, verify
    from pbem.record import store
    from pbem.record.db import session

    games.create_game(Home.of(home), "dynasties", "dy1", [ANN, BEN], seed="exactly-once", clock=clock, codes=CODES)
    reqs, _ = asked(home, "dy1")
    line = next(r for r in reqs if r.player == "Ann").legal[0]
    deliver(home, order_mail(f"Ann <{ANN[1]}>", "dy1", signed("Ann", line), message_id="<ann-1@players.test>"))
    deliver(home, order_mail("Mallory <m@evil.test>", "dy1", "TRIBUTE x", message_id="<ann-1@players.test>"))
    s = run_poll(home, clock)
    assert (s.accepted, s.ignored, s.duplicates) == (1, 1, 0)
    with session(home.database_url) as db:
        doc = build(db, store.game_by_name(db, "dy1"))
    assert [m["outcome"] for m in doc["messages"]] == ["accepted"]
    v = verify(doc, partial=True)
    assert v.ok, v


def test_a_copy_whose_handling_raises_is_still_kept_as_a_duplicate_of_the_first(home, clock, monkeypatch) -> None:
    """The failure path ("could not be read") applies the same identity: a copy is recorded as a duplicate."""
    from pbem.app import intake
    from pbem.app import poll as polling

    games.create_game(Home.of(home), "dynasties", "dy1", [ANN, BEN], seed="exactly-once", clock=clock, codes=CODES)
    raw = order_mail(f"Ann <{ANN[1]}>", "dy1", "STATUS", message_id="<ann-status@players.test>")
    assert polling.contained(Home.of(home), raw, clock()).kind == "accepted"

    def broken(*args, **kw):
        raise RuntimeError("a bug")

    monkeypatch.setattr(intake, "decide", broken)
    copy = b"Received: from relay2.players.test by mx.pbem.test; Mon, 5 Jan 2026 12:09:00 +0000\n" + raw
    assert polling.contained(Home.of(home), copy, clock()).failure
    assert (
        polling.contained(Home.of(home), copy, clock()).kind == "duplicates"
    )  # the same bytes again: not recorded twice
    con = _db(home)
    rows = con.execute("SELECT id, outcome, duplicate_of FROM inbound_messages ORDER BY id").fetchall()
    con.close()
    assert [(o, d) for _, o, d in rows] == [("accepted", None), ("duplicate", rows[0][0])]
