"""Every byte of every mail a player gets is the same whatever another player hides (a third secrecy red team).

A curious player reads everything pbem sends them: the headers (Subject, Message-ID, In-Reply-To, References,
X-Pbem-*), the MIME boundaries, the text part, the HTML part (every attribute, alt text, the pictures' cid,
which hashes the picture's bytes), the pictures, and the size and number of the mails.  Over states spread
through bot games of every kind, one hidden fact is changed (`tests.test_secrecy_pairs.pairs`: another player's
secrets scrambled, a face-down card swapped with a deck card, the deck's order changed), and the same inbound
message from a player who may not know that fact is decided, finished and composed for both states, through
the pure pipeline the poll runs: HELP, STATUS, both together, orders naming hidden cards (one card, and the
orders that name several: MELD, DISCARD <cards in order>, NEGATE-PLAN, OFFER lists, PLAYS, CONCLAVE TAKE, a
line mixing a card held with hidden ones), and the player's own legal orders, with a game resolving at once
and one holding orders until the deadline.  Every mail to every player who may not know the fact must be
byte-identical, in the same number; the log's outcome too.  For orders applied at once, a reader whose own
view and events after the input differ (they drew from a deck the change reordered: what they may see) is not
compared; the others are.
"""

from __future__ import annotations

import pytest

from pbem.app import views
from pbem.engine.base import Engine
from tests.test_secrecy_pairs import (
    Held,
    Pair,
    accepted_input,
    address,
    at_deadline,
    engine,
    mails,
    message,
    pairs,
    players,
    reminders,
)

KINDS = ("habsburg", "italian-wars", "dynasties", "sixteen-thirty")

#: Orders naming hidden cards ({x}, {y}), cards the sender holds ({h}), the last word of a hidden card ({xl}: a
#: short form, "7" or "king") and another player ({o}), per kind: one card, and the orders naming several.
FORMS = {
    "habsburg": (
        "DISCARD {x}",
        "DISCARD {h}, {x}",
        "DISCARD {x}, {h}",
        "DISCARD-IF-NEEDED {x}, {h}",
        "MELD {x} {h} {y}",
        "MELD {h} TOP {x}",
        "EVENT CLAIM {x} TARGET {o}",
        "EVENT DISASTER {x} TARGET {o} 1",
        "EVENT PERSON {x}",
        "PLAY {x}",
        "PLAY {xl}",
    ),
    "italian-wars": (
        "DISCARD {x}",
        "DISCARD {h}, {x}",
        "DISCARD {x}, {y}",
        "NEGATE {h} > {x}",
        "NEGATE {x} > {h}",
        "NEGATE-PLAN {h} > {x}; {x} > {h}",
        "LEADER {x}",
        "LEADER-PREF {x}, {h}",
        "KEEP {x}",
        "DISCARD {xl}",
    ),
    "dynasties": (
        "PLAY {x}",
        "PLAY {h} THEN {x}",
        "PLAYS {x}, {h}",
        "TRIBUTE {x}",
        "TRIBUTE {xl}",
        "DISCARD {x}",
        "CONCLAVE TAKE {x}",
        "CONCLAVE TAKE {h}, {x}",
    ),
    "sixteen-thirty": (
        "PLACE {x}",
        "PLACE {h}, {x}",
        "DISCARD {x}, {h}",
        "OFFER GIVE {h}, {x} FOR ANY",
        "OFFER GIVE {x} FOR {y}",
        "ACCEPT {o} GIVING {x}",
        "LOSE {x}",
        "REMOVE {x}",
        "PLAY Assassin {o} {x}",
        "CALL England ALIGN PLACE {x}",
        "PLACE-START {h}, {x}, {y}",
    ),
}


def _cards(state: dict) -> dict[str, tuple[str, str]]:
    """Where each card lies: (zone, owner) for hands, the deck and every other list of cards."""
    where: dict[str, tuple[str, str]] = {}
    for p, hand in (state.get("hands") or {}).items():
        for c in hand:
            where.setdefault(str(c), ("hand", p))
    for key, pile in state.items():
        if key != "players" and isinstance(pile, list) and all(isinstance(c, str) for c in pile):
            for i, c in enumerate(pile):
                where.setdefault(c, (key, str(i) if key == "deck" else ""))
    return where


