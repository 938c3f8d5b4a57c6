"""A deadline is held while a player it would default never got the step's report (issue 26, `pbem.app.undelivered`).

Over TCP, against a fault-injecting SMTP server (450 for one recipient) and a closed port (an outage):

* Alice's first report is given up on (she is the one the first step asks); the deadline passes: nothing is applied, the moderator gets ONE mail naming
  `pbem outbox retry N`; once queued again and delivered, the deadline moves by the time the report was held
  (from the step's opening to its delivery), every player is told, and the moved deadline applies.
* An outage across the deadline: every report still queued (no attempt spent), the deadline holds; once the
  server is back the deadline moves likewise.
* A step whose reports all went out applies at its deadline, as always.
"""

from __future__ import annotations

import json
import socket
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pbem.app import games
from pbem.app.deadlines import run_deadlines
from pbem.home.app import Home
from pbem.mail.outbound.sender import send_pending
from pbem.mail.transports.seam import TransportError
from pbem.mail.transports.smtp import SmtpSender
from tests.conftest import CODES
from tests.mail.test_deadlines import server
from tests.mail.test_outbox_semantics import PLAYERS, _pbem, deferring

# the step opens 49 h ago (its deadline, 48 h, an hour ago): `pbem outbox retry` queues mail for now
T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=49)


def _home(tmp_path: Path):
    from tests.reliability import killpoints as kp

    cfg = kp.make_home(tmp_path / "home")
    cfg.smtp.max_attempts = 2
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="held", codes=CODES, clock=lambda: T0)
    return cfg


def _send(cfg, port: int, when: datetime) -> None:
    sender = SmtpSender("127.0.0.1", port, timeout=5)
    try:
        send_pending(cfg, sender, when)
    finally:
        sender.close()


def _db(cfg) -> sqlite3.Connection:
    return sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))


def _deadline(cfg) -> datetime:
    with _db(cfg) as con:
        (due,) = con.execute("SELECT due_at FROM deadlines ORDER BY id DESC LIMIT 1").fetchone()
    at = datetime.fromisoformat(str(due))
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _defaults(cfg) -> int:
    with _db(cfg) as con:
        return con.execute("SELECT count(*) FROM events WHERE kind = 'default-orders'").fetchone()[0]


def _alerts(cfg) -> list[bytes]:
    with _db(cfg) as con:
        rows = con.execute(
            "SELECT raw FROM outbox JOIN outbox_mail USING (id) WHERE to_addr = ? AND purpose = 'alert'",
            (cfg.moderator_address,),
        )
        return [bytes(r[0]) for r in rows if b"deadline held" in bytes(r[0])]


def _held_events(cfg) -> list[dict]:
    with _db(cfg) as con:
        rows = con.execute("SELECT data_json FROM events WHERE kind = 'moderator'").fetchall()
    return [d for (j,) in rows if (d := json.loads(j)).get("action") == "held"]


def _told(cfg) -> set[str]:
    from email import policy
    from email.parser import BytesParser

    with _db(cfg) as con:
        rows = con.execute(
            "SELECT to_addr, raw FROM outbox JOIN outbox_mail USING (id) WHERE purpose = 'news'"
        ).fetchall()
    texts = {to: BytesParser(policy=policy.default).parsebytes(raw).get_body(("plain",)) for to, raw in rows}
    return {to for to, t in texts.items() if t is not None and "moves by the time it was held" in t.get_content()}


