"""What the reports of a decision read, loaded before it is written (`pbem.app.apply.prepare`).

A report covers the events since the player's last report (or since the start), says the current
deadline, and after a replacement the seat's earlier names.  `read` loads these once for every
report of the decision into `Loaded.recent`; the appends keep it up to date in memory
(`pbem.record.store.append_events`, `add_deadline`), so that writing the decision issues no SELECT.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel import Session

from pbem.record import evidence, outbox, store
from pbem.record.listing import resigned


def left(s: Session, loaded: store.Loaded) -> frozenset[str]:
    """The players of `loaded` who resigned by mail since their seat was given (`pbem.record.listing.resigned`),
    kept on `loaded.resigned`: they asked to leave, so they get nothing more of the game's flow."""
    assert loaded.game.id is not None
    loaded.resigned = frozenset(resigned(s, loaded.game.id))
    return loaded.resigned


def read(s: Session, loaded: store.Loaded, reports: Iterable[tuple[str, int | None]]) -> store.Recent:
    """For `reports` as (player, since; None: since their last report): what they read, kept on `loaded`."""
    gid = loaded.game.id
    assert gid is not None
    wanted = list(reports)
    last = outbox.last_report_seqs(s, gid, [p for p, _ in wanted]) if wanted else {}
    after = min((since if since is not None else last.get(p, 0) for p, since in wanted), default=loaded.event_seq)
    from_start = any(since == 0 for _, since in wanted) or any(last.get(p, 0) == 0 for p, since in wanted)
    loaded.recent = store.Recent(
        last_reports=last,
        deadline=store.current_deadline(s, gid) if wanted else None,
        events=store.events_for(s, gid, after) if wanted else [],
        after=after,
        names=store.seat_names(s, gid) if from_start else {},
        deal=evidence.deal_of(s, gid) if wanted else None,
    )
    if wanted:
        left(s, loaded)
    return loaded.recent
