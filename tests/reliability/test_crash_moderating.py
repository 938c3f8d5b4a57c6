"""Crash safety of the moderator's tools (issue 28): `pbem poll` SIGKILLed at every stage while the mail
holds a player's AWAY and BACK, and the moderator's UNDO and EXTEND sent by mail with the moderator code.

The kill points are those of `test_crash_safety` (`tests.reliability.killpoints`: after a fetch, inside
the message's transaction, after the commit but before the inbox move, before a send and after a send
but before it is marked sent).  A reference home gets the same games and bytes with one clean poll per
wave.  The two records must be equal (the moderator's control rows included), the crashed home's export
must verify (the undo replayed), every message is filed once, and every queued mail is delivered at
least once with at most one duplicate per kill.  Small on purpose: one game, three waves, a few seconds.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

from tests.reliability import killpoints as kp

MOD_CODE = "MODR-7A2K"


def _mail(sender: str, game: str, body: str, mid: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "moderator@pbem.test"
    msg["Subject"] = f"[pbem {game}] orders"
    msg["Date"] = "Mon, 05 Jan 2026 12:00:00 +0000"
    msg["Message-ID"] = f"<{mid}@players.test>"
    msg.set_content(body + "\n")
    return msg.as_bytes()


def _player(game: str, player: str, lines: list[str], mid: str) -> bytes:
    body = "\n".join([f"CODE {kp.code_for(game, player)}", *lines])
    return _mail(f"{player} <{kp.address(game, player)}>", game, body, mid)


def _moderator(game: str, lines: list[str], mid: str) -> bytes:
    return _mail("Test Moderator <moderator@pbem.test>", game, "\n".join([f"CODE {MOD_CODE}", *lines]), mid)


def _home(path: Path, plans):
    from pbem.record import moderator_code
    from pbem.record.db import session
    from pbem.trust import codes

    cfg = kp.make_home(path)
    kp.create_games(cfg, plans)
    with session(cfg.database_url) as s:  # one moderator code for both homes, each keyed with its own key file
        moderator_code.keep(s, codes.hash_code(MOD_CODE, home=cfg.home), datetime.now(UTC) - timedelta(days=1))
        s.commit()
    return cfg


def _controls(cfg) -> list[tuple]:
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        return [tuple(r) for r in con.execute("SELECT game_id, action, detail FROM control_actions ORDER BY id")]
    finally:
        con.close()


_TIMES = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(\+00:00| UTC)?")


def _timeless(digest: dict) -> dict:
    """The digest with clock times out of its texts: the two homes poll at different instants, and a deadline
    (EXTEND's, told in its event) is counted from the real clock."""
    return {t: [tuple(_TIMES.sub("<time>", v) if isinstance(v, str) else v for v in row) for row in rows]
            for t, rows in digest.items()}  # fmt: skip


def _queued(cfg) -> int:
    con = sqlite3.connect(cfg.database_url.removeprefix("sqlite:///"))
    try:
        return con.execute("SELECT count(*) FROM outbox WHERE status = 'queued'").fetchone()[0]
    finally:
        con.close()


def test_sigkill_at_every_stage_with_away_back_undo_and_moderator_mail(tmp_path: Path) -> None:
    plans = kp.plan_games(8, games=[("habsburg", 3)], seed="crash-moderating")
    (_, game, players, _, inputs) = plans[0]
    bob = players[1]
    away_until = (datetime.now(UTC) + timedelta(days=10)).date().isoformat()
    first = [_player(game, p, lines, f"o{i}") for i, (p, lines) in enumerate(inputs[:4])]
    waves = [
        [*first[:2], _player(game, bob, [f"AWAY UNTIL {away_until}"], "away"), *first[2:]],
        [
            _moderator(game, ["UNDO TO 2 WHY a misread order", "EXTEND 1d"], "undo"),
            _player(game, bob, ["BACK"], "back"),
        ],
        # the undone inputs sent again (new mails), then more of the game
        [_player(game, p, lines, f"again{i}") for i, (p, lines) in enumerate(inputs[2:6])],
    ]
    ref, home = _home(tmp_path / "reference", plans), _home(tmp_path / "crash", plans)
    log = tmp_path / "kills.log"
    env = {"PBEM_TEST_KILL_LOG": str(log)}
    rnd = random.Random(28)
    kills_planned = 0
    kill_plan = [("send",), ("txn", "commit", "fetch", "presend"), ("send",)]  # wave 2: the UNDO and BACK
    for wave, stages in zip(waves, kill_plan, strict=True):
        kp.deliver_in_order(ref, wave)
        assert kp.run_poll(ref).returncode == 0
        kp.deliver_in_order(home, wave)
        for stage in stages:
            n = rnd.randint(1, 2) if stage in ("fetch", "txn", "commit") else rnd.randint(1, 6)
            r = kp.run_poll(home, {**env, "PBEM_TEST_KILL_AT": f"{stage}:{n}"})
            kills_planned += 1
            assert r.returncode in (0, -9), f"{stage}:{n} exited {r.returncode}:\n{r.stderr[-3000:]}"
            assert "Traceback" not in r.stderr, r.stderr[-3000:]
        for _ in range(10):
            if kp.inbox_count(home) == 0 and _queued(home) == 0:
                break
            assert kp.run_poll(home, {}).returncode == 0
        assert kp.inbox_count(home) == 0 and _queued(home) == 0

    hits = [line.split(":")[0] for line in log.read_text().split()]
    assert {"txn", "commit", "send"} <= set(hits), f"the kills that matter landed: {hits}"
    reference, got = _timeless(kp.record_digest(ref)), _timeless(kp.record_digest(home))
    outcomes = {r[0]: r[5] for r in reference["inbound"]}
    assert outcomes["<undo@players.test>"] == "accepted" and outcomes["<away@players.test>"] == "accepted"
    assert outcomes["<back@players.test>"] == "accepted"
    for table in reference:
        assert got[table] == reference[table], f"table {table} differs from the run without crashes"
    assert _controls(home) == _controls(ref)
    assert [a for _, a, _ in _controls(home)] == ["away", "extend", "back"]

    from pbem.history.export import build, verify
    from pbem.record import store
    from pbem.record.db import session

    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, game))))
    v = verify(doc, partial=True)
    assert v.ok, v.problem
    (undo,) = [o for o in doc["orders"] if o["kind"] == "undo"]  # one undo input, its mark naming input 2
    from pbem.app.undo import listed
    from pbem.home.app import Home

    rows = listed(Home.of(home), game)
    assert [r.back_to for r in rows if r.kind == "undo"] == [2]
    assert [r.seq for r in rows if r.undone_by == undo["seq"]] == [3, 4]

    total = sum(len(w) for w in waves)
    assert kp.inbox_count(home, "processed") + kp.inbox_count(home, "rejected") == total, "each filed once"
    sent = kp.delivered(home)
    queued = [row[0] for row in got["outbox"]]
    assert not [m for m in queued if sent.get(m, 0) < 1], "every queued mail delivered"
    assert set(sent) <= set(queued)
    assert sum(n - 1 for n in sent.values()) <= len(hits), "at most one duplicate per kill"