def hidden_cards(pair: Pair, reader: str) -> list[str]:
    """Cards the change moved, that `reader` does not hold: what a curious reader would name."""
    a, b = _cards(pair.s), _cards(pair.t)
    mine = set(pair.s["hands"][reader])
    return sorted(c for c in set(a) | set(b) if a.get(c) != b.get(c) and c not in mine)


def lines_for(kind: str, pair: Pair, reader: str) -> list[str]:
    """Each form of `FORMS` once, naming hidden cards the change moved (in turn) and cards `reader` holds."""
    xs = hidden_cards(pair, reader)[:4]
    if not xs:
        return []
    held = [str(c) for c in pair.s["hands"][reader]] or ["Nothing"]
    other = pair.q or next(p for p in players(kind) if p != reader)
    out = []
    for i, form in enumerate(FORMS[kind]):
        x, y = xs[i % len(xs)], xs[(i + 1) % len(xs)]
        out.append(form.format(x=x, y=y, h=held[i % len(held)], o=other, xl=x.split()[-1]))
    return list(dict.fromkeys(out))


def legal_lines(eng: Engine, state: dict, reader: str) -> list[str]:
    out = []
    for r in eng.requests(state):
        if r.player == reader and r.legal:
            out += [r.legal[0], r.legal[-1]]
    return list(dict.fromkeys(out))


def _compare(kind: str, pair: Pair, reader: str, body: str, resolve: str, where: str) -> int:
    """Compare the mails `reader`'s `body` gives at both states; the number of readers compared."""
    msg = message(reader, body)
    a, b = mails(kind, pair.s, msg, resolve), mails(kind, pair.t, msg, resolve)
    assert a["outcome"] == b["outcome"], (where, body, a["outcome"], b["outcome"])
    readers = pair.readers if resolve == "deadline" else _same_after(engine(kind), kind, pair, reader, body)
    for p in readers:
        mine_a, mine_b = a.get(address(p), []), b.get(address(p), [])
        assert len(mine_a) == len(mine_b), (where, body, p, "a different number of mails")
        for x, y in zip(mine_a, mine_b):
            assert x == y, _first_difference(where, body, p, x, y)
    return len(readers)


def _first_difference(where: str, body: str, p: str, x: bytes, y: bytes) -> str:
    i = next((i for i, (c, d) in enumerate(zip(x, y)) if c != d), min(len(x), len(y)))
    return f"{where}: {body!r}: the mail to {p} differs at byte {i}:\n{x[max(0, i - 300) : i + 200]!r}\n{y[max(0, i - 300) : i + 200]!r}"


def _same_after(eng: Engine, kind: str, pair: Pair, mover: str, body: str) -> tuple[str, ...]:
    """The readers who may see nothing different after `mover`'s `body` is applied to either state: their view,
    the events they may see, their requests and who is awaited (every report lists it) are the same.  Without
    an input applied, all of `pair.readers`.

    (Sixteen Thirty's scramble gives a player a standing vote that the open ballot has not used, a state no game
    reaches: the next input lets it answer the ballot, and the answer is public.)"""
    ia, ib = accepted_input(kind, pair.s, message(mover, body)), accepted_input(kind, pair.t, message(mover, body))
    if ia is None and ib is None:
        return pair.readers
    assert ia is not None and ib is not None, (pair.what, mover, body, "applied at one state only")
    sa, sb = ia.outcome.state, ib.outcome.state
    if views.waiting(eng, sa) != views.waiting(eng, sb):
        return ()
    same = []
    for r in pair.readers:
        ea = [e.text for e in ia.outcome.events if e.visible_to(r)]
        eb = [e.text for e in ib.outcome.events if e.visible_to(r)]
        ra = [x for x in eng.requests(sa) if x.player == r]
        rb = [x for x in eng.requests(sb) if x.player == r]
        if eng.view(sa, r) == eng.view(sb, r) and ea == eb and ra == rb:
            same.append(r)
    return tuple(same)


