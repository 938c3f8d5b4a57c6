"""An order mail refused because the player's turn had ended (pure): told that their earlier mail stands (players31).

Habsburg's turn ends with the player's own order: a second mail the same minute ("Sorry, wrong one. I meant:" and
another EVENT) met a state that asked Alice nothing and was refused, "you are not asked anything now; waiting for
Bob", "Nothing is asked of you now", without a word of what happened to the mail it meant to correct, which the
player may well think was replaced (in the games whose step waits for every player it is: "replaces your earlier
..."). Now such a refusal (every refused line answering nothing, the player asked nothing now:
`pbem.app.answers.out_of_turn`) names the player's newest applied order mail (`pbem.app.on_file.earlier_orders`, loaded
for a player asked nothing now) and says it stands and cannot be changed by mail now (`note`).
"""

from __future__ import annotations

from typing import Any

from pbem.app.answers import out_of_turn
from pbem.app.facts import Facts
from pbem.engine.base import Engine, Outcome

SUBJECT = 60  # characters of the earlier mail's subject quoted, at most (a note is cut at `answers.LINE_CHARS`)


def note(subject: str, sent: str) -> str:
    """The note on a refused correction: the earlier mail (its subject and when it was written) stands."""
    return (
        f'Your earlier message "{subject}" sent {sent} was applied and stands: a later mail does not '
        "change orders applied."
    )


def told(facts: Facts, eng: Engine, state: dict[str, Any], player: str, result: Outcome) -> list[str]:
    """The note when `result` refuses an order mail sent out of turn by a player with an applied order mail, else []."""
    earlier = facts.earlier
    if earlier is None or result.accepted or facts.closed is not None:
        return []
    if not out_of_turn(eng, state, player, list(result.lines)):
        return []
    return [note(" ".join(earlier.subject.split())[:SUBJECT], f"{earlier.sent:%Y-%m-%d %H:%M} UTC")]


def noted(
    notes: dict[str, object], facts: Facts, eng: Engine, state: dict[str, Any], player: str, result: Outcome
) -> dict[str, object]:
    """`notes` (the acknowledgement's) with `told`'s note first among its problems."""
    stands = told(facts, eng, state, player, result)
    problems = notes.get("problems")
    return {**notes, "problems": [*stands, *(problems if isinstance(problems, list) else [])]} if stands else notes
