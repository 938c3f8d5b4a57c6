"""Who sent a message, looked up cheaply before anything costly is done for it (issue 12).

Only a registered seat's message may cost a key derivation: `is_registered`
(the sender is a seat of any game) is one indexed look-up, and the check ahead
of handling (`pbem.app.ahead`) derives a code only for a seat of the game the
message names.  A stranger's mail costs a word search and at most one look-up;
its statements are built once.  The one exception: a line ``ADDRESS CONFIRM <word>`` (the new
address of a seat answering the word mailed to it, `pbem.app.addresses`) costs the look-up of
the game its subject names and of that game's seats, and an HMAC per seat and day; no code.
"""

from __future__ import annotations

from pbem.mail.inbound.message import Inbound
from pbem.record import lookups
from pbem.record.db import Unit


def is_registered(s: Unit, msg: Inbound) -> bool:
    """Whether the sender is a seat of any game (one indexed look-up): only then is a code ever checked."""
    return lookups.is_registered(s, msg.sender)
