"""A footer under a command (pure): "HELP" above "Pass it on!" or "Discard this e-mail if you are not the intended
recipient" is the command, the footer listed as not read (players27).

A message that asks a command standing without orders (`pbem.orders.extract.commanded`: HELP, STATUS, HISTORY, a
press, AWAY or BACK, a mail mode) and whose every order line the engine refuses as a footer or a closing
(`pbem.app.lines.without_prose`: prose, a short closing in lower case naming nothing of the game's) is a message of
commands only: its footer lines join the lines not read.  The footer was read as orders, refused, and the player
got the handbook or the report and a refusal of a line they never meant.  A message with an order the engine takes,
or a refused line that may be an order mistyped, is read as before.  A company's or an address's line
(`pbem.orders.closings.footer_marked`: "Play Corp Ltd. 2027" under HELP, capitals and digits) naming nothing of the
game's is such a footer too (players30: the mail was refused, so the footer was never learnt from it).  `pbem verify --mail` accepts such a message
accepted without an input (`pbem.trust.sent.set_aside`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from pbem.app.known import known, names_the_game, near_any
from pbem.app.lines import without_prose
from pbem.app.signed import mended
from pbem.engine.base import Engine, Outcome
from pbem.orders.closings import footer_marked, order_shaped
from pbem.orders.extract import Extracted, commanded

_WORD = re.compile(r"[^\W_]+")


def commands_only(eng: Engine, state: dict[str, Any], player: str, ex: Extracted) -> Extracted:
    """`ex` with its order lines among its chatter when they are all a footer under a command, else `ex`."""
    if not ex.orders or not commanded(ex):
        return ex
    result = eng.apply(state, player, list(ex.orders))
    if result.accepted:
        return ex
    kept, _, _ = without_prose(eng, state, player, list(ex.orders), result, commanded=True, footers=ex.footers)
    if kept and not _marked(eng, state, player, kept, result):
        return ex
    lines = sorted(
        [*zip(ex.placed, ex.chatter, strict=False), *zip(ex.order_at, ex.typed, strict=False)], key=lambda x: x[0]
    )
    return replace(
        ex,
        orders=[],
        typed=[],
        order_at=[],
        order_end=[],
        placed=[at for at, _ in lines],
        chatter=[line for _, line in lines],
    )


def _marked(eng: Engine, state: dict[str, Any], player: str, lines: list[str], result: Outcome) -> bool:
    """Whether every line is refused and a company's or an address's line naming nothing of the game's, none one typo
    from its words (`closings.footer_marked`: "HELP" above "Play Corp Ltd. 2027", players30)."""
    refused = {r.line for r in result.lines if not r.ok}
    words = known(eng, state, player, result)
    legal = [o for r in eng.requests(state) if r.player == player for o in r.legal]
    return all(
        line in refused
        and footer_marked(line, words)
        and not order_shaped(line, legal)  # "tribute napoleon 2027": "TRIBUTE Copper 2" mistyped, told (players31)
        and not near_any([w.upper() for w in _WORD.findall(line)[1:]], words)
        and not names_the_game(mended(line, words), words)  # "TRIBUTE Gld 2027": GOLD
        for line in lines
    )


def about_the_seat(eng: Engine, state: dict[str, Any], player: str, ex: Extracted) -> tuple[bool, list[str]]:
    """For a mail with a RESIGN or an ADDRESS line (`pbem.app.resigning`, `pbem.app.addresses`): (whether it holds
    anything else that asks or orders, the lines left unread: a footer, a signature, a remark).  A footer under the
    line ("RESIGN" above "Pass it on!") was an order line, and the answer said "the rest of your mail was not read"
    as if orders had been sent; now it says the line was read and lists the footer as left (players28)."""
    ex = commands_only(eng, state, player, ex)
    return bool(ex.orders or ex.press or ex.away or ex.mode or ex.help or ex.status), list(ex.chatter)
