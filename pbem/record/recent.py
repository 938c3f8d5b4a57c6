"""What the reports of a decision read, loaded before it is written (`pbem.app.apply.prepare`).

A report covers the events since the player's last report (or since the start), says the current
deadline, and after a replacement the seat's earlier names.  `read` loads these once for every
report of the decision into `Loaded.recent`; the appends keep it up to date in memory
(`pbem.record.store.append_events`, `add_deadline`), so that writing the decision issues no SELECT.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlmodel import Session

from pbem.engine.base import PUBLIC
from pbem.record import evidence, history_rows, outbox, store
from pbem.record.listing import resigned


def left(s: Session, loaded: store.Loaded) -> frozenset[str]:
    """The players of `loaded` who resigned by mail since their seat was given (`pbem.record.listing.resigned`),
    kept on `loaded.resigned`: they asked to leave, so they get nothing more of the game's flow."""
    assert loaded.game.id is not None
    loaded.resigned = frozenset(resigned(s, loaded.game.id))
    return loaded.resigned


def read(s: Session, loaded: store.Loaded, reports: Iterable[tuple[str, int | None]]) -> store.Recent:
    """For `reports` as (player, since; None: since their last report): what they read, kept on `loaded`.

    A player who resigned (`left`) gets no turn report, so their last report stays where they left: the events
    since then are not read for them (every later mail would read more of the record, costs9).  A report the
    decision writes them after all (their STATUS, the game's end, `pbem game resend`) reads them then (`widen`)."""
    gid = loaded.game.id
    assert gid is not None
    wanted = list(reports)
    last = outbox.last_report_seqs(s, gid, [p for p, _ in wanted]) if wanted else {}
    gone = left(s, loaded) if wanted else frozenset()
    starts = [
        since if since is not None else last.get(p, 0) for p, since in wanted if since is not None or p not in gone
    ]
    after = min(starts, default=loaded.event_seq)
    from_start = any(since == 0 for _, since in wanted) or any(last.get(p, 0) == 0 for p, since in wanted)
    loaded.recent = store.Recent(
        last_reports=last,
        deadline=store.current_deadline(s, gid) if wanted else None,
        events=store.events_for(s, gid, after) if wanted else [],
        after=after,
        names=store.seat_names(s, gid) if from_start else {},
        deal=evidence.deal_of(s, gid) if wanted else None,
    )
    return loaded.recent


def widen(s: Session, loaded: store.Loaded, since: int) -> None:
    """The events from `since` that `read` left out (a player who resigned is reported to after all), read once
    and put before those it read, so that every report of the decision reads from its reader's last report."""
    gid, recent = loaded.game.id, loaded.recent
    assert gid is not None and recent is not None and since < recent.after
    recent.events[:0] = store.events_for(s, gid, since, upto=recent.after)
    recent.after = since


def shown(s: Session, loaded: store.Loaded, player: str, most: int) -> store.Recent:
    """What `pbem game show --as` reads: `player`'s report from the start, of which it prints the last `most` events
    they may see.  `read` from the start read and decoded every event of the game for them (a game of 500 and 2,000
    events: 10 and 29 ms, costs8); this reads the `most` newest they may see (`history_rows.latest_seen`, by the
    key of who may see each) and the game's deal (`salts`, which a report from the start shows), kept on `loaded` as
    `read` keeps them but for the events left out: a report context made from it is the whole report's but for the
    events it does not print.  It read every event from the `most`-th newest the player may see, those hidden from
    them too (costs11)."""
    gid = loaded.game.id
    assert gid is not None
    names = store.seat_names(s, gid)
    mine = names.get(player, (player,))

    def visible(visibility_json: str) -> bool:
        vis = json.loads(visibility_json)
        return bool(vis == PUBLIC or (isinstance(vis, list) and any(n in vis for n in mine)))

    newest = history_rows.latest_seen(s, gid, mine, most, visible=visible)
    at = {e.seq: e for e in store.events_of_kind(s, gid, "salts")}  # the deal, whoever may see it
    at |= {e.seq: e for e in store.events_at(s, gid, [row[0] for row in newest])}
    loaded.recent = store.Recent(
        last_reports={},
        deadline=store.current_deadline(s, gid),
        events=[at[seq] for seq in sorted(at)],
        after=0,
        names=names,
        deal=evidence.deal_of(s, gid),
    )
    return loaded.recent
