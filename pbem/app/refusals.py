"""How a refused line is told (pure): its reason agrees with the mail's status, and what is legal is legal now.

`worded` is what the intake does to every refusal after the engine, the prose and the slots had their say:

* **The reason agrees with the status** (`agreeing`).  An engine refuses a line that answers nothing the
  player is asked with a `pbem.engine.base.NotAsked`, worded from the draft state the line met, which an
  earlier line of the same message may have moved on: "PASS" twice in Italian Wars had the second told
  "you are not asked anything now; waiting for Bob" above the status "Still awaited from: Alice" (the
  message was refused whole, so Alice is still awaited); an Italian Wars player asked to discard who sent a
  NEGATE was told "not asked anything" and listed as awaited.  The reason is worded here instead from the
  requests of the state the message met, the facts the status section shows (`views.waiting`): a player
  the status lists as awaited is told what they are asked, and one it does not list is told who is.
* **What is legal is legal now** (`pbem.engine.offers.legal_now`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.app import views
from pbem.engine import offers
from pbem.engine.base import Engine, LineResult, Outcome

EARLIER = 2  # earlier lines quoted at most in "an earlier line of this message already answers"


def worded(eng: Engine, state: dict[str, Any], player: str, result: Outcome) -> Outcome:
    """`result` (the outcome of `player`'s message at `state`) as the refusal tells it (the module docstring)."""
    if result.accepted:
        return result
    return offers.legal_now(eng, state, player, agreeing(eng, state, player, result))


def agreeing(eng: Engine, state: dict[str, Any], player: str, result: Outcome) -> Outcome:
    """`result` with every not-asked refusal worded from the requests of `state`, as the status is."""
    if not any(r.not_asked and not r.ok for r in result.lines):
        return result
    reqs = eng.requests(state)
    waiting = views.waiting(eng, state)  # the status's "Still awaited from"
    asked = [_first_sentence(r.prompt) for r in reqs if r.player == player and not r.answered]
    on_file = any(r.player == player and r.answered for r in reqs)
    lines: list[LineResult] = []
    for i, r in enumerate(result.lines):
        if r.ok or not r.not_asked:
            lines.append(r)
            continue
        if asked:
            why = _asked_else(eng, state, player, r, result.lines[:i], "; ".join(asked))
        else:
            head = "your orders for this step are on file and you are not asked anything else now" if on_file else ""
            why = f"{head or 'you are not asked anything now'}; waiting for {', '.join(waiting) or 'nobody'}"
        lines.append(replace(r, reason=why + (f" ({r.hint})" if r.hint else "")))
    return Outcome(result.state, result.events, lines)


def _asked_else(
    eng: Engine, state: dict[str, Any], player: str, r: LineResult, before: list[LineResult], asked: str
) -> str:
    """The reason for a player who is asked something: an earlier line answered it, or this line is not an answer."""
    earlier = [b.line for b in before if b.ok]
    if earlier and eng.apply(state, player, [r.line]).accepted:
        quoted = ", ".join(f'"{e}"' for e in earlier[-EARLIER:])
        return (
            f"an earlier line of this message ({quoted}) already answers what you are asked now ({asked}); "
            "this line alone would be accepted instead: send one answer"
        )
    return f"that is not an answer to what you are asked now: {asked}"


def _first_sentence(prompt: str) -> str:
    """A request's prompt up to its first full stop (Sixteen Thirty's go on about the number of legal orders)."""
    return prompt.split(". ", 1)[0].rstrip(". ")
