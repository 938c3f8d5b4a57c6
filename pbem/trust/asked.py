"""`pbem verify --sent`: a resignation, a move of the seat's mail or a press that the record says the player asked for.

Two public moderator events of the chain stand for a request of the player's own: `resign` (RESIGN, then the line
``RESIGN <word>`` with the six digits pbem mailed them, `pbem.app.resigning`) and `address` with ``by: player``
(``ADDRESS new@example.org`` from the seat's address, then the word sent back from the new one,
`pbem.app.addresses`); and a `press` event (``from`` the player) stands for a press block of a mail of theirs
(`pbem.app.press`).  None names the message it came from: the chain binds the event, not who asked.  So the
moderator, who holds the database, could resign Bob by writing the very effects a confirmed RESIGN writes (the
control row and the event): Bob gets no more reports (a resigned player gets nothing of the game's flow), `pbem game
process` then applies his defaults early, `pbem.trust.due.unasked` owes a resigned name nothing, and every check
passed, `--sent` included (fairness23: every generated forgery verified on 90a53973).  Likewise a move recorded as
Bob's own hands his seat to another address while hiding that the moderator did it (his own move says ``by:
moderator``, counted among his interventions), and a press in Alice's name tells Bob what she never wrote.

Here, each such event of the player must be matched by a mail of their Sent folder that asked it: for a
resignation one holding a ``RESIGN <word>`` line (the confirmation: a bare RESIGN only asks for the word), for a move
one holding an ``ADDRESS <new address>`` line, for a press a press block of the same lines (each stripped and case
folded, the code as pbem relays it), read as the poll reads a mail (`pbem.orders.own_quotes.read_alone`, quoted
lines of pbem's not the player's), each mail answering one event, which the export records as read in the
`WINDOW` before the event (a mail the export does not list is DROPPED already).  Otherwise UNASKED, naming the
event.  As for INVENTED, a player who also writes from another device gives the mail they have.  *Limits:* the
resignation's word is keyed with the home's secret, so it is not compared (a RESIGN with a wrong word is matched
too); the move's event names no address (the public export lists none), so a move to another address than the one
asked, within the two days its word is good, is matched; a press's recipients are the names pbem's reading found,
not compared with the names typed.  Pure; linear in the mails and events (each mail read once).
"""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta
from typing import Any, Protocol

from pbem.orders.extract import Extracted
from pbem.orders.own_quotes import read_alone
from pbem.trust import when_sent as when
from pbem.trust.quote import clip

#: The events that stand for a request of the player's, by action: (what the player must have sent, in words).
ASKED = {
    "resign": "a line RESIGN with the six-digit word pbem mailed you to confirm it (a RESIGN alone only asks for it)",
    "address": "a line ADDRESS with the new address",
    "press": "a press block (PRESS TO ...) with these very lines",
}
PRESS = "press"
#: How long before its event the mail that asked it was read, at most.  A RESIGN with its word is recorded with the
#: resignation it makes, at the same time (`pbem.app.apply`: one step, one time; an hour allowed); an ADDRESS line
#: asks for a word good on the day it was given and the next (`pbem.app.addresses.DAYS`), and the move is made when
#: the new address sends it back, so within two days of the request.
WINDOW = {"resign": timedelta(hours=1), "address": timedelta(days=2), "press": timedelta(hours=1)}
#: What the moderator did if the player did not ask.
WROTE = {
    "resign": "resigned you: pbem sends a resigned player no more reports, and `pbem game process` may apply their "
    "defaults at once",
    "address": "moved your seat's mail to an address of his choosing and recorded it as your request",
    "press": "wrote this press in your name: its readers cannot tell",
}
_TAG = re.compile(r"<[^<>]{0,2000}>")