def test_a_given_up_first_report_holds_the_deadline_until_it_is_delivered(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    deadline = _deadline(cfg)
    with server(deferring("alice@")) as (port, _):
        _send(cfg, port, T0 + timedelta(minutes=1))
        _send(cfg, port, T0 + timedelta(minutes=30))  # Alice's second 450: given up on (max_attempts = 2)
    with _db(cfg) as con:
        (alice,) = con.execute(
            "SELECT id FROM outbox WHERE to_addr = 'alice@example.test' AND status = 'failed'"
        ).fetchone()

    assert run_deadlines(Home.of(cfg), deadline + timedelta(minutes=1)) == (0, 0)
    assert _defaults(cfg) == 0, "no default applied while Alice never got the step's report"
    (alert,) = _alerts(cfg)
    assert f"pbem outbox retry {alice}".encode() in alert and b"Alice" in alert and b"Bob" not in alert
    assert run_deadlines(Home.of(cfg), deadline + timedelta(minutes=20)) == (0, 0)  # looked at again: still held
    assert _defaults(cfg) == 0 and len(_alerts(cfg)) == 1, "the moderator is told once"

    retried = _pbem(cfg, "outbox", "retry", str(alice))
    assert retried.returncode == 0, retried.stderr
    delivered = deadline + timedelta(hours=2)
    with server(deferring("nobody@")) as (port, log):
        _send(cfg, port, delivered)
    assert any(b"alice@" in r for r in log)
    assert run_deadlines(Home.of(cfg), delivered + timedelta(minutes=16)) == (0, 0)
    moved = _deadline(cfg)
    assert moved == deadline + (delivered - T0), "moved by the time the report was held: Alice gets the whole step"
    (event,) = _held_events(cfg)
    assert event["players"] == ["Alice"] and event["step"]
    assert _told(cfg) == {a for _, a in PLAYERS}, "every player is told the new deadline"
    assert _defaults(cfg) == 0
    assert run_deadlines(Home.of(cfg), moved - timedelta(minutes=1))[0] == 0  # a reminder may go out, no default
    assert run_deadlines(Home.of(cfg), moved + timedelta(minutes=1))[0] == 1, "the moved deadline applies"
    assert _defaults(cfg) > 0 and len(_held_events(cfg)) == 1


def test_an_outage_across_the_deadline_holds_it_and_costs_no_attempt(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    deadline = _deadline(cfg)
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    for hour in range(0, 60, 6):  # the server is down from the step's opening to past its deadline
        with pytest.raises(TransportError):
            _send(cfg, port, T0 + timedelta(hours=hour, minutes=1))
        run_deadlines(Home.of(cfg), T0 + timedelta(hours=hour, minutes=2))
    assert _defaults(cfg) == 0
    (alert,) = _alerts(cfg)
    assert b"still being retried" in alert and b"pbem outbox retry " not in alert
    back = T0 + timedelta(hours=60)
    with server(deferring("nobody@")) as (port, log):
        _send(cfg, port, back)
    got = [r.lower() for r in log]  # the three reports, Alice's reminder, the moderator's alert
    assert all(any(a.encode() in r for r in got) for a in ("alice@", "bob@", "carol@", "moderator@"))
    assert run_deadlines(Home.of(cfg), back + timedelta(minutes=16)) == (0, 0)
    assert _deadline(cfg) == deadline + (back - T0)
    assert _held_events(cfg)[0]["players"] == ["Alice"]  # the one the step asks


def test_a_step_whose_reports_went_out_applies_at_its_deadline(tmp_path: Path) -> None:
    cfg = _home(tmp_path)
    deadline = _deadline(cfg)
    with server(deferring("nobody@")) as (port, _):
        _send(cfg, port, T0 + timedelta(minutes=1))
    assert run_deadlines(Home.of(cfg), deadline + timedelta(minutes=1))[0] == 1
    assert _defaults(cfg) > 0 and not _alerts(cfg) and not _held_events(cfg)


def test_a_resigned_players_report_never_sent_holds_no_deadline(tmp_path: Path) -> None:
    """Alice, the one the step asks, resigned by mail (RESIGN confirmed: its control row): her report never went
    out, but she asked to leave, so the deadline applies the seat's defaults and is held for nobody (judges6)."""
    cfg = _home(tmp_path)
    deadline = _deadline(cfg)
    at = (T0 + timedelta(minutes=5)).replace(tzinfo=None).isoformat(sep=" ")
    with _db(cfg) as con:
        con.execute(
            "INSERT INTO control_actions (game_id, action, detail, created_at) "
            "SELECT id, 'resign', 'Alice', ? FROM games WHERE name = 'g1'",
            (at,),
        )
    assert run_deadlines(Home.of(cfg), deadline + timedelta(minutes=1))[0] == 1
    assert _defaults(cfg) > 0 and not _alerts(cfg) and not _held_events(cfg)
