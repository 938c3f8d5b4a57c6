"""DIGEST's own daily mail (issue 23): at most one a day per player, only when something new happened.

A player in DIGEST mode is mailed at once only when asked to act and at the end (`pbem.app.notify`);
everything else is folded into their next mail.  So that news does not wait for the next question,
each poll sends a DIGEST player one report of their own when their last report is at least a day old
and some event they may see happened since it (`due`, pure).  The report is keyed by the player and
the day, so a crash or a second poll the same day sends it once.  The poll remembers when the next
digest falls due (`marks.DIGEST_DUE`), so that an idle cron run (`pbem.app.idle`) still wakes for it.

Cost per poll: one scan of the mode rows for games where anyone chose DIGEST (none: nothing more), and for each such
game the players' last reports and the events since the oldest of them; a game is loaded only to send.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from pbem.app import views
from pbem.app.decision import Decision, Report
from pbem.app.notify import DAY
from pbem.app.settle import settle
from pbem.engine.base import Event
from pbem.home.app import Home
from pbem.record import listing, marks, modes, outbox, recent, store

log = logging.getLogger("pbem.digests")


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def due(
    players: Iterable[str],
    last_report: Mapping[str, datetime],
    last_seq: Mapping[str, int],
    events: Iterable[tuple[int, Event]],
    now: datetime,
) -> tuple[list[str], datetime | None]:
    """(the players whose digest is due now, when the next one falls due): a player with a report a day
    old or more and an event they may see after the last seq their reports covered.  A player who never
    had a report is left to the first report (`pbem.app.games`)."""
    evs = list(events)
    send: list[str] = []
    later: datetime | None = None
    for p in players:
        last = last_report.get(p)
        if last is None or not any(seq > last_seq.get(p, 0) and e.visible_to(p) for seq, e in evs):
            continue
        at = _utc(last) + DAY
        if at <= _utc(now):
            send.append(p)
        elif later is None or at < later:
            later = at
    return send, later


def run_digests(home: Home, when: datetime) -> int:
    """Queue the DIGEST reports due at `when`, one game per transaction; returns how many."""
    sent = 0
    later: datetime | None = None
    with home.units() as s:
        players = modes.digest_players(s)
    for gid, names in players.items():
        with home.units() as s:
            if store.is_over(s, gid):
                continue
            names = [p for p in names if p not in listing.resigned(s, gid)]  # they asked to leave: no digest
            last = modes.last_reports(s, gid, names)
            seqs = outbox.last_report_seqs(s, gid, names)
            after = min((seqs.get(p, 0) for p in names if p in last), default=None)
            if after is None:
                continue
            rows = store.events_for(s, gid, after)
            send, at = due(names, last, seqs, ((r.seq, store.event_of(r)) for r in rows), when)
            if at is not None and (later is None or at < later):
                later = at
            game = store.game_by_id(s, gid)
            if not send or game is None or store.control_state(s, gid) != "running":
                continue
            loaded = store.load(s, game)
            if views.engine(loaded).result(loaded.state) is not None:
                continue
            day = f"{_utc(when):%Y-%m-%d}"
            d = Decision(game=game.name, effects=[Report(p, key=("digest", p, day)) for p in send])
            recent.read(s, loaded, [(p, None) for p in send])
            settle(s, home.policy, d, when, loaded)
            s.commit()
            sent += len(send)
            log.info("digest of %s sent to %d player(s)", game.name, len(send))
    marks.remember(home.cfg.database_url, marks.DIGEST_DUE, later.isoformat() if later else "")
    return sent