@pytest.mark.parametrize("kind", KINDS)
def test_help_and_status_mails_are_byte_identical_whatever_another_player_hides(kind: str) -> None:
    """HELP and STATUS; and a message without orders (a mail mode, an absence, press to another player)."""
    compared = 0
    for pair in pairs(kind, "help", 6):
        for p in pair.readers:
            other = pair.q or next(o for o in pair.readers if o != p)
            for body in (
                "HELP\nSTATUS",  # both answers: the HELP mail and the STATUS report
                f"WATCH\nAWAY 3\nPRESS TO {other}: shall we share?\nNo orders here",  # mode, absence, press
            ):
                compared += _compare(kind, pair, p, body, "asap", f"{kind} {pair.what}, read by {p}") > 0
    assert compared >= 10, compared


@pytest.mark.parametrize("kind", KINDS)
def test_refusals_of_orders_naming_hidden_cards_are_byte_identical_whatever_lies_where(kind: str) -> None:
    compared = 0
    for i, pair in enumerate(pairs(kind, "refuse", 5)):
        for p in (pair.readers[i % len(pair.readers)],):
            for line in lines_for(kind, pair, p):
                compared += _compare(kind, pair, p, line, "asap", f"{kind} {pair.what}, sent by {p}") > 0
    assert compared >= 40, compared


@pytest.mark.parametrize("kind", KINDS)
def test_the_answers_to_a_players_own_legal_orders_are_byte_identical_whatever_another_player_hides(
    kind: str,
) -> None:
    eng = engine(kind)
    compared = readers = 0
    for pair in pairs(kind, "legal", 6):
        for p in pair.readers:
            for line in legal_lines(eng, pair.s, p):
                readers += _compare(kind, pair, p, line, "deadline", f"{kind} {pair.what}, held for {p}")
                readers += _compare(kind, pair, p, line, "asap", f"{kind} {pair.what}, applied for {p}")
                compared += 1
    assert compared >= 10 and readers >= compared * 2, (compared, readers)


def _same_at_deadline(eng: Engine, pair: Pair, ia: list, ib: list) -> tuple[str, ...]:
    """The readers who may see nothing different after the deadline at either state (as `_same_after`)."""
    if not ia and not ib:
        return pair.readers
    if [i.player for i in ia] != [i.player for i in ib]:
        return ()
    sa, sb = (ia[-1].outcome.state, ib[-1].outcome.state) if ia else (pair.s, pair.t)
    if views.waiting(eng, sa) != views.waiting(eng, sb):
        return ()
    same = []
    for r in pair.readers:
        ea = [e.text for i in ia for e in i.outcome.events if e.visible_to(r)]
        eb = [e.text for i in ib for e in i.outcome.events if e.visible_to(r)]
        ra = [x for x in eng.requests(sa) if x.player == r]
        rb = [x for x in eng.requests(sb) if x.player == r]
        if eng.view(sa, r) == eng.view(sb, r) and ea == eb and ra == rb:
            same.append(r)
    return tuple(same)


@pytest.mark.parametrize("kind", KINDS)
def test_deadline_and_reminder_mails_are_byte_identical_whatever_another_player_hides(kind: str) -> None:
    """At a step's deadline: the held orders of the players who may not know the fact (applied, or refused:
    held_failed), then the defaults (deadline_applied), then the reports; and the reminders before it."""
    eng = engine(kind)
    compared = reminded = 0
    for pair in pairs(kind, "deadline", 4):
        ra, rb = reminders(kind, pair.s), reminders(kind, pair.t)
        for p in pair.readers:
            assert ra.get(address(p), []) == rb.get(address(p), []), (kind, pair.what, p, "reminder")
            reminded += bool(ra.get(address(p)))
        held = [
            Held(100 + i, p, (legal[i % len(legal)],))
            for i, p in enumerate(pair.readers)
            for legal in [legal_lines(eng, pair.s, p)]
            if legal
        ]
        for orders in ([], held, held[::-1]):
            (a, ia), (b, ib) = at_deadline(kind, pair.s, orders), at_deadline(kind, pair.t, orders)
            for p in _same_at_deadline(eng, pair, ia, ib):
                mine_a, mine_b = a.get(address(p), []), b.get(address(p), [])
                assert [len(m) for m in mine_a] == [len(m) for m in mine_b], (kind, pair.what, p, orders)
                for x, y in zip(mine_a, mine_b):
                    assert x == y, _first_difference(f"{kind} {pair.what} at the deadline", str(orders), p, x, y)
                compared += bool(mine_a)
    assert compared >= 5 and reminded >= 3, (compared, reminded)