class Mail(Protocol):
    """A mail of the Sent folder (`pbem.trust.sent.Sent`)."""

    @property
    def message_id(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def subject(self) -> str: ...


def pressed(lines: list[str] | tuple[str, ...], code: str | None = None) -> str:
    """The key of a press's lines: each stripped and case folded, the sender's code as pbem relays it ("[code]")."""
    said = [line.replace(code, "[code]") if code else line for line in lines]
    return PRESS + "\n".join(" ".join(line.split()).casefold() for line in said)


def _asks(ex: Extracted) -> set[str]:
    out = {pressed(p.body, ex.code) for p in ex.press}
    if ex.resign:  # "RESIGN 482193": the confirmation; "" (RESIGN alone) asks for the word
        out.add("resign")
    if ex.address is not None:
        out.add("address")
    return out


def requests(mail: Mail, words: tuple[str, ...], reply: bool, html_text: str = "") -> set[str]:
    """What `mail` asks of the kinds `ASKED` names, read as the poll reads it (its HTML part's text where the plain
    part is empty: a mail program that sends HTML only)."""
    text = mail.text or html.unescape(_TAG.sub("\n", html_text))
    return _asks(read_alone(text, mail.subject, words, reply))


def _asked(e: dict[str, Any], who: str) -> tuple[str, str]:
    """(the kind of request the event `e` stands for, the key of the mail that asked it) when it is one of the
    player's `who` (lower case); ("", "") when it is not."""
    data = e.get("data")
    if e.get("kind") == "press" and isinstance(data, dict) and str(data.get("from", "")).lower() == who:
        lines = data.get("lines")
        return (PRESS, pressed([str(x) for x in lines])) if isinstance(lines, list) else ("", "")
    action = _action(e)
    if not action or str(e["data"].get("player", "")).lower() != who:
        return "", ""
    return action, action


def _action(e: dict[str, Any]) -> str:
    data = e.get("data")
    if e.get("kind") != "moderator" or not isinstance(data, dict):
        return ""
    action = str(data.get("action", ""))
    if action == "address" and data.get("by") != "player":
        return ""  # the moderator's own move says so, and verify counts it among his actions
    return action if action in ("resign", "address") else ""


def unasked(
    doc: dict[str, Any],
    mails: list[Mail],
    player: str,
    asks: dict[str, set[str]],
) -> list[str]:
    """UNASKED, for each `resign`, player's `address` or `press` event of `player`'s that no mail of theirs (`mails`,
    the Sent folder; `asks`: what each asks, by Message-ID, `requests`) read in its `WINDOW` asked for (or wrote)."""
    received = {
        "".join(str(m.get("message_id") or "").split()).strip("<>").lower(): when.iso(m.get("received"))
        for m in doc.get("messages") or []
        if isinstance(m, dict)
    }
    left: dict[str, list[Mail]] = {}
    for m in mails:
        for key in asks.get(m.message_id, set()):
            left.setdefault(key, []).append(m)
    out = []
    who = player.lower()
    for e in doc.get("events") or []:
        action, key = _asked(e, who)
        if not action:
            continue
        at = when.iso(e.get("at"))
        ways = left.get(key, [])
        found = next((m for m in ways if _within(received.get(m.message_id), at, WINDOW[action])), None)
        if found is not None:
            ways.remove(found)
            continue
        if action == PRESS and _written(e["data"]["lines"], mails, received, at):
            continue
        out.append(
            f'UNASKED: event {e.get("seq")} of the export ("{clip(str(e.get("text", "")))}", {clip(str(e.get("at")))}) '
            f"says {clip(player)} {'wrote' if action == PRESS else 'asked'} it, but your Sent folder holds no mail with {ASKED[action]} that the export "
            f"records as read in the {_said(WINDOW[action])} before it. If you did not ask, the moderator "
            + WROTE[action]
            + "; if you asked from another device, give that mail too"
        )
    return out


def _written(lines: list[Any], mails: list[Mail], received: dict[str, datetime | None], at: datetime | None) -> bool:
    """Whether a mail of `mails` read in the hour before `at` holds each of the press's `lines` in its text (spaces
    folded, case folded; a line with "[code]" in it taken as the player's): the press block as pbem's poll read it, when the Sent
    copy's reading ends it elsewhere (a copy of pbem's mail pasted under it, which the poll took off with the mail
    it names, `pbem.app.reading`)."""
    want = [key for x in lines if (key := " ".join(str(x).split()).casefold()) and key != "[code]"]
    for m in mails:
        if not _within(received.get(m.message_id), at, WINDOW[PRESS]):
            continue
        have = "\n".join(" ".join(line.split()) for line in m.text.splitlines()).casefold()
        if all(x in have or "[code]" in x for x in want):
            return True
    return False


def _said(window: timedelta) -> str:
    return f"{window.days} days" if window.days else f"{window.seconds // 3600} hour"


def _within(received: datetime | None, at: datetime | None, window: timedelta) -> bool:
    return received is None or at is None or at - window <= received <= at
