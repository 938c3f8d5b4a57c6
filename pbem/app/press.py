"""Press: a player's message to one, several or all players, relayed by the moderator (pure).

The relay is signed with the sender's player name, never carries their code,
and is recorded as an event only its sender and recipients may see (public
when it goes to everyone).  Bluffing is part of these games: the relay says so.
"""

from __future__ import annotations

from datetime import datetime

from pbem.app import views
from pbem.app.answers import Outgoing
from pbem.app.decision import Effect, Events, PressCounted
from pbem.engine.base import Event, RuleError
from pbem.engine.names import fold, match_many, norm
from pbem.mail.outbound.outgoing import Mail
from pbem.orders.extract import Press
from pbem.orders.moderator import PRESS_RESIGNED as RESIGNED
from pbem.orders.moderator import press_seat_now
from pbem.record.press_budget import NOTICE, WINDOW, PressWindow
from pbem.record.rows import Seat
from pbem.record.store import Loaded


def relay(
    loaded: Loaded, player: str, press: Press, code: str | None, out: Outgoing
) -> tuple[list[str], str, list[Effect]]:
    """(recipients, why not sent, effects): the relayed mails and the press event, or the reason it was not sent.
    A player who resigned is left out of a press that names them (their resignation is an entry of the record,
    `pbem.trust.resigns`, so the reason can be checked): the reason names them, and the others still get it."""
    others = [p for p in views.players(loaded) if p != player]
    if any(t.upper() == "ALL" for t in press.to):
        # ALL: the players still playing (judges6), or everyone else when nobody else still plays
        to = others = [p for p in others if p not in loaded.resigned] or others
    else:
        try:
            to = list(dict.fromkeys(p for t in press.to for p in match_many(t, others, "player")))
        except RuleError as exc:
            return [], _seat_now(loaded, player, press.to) or exc.reason, []
        if gone := [p for p in to if p in loaded.resigned]:  # the record holds each resignation (`resigns`)
            to = [p for p in to if p not in gone]
            typed = ", ".join(press.to)
            why = f'{", ".join(gone)} {RESIGNED} ("PRESS TO {typed.replace(code, "[code]") if code else typed}")'
            if not to:
                return [], why, []
            return to, why, _relayed(loaded, player, press, code, out, to, others)
    return to, "", _relayed(loaded, player, press, code, out, to, others)


def _seat_now(loaded: Loaded, player: str, typed: list[str]) -> str:
    """Why a press naming a player by a name their seat no longer has is not sent: "Dave's seat is Erin's now: write
    PRESS TO Erin" (walk6: only '"dave" is not a player you can name here'); "" when no name typed is one a seat had
    before a replacement (`Loaded.former`, loaded for a message with press), or its seat is the sender's now."""
    held = {fold(norm(old)): (old, now) for old, _, _, now in loaded.former}
    for t in typed:
        old, now = held.get(fold(norm(t)), ("", ""))
        if now and now != player:
            return press_seat_now(old, now)
    return ""


def _relayed(
    loaded: Loaded, player: str, press: Press, code: str | None, out: Outgoing, to: list[str], others: list[str]
) -> list[Effect]:
    """The mails of a press to `to` (some of `others`, the other players) and its event."""
    body = [ln.replace(code, "[code]") if code else ln for ln in press.body]
    text = "\n".join(body).strip() or "(empty)"
    effects: list[Effect] = []
    for p in to:
        seat = loaded.seat_for_player(p)
        if seat is None:
            continue
        context = {
            "game_name": loaded.game.name,
            "sender": player,
            "recipients": to,
            "to_all": len(to) == len(others),
            "text": text,
        }
        mail = out.mail(seat.address, "press", "press", context, player=p, reply=False)
        effects.append(mail)
    vis: str | tuple[str, ...] = "public" if len(to) == len(others) else tuple(sorted({player, *to}))
    ev = Event(
        "press",
        f"Press from {player} to {', '.join(to)}: {' / '.join(body)}"[:2000],
        vis,
        {"from": player, "to": to, "lines": body},
    )
    effects.append(Events((ev,)))
    return effects


def relay_all(
    loaded: Loaded,
    seat: Seat,
    blocks: tuple[Press, ...] | list[Press],
    code: str | None,
    out: Outgoing,
    window: PressWindow,
    per_day: int,
    now: datetime | None,
) -> tuple[list[list[str]], list[str], list[Effect], int]:
    """Every press block of one message, within the sender's `[mail] press_per_day` (issue 26): the relayed
    mails its sender's messages caused in the last 24 hours, this one's included (`pbem.record.press_budget`).

    Returns (recipients of each block relayed, why blocks were not, effects, blocks held back by the budget).
    Past the budget a block is not relayed; the sender gets ONE notice per window saying when press is
    relayed again (no acknowledgement for it: a flood costs one mail a day), and the count is recorded.
    """
    sent: list[list[str]] = []
    failed: list[str] = []
    effects: list[Effect] = []
    used = window.mails
    held = 0
    for press in blocks:
        to, why, made = relay(loaded, seat.player, press, code, out)
        mails = sum(1 for e in made if isinstance(e, Mail))
        if why:
            failed.append(why)  # not sent, or not to each player it names (one who resigned)
        if not made:
            continue
        if used + mails > per_day:
            held += 1
            continue
        effects += made
        sent.append(to)
        used += mails
    if used > window.mails:
        effects.append(PressCounted(seat.address, used - window.mails))
    if held and not window.told:
        start = window.oldest or now
        again = f"{start + WINDOW:%Y-%m-%d %H:%M} UTC" if start is not None else "in a day"
        ctx = {"game_name": loaded.game.name, "again_at": again, "per_day": per_day, "held": held}
        effects.append(
            out.mail(seat.address, "press_limit", NOTICE, ctx, player=seat.player, to_name=seat.display_name)
        )
    return sent, failed, effects, held
