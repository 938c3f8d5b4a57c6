"""Absence (issue 28): AWAY UNTIL <date>, AWAY <days> and BACK, and `pbem game away`.

Played on the embedded defaults (real SQLite, real Maildirs, the real poll) with a moved clock:
a deadline that passes while an away player is still asked moves to their return, capped by
`[games] max_away`; everyone is told; verify replays the game.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from pbem.app import games
from pbem.app import poll as polling
from pbem.app.absence import absences, set_away, used, wait_for
from pbem.app.decision import GameError
from pbem.history.export import build, verify
from pbem.home.app import Home
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from pbem.orders.away import read_away
from pbem.orders.extract import extract
from pbem.record import store
from pbem.record.absence import AbsenceRow
from pbem.record.db import session
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail, signed

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test")]


def run(cfg, clock):
    return polling.poll(
        Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=clock)
    )


def send(cfg, player: str, body: str) -> None:
    deliver(cfg, order_mail(f"{player} <{dict(PLAYERS)[player]}>", "iw1", signed(player, body)))


def deadline(cfg):
    with session(cfg.database_url) as s:
        g = store.game_by_name(s, "iw1")
        return store.aware(store.current_deadline(s, g.id).due_at)


def moderator_events(cfg, action: str):
    with session(cfg.database_url) as s:
        g = store.game_by_name(s, "iw1")
        evs = [store.event_of(r) for r in store.events_for(s, g.id)]
    return [e for e in evs if e.kind == "moderator" and e.data.get("action") == action]


def check_verify(cfg) -> None:
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "iw1"))))
    v = verify(doc, partial=True)
    assert v.ok, v.problem


@pytest.fixture
def game(home, clock):
    games.create_game(Home.of(home), "italian-wars", "iw1", PLAYERS, seed="absence", clock=clock, codes=CODES)
    run(home, clock)
    return home


def test_the_game_waits_for_an_away_player_until_they_are_back(game, clock) -> None:
    cfg, seen = game, set()
    sent_mail(cfg, seen)
    start, due0 = clock.now, deadline(cfg)
    send(cfg, "Bob", "AWAY 5")
    send(cfg, "Alice", "DISCARD NONE")
    summary = run(cfg, clock)
    assert summary.accepted == 2
    acks = [m for m in sent_mail(cfg, seen) if "away until" in m["Subject"]]
    assert len(acks) == 1 and acks[0]["To"] == "bob@players.test"
    assert "BACK" in body_of(acks[0]), "the ack says how to end the absence"

    clock.now = due0 + timedelta(minutes=5)
    summary = run(cfg, clock)
    assert summary.deadlines == 0, "no default is applied while Bob is away"
    back = start + timedelta(days=5)
    assert deadline(cfg) == back
    told = [m for m in sent_mail(cfg, seen) if "The game waits for Bob" in m["Subject"]]
    assert sorted(m["To"] for m in told) == ["alice@players.test", "bob@players.test"]
    assert f"{back:%a %d %b %Y %H:%M}" in body_of(told[0])
    (ev,) = moderator_events(cfg, "wait")
    assert ev.visibility == "public" and ev.data["players"] == ["Bob"]

    clock.now = back + timedelta(minutes=5)
    assert run(cfg, clock).deadlines == 1, "once Bob is back, the deadline applies"
    check_verify(cfg)


def test_the_wait_is_capped_by_max_away(game, clock) -> None:
    cfg = game
    cfg.max_away = timedelta(days=1)
    due0 = deadline(cfg)
    send(cfg, "Bob", "AWAY UNTIL 2026-03-01")
    run(cfg, clock)
    clock.now = due0 + timedelta(minutes=1)
    run(cfg, clock)
    assert deadline(cfg) == due0 + timedelta(days=1), "one day of waiting at most"
    clock.now = due0 + timedelta(days=1, minutes=2)
    assert run(cfg, clock).deadlines == 1, "the allowance is spent: the default applies though Bob is away"
    check_verify(cfg)


def test_back_ends_an_absence(game, clock) -> None:
    cfg = game
    due0 = deadline(cfg)
    send(cfg, "Bob", "AWAY 5")
    run(cfg, clock)
    clock.advance(hours=1)
    send(cfg, "Bob", "Back.")
    run(cfg, clock)
    clock.now = due0 + timedelta(minutes=1)
    assert run(cfg, clock).deadlines == 1
    assert moderator_events(cfg, "wait") == []


def test_away_needs_the_players_code_and_a_date_ahead(game, clock) -> None:
    cfg, seen = game, set()
    sent_mail(cfg, seen)
    deliver(cfg, order_mail("Bob <bob@players.test>", "iw1", "AWAY 5"))  # no code: anyone could write it
    assert run(cfg, clock).rejected == 1
    send(cfg, "Bob", "AWAY UNTIL 2025-01-01")
    run(cfg, clock)
    ack = [m for m in sent_mail(cfg, seen) if "bob@players.test" in m["To"]][-1]
    assert "that day has begun or passed" in body_of(ack)
    with session(cfg.database_url) as s:
        from pbem.record.absence import rows

        assert rows(s, store.game_by_name(s, "iw1").id) == []


def test_the_moderator_sets_and_clears_an_absence(game, clock) -> None:
    cfg, seen = game, set()
    sent_mail(cfg, seen)
    due0 = deadline(cfg)
    who, back = set_away(Home.of(cfg), "iw1", "bob", "3", clock.now)
    assert (who, back) == ("Bob", clock.now + timedelta(days=3))  # the player's name, as the name typed reads
    run(cfg, clock)
    note = [m for m in sent_mail(cfg, seen) if "bob@players.test" in m["To"]]
    assert note and "The moderator noted" in note[0]["Subject"]
    with pytest.raises(GameError, match="not a player"):
        set_away(Home.of(cfg), "iw1", "Zed", "3", clock.now)
    with pytest.raises(ValueError, match="a number of days from 1 to 366"):  # a usage error: exit 2 in the CLI
        set_away(Home.of(cfg), "iw1", "Bob", "someday", clock.now)
    clock.now = due0 + timedelta(minutes=1)
    run(cfg, clock)
    assert deadline(cfg) == back
    assert set_away(Home.of(cfg), "iw1", "Bob", "back", clock.now) == ("Bob", None)


def test_away_lines_are_read_as_people_write_them() -> None:
    assert read_away("AWAY UNTIL 2026-12-24").until == date(2026, 12, 24)
    assert read_away("away till 2026-12-24.").until == date(2026, 12, 24)
    assert read_away("Away for 10 days").days == 10
    assert read_away("AWAY 3").days == 3
    assert read_away("BACK").back
    assert read_away("AWAY 0").problem and read_away("AWAY 999").problem
    ex = extract("Back from holiday, here are my orders\nAway from my desk all week", "", ["DISCARD"])
    assert ex.away is None and ex.problems == [] and len(ex.chatter) == 2, "remarks are not orders"
    assert extract("away until tuesday", "", ["DISCARD"]).problems, "a meant but unreadable absence is explained"


def test_the_wait_rule_on_plain_values() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        AbsenceRow("away", {"player": "Bob", "until": (t0 + timedelta(days=5)).isoformat()}, t0),
        AbsenceRow("away", {"player": "Cy", "until": (t0 + timedelta(days=9)).isoformat()}, t0),
        AbsenceRow("back", {"player": "Cy"}, t0 + timedelta(hours=1)),
        AbsenceRow("wait", {"Bob": 86400}, t0 + timedelta(days=2)),
    ]
    away = absences(rows, t0 + timedelta(days=2))
    assert set(away) == {"Bob"}
    assert used(rows) == {"Bob": timedelta(days=1)}
    w = wait_for(t0 + timedelta(days=2), ["Bob", "Ann"], away, used(rows), timedelta(days=14))
    assert w is not None and w.deadline == t0 + timedelta(days=5) and w.charged == {"Bob": timedelta(days=3)}
    assert wait_for(t0 + timedelta(days=2), ["Ann"], away, {}, timedelta(days=14)) is None, "Bob is not asked"
    assert wait_for(t0 + timedelta(days=2), ["Bob"], away, {"Bob": timedelta(days=14)}, timedelta(days=14)) is None


def test_a_line_that_changes_nothing_says_so_and_writes_no_row(game, clock) -> None:
    """players26: BACK from a player who was not away was answered "Welcome back: you are no longer away", and a
    second AWAY to the same day "Noted: you are away until ...", each with a row.  Now each says nothing changed
    (`pbem.app.absence.was_away`), writes no row, and an AWAY to another day says which day it replaced; one mail
    each, as before.  On 8080c21 all three answers were the plain ones (3 of 3 failed)."""
    from pbem.record.absence import rows

    cfg, seen = game, set()
    sent_mail(cfg, seen)
    day = (clock.now + timedelta(days=4)).date()
    for body in ("BACK", f"AWAY UNTIL {day}", f"AWAY UNTIL {day}", f"AWAY UNTIL {day + timedelta(days=1)}"):
        send(cfg, "Bob", body)
        run(cfg, clock)
    subjects = [m["Subject"] for m in sent_mail(cfg, seen) if "bob@players.test" in m["To"]]
    assert subjects == [
        "[pbem iw1] You were not away in iw1: nothing changed.",
        f"[pbem iw1] Noted: you are away until {day:%a %d %b %Y} 00:00 UTC.",
        f"[pbem iw1] You were already away until {day:%a %d %b %Y} 00:00 UTC: nothing changed.",
        f"[pbem iw1] Noted: you are away until {day + timedelta(days=1):%a %d %b %Y} 00:00 UTC"
        f" (not {day:%a %d %b %Y} 00:00 UTC).",
    ]
    with session(cfg.database_url) as s:
        assert [r.action for r in rows(s, store.game_by_name(s, "iw1").id)] == ["away", "away"]
    with pytest.raises(GameError, match="already away until"):
        set_away(Home.of(cfg), "iw1", "Bob", str(day + timedelta(days=1)), clock.now)
    check_verify(cfg)
