"""One message's order lines as the engine took them (pure): footers set aside, replaced lines told.

* An order word counts only when what follows parses: a refused line that reads as prose (a company
  footer "Call us on 0800 123 456", a link, a long sentence: `pbem.orders.typed.prose`) is set aside as
  chatter and the rest of the message is tried again, once.  So are the refused lines that close the
  message (`closing`): a short line after every other order whose words after the order word are in lower
  case and name nothing the game knows now ("Take care," and "Play nice!" in Dynasties, where TAKE and
  PLAY are order words).  A mistyped order keeps a word of the game, a digit, a capital or a word of five
  letters or more one typo from the game's ("TRIBUTE Gold 77", "EVENT PERSON Frans", "NEGATE Frnce",
  "negate frnce") and is refused with its reason as before.
* One slot, one order: when a later line of the same message replaces an earlier one (the engine keeps
  only the later: applying the message without the earlier line leaves the same state), the
  acknowledgement says so, quoting both lines.  At most `CHECKED` lines are checked (each check is one
  more `apply` of the message), so the cost stays linear in the message.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from pbem.app import asides, cells, prefixed, repeated, signed, wraps
from pbem.app.known import NEAR, near_any
from pbem.app.known import known as _known
from pbem.app.known import names_the_game as _names_the_game
from pbem.app.signed import alone as _alone
from pbem.app.unread import shortened
from pbem.engine import slots
from pbem.engine.base import Engine, Outcome
from pbem.orders import near
from pbem.orders.closings import closing_shape, syntax_words
from pbem.orders.elsewhere import subject_note
from pbem.orders.extract import Extracted, asks, seeming_note, unasked
from pbem.orders.typed import prose

CHECKED = 8


def without_prose(
    eng: Engine,
    state: dict[str, Any],
    player: str,
    orders: list[str],
    result: Outcome,
    commanded: bool = False,
    footers: frozenset[str] = frozenset(),
) -> tuple[list[str], list[str], Outcome]:
    """(orders kept, lines set aside as chatter, their outcome): a line typed again set aside (`once`), then the
    refused prose lines.  Every line is set aside only in a message that asks a command (`commanded`: "HELP" above
    "Discard this e-mail if you are not the intended recipient"); else a message of prose alone is refused."""
    orders, twice, result = once(eng, state, player, orders, result)
    if result.accepted:
        return _unprefixed(eng, state, player, orders, twice, result)
    long = [
        r.line for r in result.lines if not r.ok and prose(r.line) and not _an_order_asked(eng, state, player, r.line)
    ]
    known = _known(eng, state, player, result) if long else set()
    # a long line that names something of the game's, or is one typo from it, is an order mistyped, not prose
    aside = [line for line in long if not _names_the_game(line, known)]
    aside += [line for line in closing(eng, state, player, orders, result, footers) if line not in aside]
    kept = [o for o in orders if o not in aside]
    if not aside or not (kept or commanded):
        return orders, twice, result
    if not kept:
        return [], twice + aside, Outcome(state, [], [])
    again = eng.apply(state, player, kept)
    return (kept, twice + aside, again) if again.accepted else (orders, twice, result)


def _unprefixed(
    eng: Engine, state: dict[str, Any], player: str, orders: list[str], twice: list[str], result: Outcome
) -> tuple[list[str], list[str], Outcome]:
    """An accepted message without its closings read by a name's prefix at its end ("keep care": `pbem.app.prefixed`);
    a message of such closings alone refused, each with why and the order to send."""
    aside = prefixed.trailing(eng, orders, result)
    if not aside:
        return orders, twice, result
    kept = orders[: len(orders) - len(aside)]
    if not kept:
        return orders, twice, prefixed.refused(state, orders, result)
    again = eng.apply(state, player, kept)
    return (kept, twice + aside, again) if again.accepted else (orders, twice, result)


def _key(line: str) -> str:
    return " ".join(line.casefold().split())  # as `pbem.app.footprints.key`


def once(
    eng: Engine, state: dict[str, Any], player: str, orders: list[str], result: Outcome
) -> tuple[list[str], list[str], Outcome]:
    """(orders kept, the repeats set aside, their outcome): an order line typed again in the same message, the same
    words whatever their case ("PLAY Silver 11" then "play silver 11.", a line pasted twice), is read once where the
    game cannot take it twice: refused as a card played twice, or as two orders for one slot ("send only the one you
    mean", though both were the one meant).  Where the game takes both (two cards alike played), both stand, as
    typed.  Cost: at most two more `apply` and one `one_per_slot`."""
    seen: set[str] = set()
    kept: list[str] = []
    repeats: list[str] = []
    for line in orders:
        (repeats if _key(line) in seen else kept).append(line)
        seen.add(_key(line))
    if not repeats or (result.accepted and slots.one_per_slot(eng, state, player, orders, result).accepted):
        return orders, [], result
    again = eng.apply(state, player, kept)
    if again.accepted and slots.one_per_slot(eng, state, player, kept, again).accepted:
        return kept, repeats, again
    return orders, [], result


def _an_order_asked(eng: Engine, state: dict[str, Any], player: str, line: str) -> bool:
    """A line that asks whether to send an order the engine takes alone ("PASS?"): refused as a question
    (`pbem.app.refusals.questioned`), never set aside as prose, which would apply the rest of the message without
    it.  A question that is no order ("Play again next time?") is set aside as before."""
    if not asks(line):
        return False
    alone = eng.apply(state, player, [unasked(line)])
    return alone.accepted and not (alone.lines and shortened(alone.lines[0]))


_WORD = re.compile(r"[^\W_]+")


def closing(
    eng: Engine,
    state: dict[str, Any],
    player: str,
    orders: list[str],
    result: Outcome,
    footers: frozenset[str] = frozenset(),
) -> list[str]:
    """The refused lines at the end of the message (after every other order) that close it rather than order: a
    closing's or a footer's shape naming no word the game knows now (`pbem.orders.closings.closing_shape`: a word of
    a legal order or a name the engine offered, for any line of the message or any request of the player's; the
    game's order words are no words of a sentence), none one typo from such a word, none an order asked, none an
    order in lower case, every word of it the game's syntax (`syntax_words`: "trade want any" under the set-up's order
    was set aside as a closing; now refused, as an order of a later step).  A line of the player's `footers` (their
    earlier mails', `pbem.app.footprints`) naming nothing of the game's has a footer's shape whatever its capitals."""
    known = _known(eng, state, player, result)
    spoken = frozenset(w.upper() for ow in eng.order_words for w in _WORD.findall(ow))
    syntax = syntax_words(eng)  # "trade want any", every word the game's: an order in lower case, refused as one
    refused = {r.line for r in result.lines if not r.ok and not all(w.upper() in syntax for w in _WORD.findall(r.line))}
    out: list[str] = []
    for line in reversed(orders):
        typed = _WORD.findall(line)[1:]
        signs = _key(line) in footers and not _names_the_game(line, known)  # the player's own footer (players29)
        if line not in refused or not (signs or closing_shape(line, known, spoken)):
            break  # a name typed as one ("PLAY Nice", "NEGATE Frnce") may be a mistyped order: refused as one
        if _an_order_asked(eng, state, player, line):
            break  # "vote red?" after the orders: refused as a question, not set aside
        if any(len(w) >= NEAR for w in typed) and near_any([w.upper() for w in typed], known):
            break  # "negate frnce": a name of the game's mistyped, refused as an order with its reason
        out.append(line)
    return out[::-1]


def _verb(line: str) -> str:
    return line.split()[0].upper() if line.split() else ""


def replaced(eng: Engine, state: dict[str, Any], player: str, orders: list[str], result: Outcome) -> list[str]:
    """Notes "X was replaced by Y" for each earlier line a later line of the same message replaced."""
    if not result.accepted or len(orders) < 2:
        return []
    notes: list[str] = []
    checked = 0
    for i, line in enumerate(orders):
        later = next((o for o in orders[i + 1 :] if _verb(o) == _verb(line)), None)
        if later is None or checked >= CHECKED:
            continue
        checked += 1
        rest = orders[:i] + orders[i + 1 :]
        again = eng.apply(state, player, rest)
        if again.accepted and again.state == result.state:
            notes.append(f'"{line}" was replaced by "{later}", later in the same message: only the later one stands')
    return notes


SEEMING = 8  # lines that seem to be orders in sentences checked against the engine, per message
CHATTER = 40  # lines set aside looked at for an order mistyped (`pbem.orders.near`), per message


def seeming_told(eng: Engine, state: dict[str, Any], player: str, ex: Extracted) -> Extracted:
    """`ex` with each note on a line that seems to be an order in a sentence ("I vote red": never read, its
    meaning is the writer's, and every other reader of the mail, the deadline's and `pbem verify`'s, reads without
    the game's state) told only when the order is one the engine takes alone now, and then as the legal line to
    send, as the engine understood it ("write it as: VOTE RED"; "I pass" in Habsburg: NO EVENT).  "I pass on my
    thanks" was told to "write it as: pass on my", and "I vote red next time?" to write "vote red next time?":
    lines that would be refused.  A remark is only listed as not read, and a line of prose is told one order at
    most, the first the engine takes (`pbem.orders.extract.in_prose` offers a few ends).  An order under a "-- "
    signature above the quote (`Extracted.signed`) is told the same way, and only so (`signed_note`): "PASS the salt"
    or "Play hard, play fair" is a motto, and every other reader leaves the signature's lines unsaid."""
    ex = repeated.told(eng, state, player, ex)  # "Same as last turn" alone: told the orders to send now
    tried = [line for line in ex.chatter[:CHATTER] if near.tries(line, eng.order_words)]
    chose = [line for line in ex.chatter[:CHATTER] if line not in tried and near.ends_said(line)]
    if not ex.seeming and not ex.signed and not ex.signed_off and not tried and not chose and not ex.subject_word:
        return ex
    problems = list(ex.problems)
    legal = {line.upper(): line for req in eng.requests(state) if req.player == player for line in req.legal}
    problems += _subject_told(eng, state, player, ex, legal)  # "Re: [pbem g1] PASS" beside the body's orders
    told: set[str] = set()
    for k, (typed, order) in enumerate(ex.seeming):
        note = seeming_note(typed, order)
        if note not in problems:
            continue
        at = problems.index(note)
        send = _alone(eng, state, player, order, legal) if k < SEEMING and not asks(typed) and typed not in told else ""
        if send:
            problems[at] = seeming_note(typed, send)
            told.add(typed)
        else:
            del problems[at]
    problems += signed.told(eng, state, player, ex, legal)  # the orders under the signature: mistyped ones too
    problems += _near_told(eng, state, player, tried, legal, problems)
    problems += _chosen_told(eng, state, player, chose, legal, problems)
    return replace(ex, problems=problems)


def _subject_told(eng: Engine, state: dict[str, Any], player: str, ex: Extracted, legal: dict[str, str]) -> list[str]:
    """The note on an order word alone in the subject beside the body's orders (`Extracted.subject_word`): a title
    ("[pbem g1] Tribute") unless the engine takes it alone now and the body says something else (players31)."""
    send = _alone(eng, state, player, ex.subject_word, legal) if ex.subject_word else ""
    return [subject_note(ex.subject_word, send)] if send and send.upper() not in {o.upper() for o in ex.orders} else []


def _near_told(
    eng: Engine, state: dict[str, Any], player: str, tried: list[str], legal: dict[str, str], problems: list[str]
) -> list[str]:
    """The notes for lines set aside as no order that are one typo from a legal order, or its words in another
    order ("TRIUTE Silver 7", "LOWEST DISCARD-IF-NEEDED"): the order to send, when the engine takes it alone now
    (`pbem.orders.near`); none for a line a note quotes already."""
    out: list[str] = []
    for typed in tried[:SEEMING]:
        if any(p.startswith(f'"{typed}"') for p in problems):
            continue
        order = near.nearest(typed, legal.values())
        send = _alone(eng, state, player, order, legal) if order else ""
        if send and (note := seeming_note(typed, send)) not in out:
            out.append(note)
    return out


def _chosen_told(
    eng: Engine, state: dict[str, Any], player: str, chose: list[str], legal: dict[str, str], problems: list[str]
) -> list[str]:
    """The notes for lines set aside as no order that say a legal order's choice without its order word, with the
    words a sentence ends with ("red from me", "Silver 7 for me this time": `pbem.orders.near.chosen_alone`): the
    order to send, when the engine takes it alone now; none for a line a note quotes already."""
    out: list[str] = []
    for typed in chose[:SEEMING]:
        if any(p.startswith(f'"{typed}"') for p in problems):
            continue
        order = near.chosen_alone(typed, legal.values(), eng.order_words)
        send = _alone(eng, state, player, order, legal) if order else ""
        if send and (note := seeming_note(typed, send)) not in out:
            out.append(note)
    return out


def read_again(
    eng: Engine,
    state: dict[str, Any],
    player: str,
    orders: list[str],
    result: Outcome,
    notes: dict[str, object],
    chatter: list[str] | Extracted,
) -> tuple[list[str], Outcome, dict[str, object], list[str]]:
    """`without_prose`, then `replaced`: (orders, outcome, notes with the replacements told, chatter).  Given the
    message's `Extracted`, the lines set aside join its chatter where the message has them, as typed."""
    footers = chatter.footers if isinstance(chatter, Extracted) else frozenset()
    if isinstance(chatter, Extracted):  # "... German" / "States 2": a wrap inside a name read joined (players33)
        orders, result, chatter = wraps.read_joined(eng, state, player, orders, result, chatter)
    orders, aside, result = without_prose(eng, state, player, orders, result, footers=footers)
    said = list(notes["problems"]) if isinstance(notes.get("problems"), list) else []  # type: ignore[call-overload]
    kept = {_key(o) for o in orders}
    said += [repeat_note(line) for line in aside if _key(line) in kept]  # a repeat is told, not listed as chatter
    said += asides.told(eng, state, player, aside, kept) if orders else []  # "take care" under "TRIBUTE Gold 5": why
    aside = [line for line in aside if _key(line) not in kept]
    told = chatter.aside(aside) if isinstance(chatter, Extracted) else chatter + aside
    if isinstance(chatter, Extracted):  # "EVENT CLAIM First" / "Cousins TARGET Carol": the order meant offered
        said += wraps.offers(eng, state, player, chatter, result)
        said += cells.offers(eng, state, player, result, chatter)  # "1<tab>PASS<tab>my move": the order offered
    return orders, result, {**notes, "problems": said + replaced(eng, state, player, orders, result)}, told


def repeat_note(line: str) -> str:
    """The acknowledgement's note on a line that repeats an order above it (`once`)."""
    return f'"{line}" repeats an order above it in the same message: read once'
