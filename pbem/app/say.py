"""`pbem game say NAME "text"` and `SAY <text>` by mail: the moderator's message to every player of a game.

Judge's broadcast: a word to everyone ("the deadline holds over the holidays", "Bob's mail bounced, he is
told").  It is a public moderator event in the game's record (`action` say, its `text`), so the export, the
site's history and `pbem verify` show it as the players read it (verify checks its text and bounds), and every
current player gets the `control_say` notice, as every moderator notice goes (outbox purpose `NEWS`, whatever
their mail mode: a mail the moderator sends on purpose is not news that can wait for a digest).  The text is
one paragraph of at most `SAY_MAX` characters, no control character and nothing shaped like a player code
(`pbem.orders.moderator.say_problem`) nor any player's current code in any case, of this game or of any other game not over (`codes_of`: a code
of letters only typed in lower case was let through, judges3; another game's, judges4): refused in one line otherwise, and nothing is recorded.  A game that is
over or abandoned takes none: its record is closed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from pbem.app.control import Command, announce
from pbem.app.decision import Decision, GameError, check_open
from pbem.home.app import Home
from pbem.orders.moderator import CODE_SHAPED, TOO_MANY_CANDIDATES, code_candidates, said, say_problem, say_text
from pbem.record import lookups, store
from pbem.trust import codes


def _no_code(word: str) -> bool:
    return False


def decide_say(loaded: store.Loaded, control: str, typed: str, is_code: Callable[[str], bool] = _no_code) -> Decision:
    """The public event and every seat's notice, or a GameError saying why the message cannot go.  `is_code`: whether
    a word of the message is a current code of a player of the game (`codes_of`)."""
    check_open(loaded, control, allow_paused=True)
    text = say_text(typed)
    if why := unfit(text, is_code):
        raise GameError(why)
    effects = announce(loaded, "say", said(text), facts={"text": text}, message=text)
    return Decision(game=loaded.game.name, effects=effects)


def unfit(text: str, is_code: Callable[[str], bool] = _no_code) -> str:
    """Why `text`, which every player reads and the record keeps, may not go ("" if it may): `say_problem`'s
    reasons (empty, too long, a control character, shaped like a code), or a word that is the current code of a
    player (`is_code`: `codes_of`).  The moderator's message and an undo's reason alike (judges4: the reason was
    not checked at all)."""
    if why := say_problem(text):
        return why
    words = code_candidates(text)
    if words is None:
        return TOO_MANY_CANDIDATES
    return CODE_SHAPED if any(is_code(w) for w in words) else ""


def codes_of(loaded: store.Loaded, others: Sequence[str] = ()) -> Callable[[str], bool]:
    """Whether a word is the current code of a player of the game, or of any game not over (`others`: their stored
    hashes, `lookups.open_code_hashes`), in any case: a code of letters only typed in lower case ("kqxm-abcd") has
    no shape that tells it from prose ("self-help"), and another game's player's code sent to this game's players
    leaks it as surely (judges4).  Each word costs a keyed hash per seat (microseconds; an older stretched code's,
    3-5 ms), at most `MAX_CANDIDATES` words."""
    hashes = list(dict.fromkeys([*(seat.code_hash for seat in loaded.seats if seat.code_hash), *others]))

    def is_code(word: str) -> bool:
        return any(codes.check_code(word, stored) for stored in hashes)

    return is_code


def say(home: Home, name: str, typed: str, when: datetime) -> list[str]:
    """Queue the moderator's message to every player of game `name`; returns the players told."""
    with home.units() as s:
        c = Command(s, name)
        d = decide_say(c.loaded, c.control, typed, codes_of(c.loaded, lookups.open_code_hashes(c.s)))
        c.apply(home.policy, d, when)
        return [seat.player for seat in c.loaded.seats]
