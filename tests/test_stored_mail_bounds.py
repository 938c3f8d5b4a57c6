"""Storage is bounded through the pipeline (issue 12): a stranger's or a player's huge mail is kept short."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime

from pbem.app.poll import handle
from pbem.home.app import Home
from tests.conftest import order_mail, signed
from tests.test_moderator import new_game

WHEN = datetime(2026, 1, 5, 12, tzinfo=UTC)


def stored(cfg, message_id: str) -> tuple[bytes, str, str]:
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        return con.execute(
            "SELECT raw, outcome, reason FROM inbound_messages WHERE message_id = ?", (message_id,)
        ).fetchone()
    finally:
        con.close()


def test_a_strangers_big_mail_is_kept_as_headers_text_start_and_digest(home, clock) -> None:
    name = new_game(home, clock)
    raw = order_mail(
        "Mallory <mallory@evil.test>", name, "NO EVENT\n" + "junk " * 200_000, message_id="<big@evil.test>"
    )
    assert len(raw) > 1_000_000
    handle(Home.of(home), raw, WHEN)
    kept, outcome, _reason = stored(home, "<big@evil.test>")
    assert len(kept) < 64 * 1024 and hashlib.sha256(raw).hexdigest().encode() in kept
    assert outcome == "ignored"


def test_a_players_mail_over_the_player_limit_is_refused_with_the_reason(home, clock) -> None:
    name = new_game(home, clock)
    home.max_stored_player = 64 * 1024
    raw = order_mail(
        "Alice <alice@players.test>", name, signed("Alice", "STATUS\n" + "x" * 100_000), message_id="<big@players.test>"
    )
    out = handle(Home.of(home), raw, WHEN)
    kept, outcome, reason = stored(home, "<big@players.test>")
    assert out.kind == "rejected" and outcome == "rejected"
    assert "pbem accepts at most 64 KiB" in reason and len(kept) < 64 * 1024
    assert b"AAAA-2222" not in kept


def test_a_players_mail_under_the_limit_is_kept_whole(home, clock) -> None:
    name = new_game(home, clock)
    raw = order_mail("Alice <alice@players.test>", name, "STATUS\n" + "y" * 300_000, message_id="<ok@players.test>")
    handle(Home.of(home), raw, WHEN)
    kept, _, reason = stored(home, "<ok@players.test>")
    assert len(kept) >= len(raw) - 100 and "accepts at most" not in reason
