"""A sender's press costs at most `[mail] press_per_day` relayed mails a day, across mails and polls (issue 26).

Over Maildir, through `run_poll` with an injected clock: Alice sends many mails of 3 `PRESS TO ALL` blocks each
(2 relayed mails per block in a 3-player game), spread over several polls.  Exactly `press_per_day` relayed
mails go out; past it she gets ONE notice saying when press is relayed again, later mails cost no further mail,
and a day later her press is relayed again.  Bob's press is his own budget.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pbem.app import games
from pbem.app.cron import run_poll
from pbem.home.app import Home
from tests.conftest import CODES
from tests.reliability import killpoints as kp

PLAYERS = [("Alice", "alice@example.test"), ("Bob", "bob@example.test"), ("Carol", "carol@example.test")]
PER_DAY = 20
N = {"mail": 0}


def press_mail(player: str, blocks: int = 3) -> bytes:
    N["mail"] += 1
    addr = dict(PLAYERS)[player]
    body = f"CODE {CODES[player]}\n" + "".join(
        f"PRESS TO ALL\nnews {i} of mail {N['mail']}\nEND PRESS\n" for i in range(blocks)
    )
    return (
        f"From: {player} <{addr}>\nTo: moderator@pbem.test\nSubject: [pbem g1] press\n"
        f"Message-ID: <press{N['mail']}@example.test>\nContent-Type: text/plain; charset=utf-8\n\n{body}"
    ).encode()


def _count(cfg, purpose: str, to: str | None = None, text: str = "") -> int:
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        rows = con.execute(
            "SELECT to_addr, raw FROM outbox JOIN outbox_mail USING (id) WHERE purpose = ?", (purpose,)
        ).fetchall()
    finally:
        con.close()
    return sum(1 for addr, raw in rows if (to is None or addr == to) and text.encode() in bytes(raw))


def test_press_past_the_daily_budget_gets_one_notice_and_no_more_mail(tmp_path: Path) -> None:
    cfg = kp.make_home(tmp_path / "home")
    cfg.press_per_day = PER_DAY
    t0 = datetime.now(UTC).replace(microsecond=0)
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="press", codes=CODES, clock=lambda: t0)

    def poll(at: datetime, mails: list[bytes]) -> None:
        kp.deliver_in_order(cfg, mails)
        run = run_poll(cfg, clock=lambda: at)
        assert run.summary is not None, run.skipped

    poll(t0 + timedelta(minutes=1), [press_mail("Alice"), press_mail("Alice")])  # 12 relayed
    assert _count(cfg, "press") == 12
    poll(t0 + timedelta(minutes=10), [press_mail("Alice")])  # 18
    poll(t0 + timedelta(minutes=20), [press_mail("Alice") for _ in range(10)])  # one more block fits: 20
    assert _count(cfg, "press") == PER_DAY, "exactly the budget, across mails and polls"
    assert _count(cfg, "press-limit", "alice@example.test") == 1
    for h in range(1, 6):  # a flood over later polls of the same day: not one more mail to anyone for it
        before = _count(cfg, "ack") + _count(cfg, "notice")
        poll(t0 + timedelta(hours=h), [press_mail("Alice") for _ in range(5)])
        assert _count(cfg, "press") == PER_DAY and _count(cfg, "press-limit") == 1
        assert _count(cfg, "ack") + _count(cfg, "notice") == before, "a held-back press mail is not acknowledged"
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    reasons = [r for (r,) in con.execute("SELECT reason FROM inbound_messages WHERE reason LIKE '%press_per_day%'")]
    con.close()
    assert len(reasons) >= 25, "each held-back mail is recorded with why"

    poll(t0 + timedelta(hours=6), [press_mail("Bob", blocks=1)])  # Bob's budget is his own
    assert _count(cfg, "press") == PER_DAY + 2

    poll(t0 + timedelta(hours=24, minutes=2), [press_mail("Alice")])  # the first of her day's press has left the window
    assert _count(cfg, "press") == PER_DAY + 2 + 6, "a day later her press is relayed again"


def test_the_notice_says_when_press_is_relayed_again(tmp_path: Path) -> None:
    from email import policy
    from email.parser import BytesParser

    cfg = kp.make_home(tmp_path / "home")
    cfg.press_per_day = 4
    t0 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    games.create_game(Home.of(cfg), "habsburg", "g1", PLAYERS, seed="press", codes=CODES, clock=lambda: t0)
    kp.deliver_in_order(cfg, [press_mail("Alice"), press_mail("Alice")])
    assert run_poll(cfg, clock=lambda: t0 + timedelta(minutes=5)).summary is not None
    sent = [p.read_bytes() for p in (Path(cfg.maildir_path) / "sent").glob("*/*")]
    [notice] = [m for m in sent if b"too many press messages" in m]  # one, though both mails went past it
    msg = BytesParser(policy=policy.default).parsebytes(notice)
    assert msg["To"].addresses[0].addr_spec == "alice@example.test"
    body = msg.get_body(("plain",))
    assert body is not None
    text = body.get_content()
    assert (
        "2026-12-02 10:05 UTC" in text and "4 mails" in text and "Not relayed from this mail: 1 press message." in text
    ), text  # the 3rd block of the 1st mail
