"""Press: a player's message to one, several or all players, relayed by the moderator (pure).

The relay is signed with the sender's player name, never carries their code,
and is recorded as an event only its sender and recipients may see (public
when it goes to everyone).  Bluffing is part of these games: the relay says so.
"""

from __future__ import annotations

from pbem.app import views
from pbem.app.answers import Outgoing
from pbem.app.decision import Effect, Events
from pbem.engine.base import Event, RuleError
from pbem.engine.names import match_many
from pbem.orders.extract import Press
from pbem.record.store import Loaded


def relay(
    loaded: Loaded, player: str, press: Press, code: str | None, out: Outgoing
) -> tuple[list[str], str, list[Effect]]:
    """(recipients, why not sent, effects): the relayed mails and the press event, or the reason it was not sent."""
    others = [p for p in views.players(loaded) if p != player]
    if any(t.upper() == "ALL" for t in press.to):
        to = others
    else:
        try:
            to = list(dict.fromkeys(p for t in press.to for p in match_many(t, others, "player")))
        except RuleError as exc:
            return [], exc.reason, []
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
    return to, "", effects
