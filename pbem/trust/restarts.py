"""`pbem verify --mail`: the same game made again under another name, found in the player's own mail.

A moderator who dislikes a deal (or the JOINs that will make it) can start the game over under another name with
the same players: the new game's record and mail hold no trace of the first, and its export verifies (second
fairness red team, left open).  Only the players hold the trace: the first game's mail.  Each receipt is signed
over the game's header, SHA-256 of its name, kind, options, `insecure_seed`, players and seed commitment
(`pbem.trust.signing.header`); the invitation states the commitment (`X-Pbem-Commitment`, and `X-Pbem-Record: 0
<commitment>`).  So for the mail of any other game in the player's folder, signed by its own key under its own
name, the header it was signed for can be compared with this export's kind, options and players under that name
and commitment (the players in any seat order): equal is proof that the other game is this one's kind with the
same options and players.  A rematch after the other game ended is normal: its final report reveals a seed whose
SHA-256 is its commitment.  So is a rematch played at the same time, even unfinished: the player's own orders in
it were acknowledged after this game began (a mail with `X-Pbem-Input`, which only the player's own message
gets, dated after this game's first mail; a report or notice the moderator sends proves nothing, he could send it
to make the other game look alive).  One that never ended and that the player left before this game began is a
warning, worded as a question, not an accusation (players who agree to leave a game leave the same trace): if it
was this game made again, the moderator chose between two deals.  Pure; at most `MAX_GAMES` other games are compared, each
against at most 720 seat orders.
"""

from __future__ import annotations

import re
from itertools import islice, permutations
from typing import TYPE_CHECKING, Any

from pbem.engine.rng import commitment
from pbem.trust import signing, told
from pbem.trust.quote import clip

if TYPE_CHECKING:
    from pbem.trust.receipts import Received

TAG = re.compile(r"\[pbem ([^\]\s]{1,100})\]", re.I)
SEED = re.compile(r"^The seed was: (\S{1,200})$", re.M)
MAX_GAMES = 20  # other games compared
MAX_ORDERS = 720  # seat orders tried per commitment (6 players)
MAX_COMMITMENTS = 4  # commitments tried per other game


def elsewhere(doc: dict[str, Any], others: list[Received], since: float = 0.0) -> list[str]:
    """Notes on the other games of `others` (the player's mail not about this game) signed for this game's kind,
    options and players: a note for each that ended, or that the player still played after this game began
    (`since`: the Date of this game's first mail to them, a timestamp; 0 when unknown), a warning for the rest."""
    game = doc["game"]
    groups: dict[tuple[str, str], list[Received]] = {}
    for m in others:
        tag = TAG.search(m.subject)
        if not tag or tag.group(1).lower() == str(game["name"]).lower() or m.record is None or not m.key:
            continue
        group = (tag.group(1), m.key)
        if group in groups or len(groups) < MAX_GAMES:
            groups.setdefault(group, []).append(m)
    out = []
    for (name, key), mails in groups.items():
        signed = [m for m in mails if m.signed_by(key, name)]
        said = _same(doc, name, signed)
        if said is not None:
            out.append(_worded(doc, name, key, said, signed, since))
    return out


def _same(doc: dict[str, Any], name: str, mails: list[Received]) -> str | None:
    """The commitment under which `mails` (signed for the game `name`) were signed for this export's kind, options
    and players; None when they were not."""
    game = doc["game"]
    stated = {m.commitment for m in mails if m.commitment} | {
        m.record[1] for m in mails if m.record and not m.record[0]
    }
    headers = {m.game_header for m in mails}
    marks = sorted({0, signing.marked(game)})  # the other game made before the format mark, or as this one
    players = [str(p["name"]) for p in doc["players"]]
    for c in sorted(stated)[:MAX_COMMITMENTS]:
        for order in islice(permutations(players), MAX_ORDERS):
            for mark in marks:
                h = signing.header(
                    name, game["kind"], game["options"], bool(game.get("insecure_seed")), list(order), c, mark
                )
                if h in headers:
                    return c
    return None


def _worded(doc: dict[str, Any], name: str, key: str, stated: str, mails: list[Received], since: float) -> str:
    mails = sorted(mails, key=lambda m: m.sort_key)
    what = (
        f'your mail holds {len(mails)} mails of the game "{clip(name)}" (key {signing.fingerprint(key)}, commitment '
        f"{stated[:16]}..., from {mails[0].date or '(no date)'}), signed for the same kind, options and players as "
        "this game (its signed header proves it)"
    )
    for m in mails:
        text = told.plain(m.raw) if b"The seed was" in m.raw or b"base64" in m.raw else ""
        if any(commitment(s) == stated for s in SEED.findall(text)):
            return f"{what}; it ended ({m.name} reveals its seed): a game played before or beside this one"
    played = next((m for m in reversed(mails) if m.input is not None and since and m.sort_key > since), None)
    if played is not None:  # the player's own orders, acknowledged after this game began: they played both
        return (
            f"{what}; it never ended, but you still played it after this game began ({played.name} acknowledges "
            "your orders): a game played beside this one (a rematch), not this one started again"
        )
    dealt = next((m for m in mails if told.may_report(m.raw) and "Private report for " in told.plain(m.raw)), None)
    abandoned = next((m for m in mails if "abandoned the game" in m.subject), None)
    return (
        f"WARNING: {what}, and it never ended: no final report reveals its seed"
        + (f" ({abandoned.name} says the moderator abandoned it)" if abandoned else "")
        + (", and you sent it no orders after this game began" if since else "")
        + ". A game the players chose to leave, or a rematch "
        + "left unfinished, looks the same; but if it was this game started again under another name, the moderator "
        + (
            f"saw its deal ({dealt.name} reports on it) before this one was dealt"
            if dealt
            else "could see its JOINs before this one was dealt"
        )
        + ": if you did not choose to leave it, ask him why it stopped, and for its export (pbem export "
        + f"{clip(name)}), which shows the deal it had"
    )
