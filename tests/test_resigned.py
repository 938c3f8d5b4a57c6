"""A resigned player (RESIGN by mail, `pbem.app.resigning`) until the moderator gives the seat (judges6).

They asked to leave: they get what the README lists (STATUS answers, answers to their own mail, the final report,
"You no longer play" when the seat is given) and nothing else of the game's flow.  A new code or an address move
does not undo the resignation (`pbem.record.listing.given`); only `pbem game replace` gives the seat.  Played on
the embedded defaults (real SQLite, real Maildirs, the real poll), on the game `tests.test_moderator.new_game` makes.
"""

from __future__ import annotations

import re

import pytest

from pbem.app import addresses, control, resend, waiting
from pbem.home.app import Home
from tests.conftest import CODES, body_of, deliver, order_mail, sent_mail, signed
from tests.test_moderator import new_game, run_poll

BOB = "Bob <bob@players.test>"


def _to(mails: list, addr: str) -> list:
    return [m for m in mails if m["To"].addresses[0].addr_spec == addr]


def _resign_bob(home, clock) -> tuple[str, set[str]]:
    """A new game (`new_game`) where Bob resigned by mail: its name, and the mails sent so far (all read)."""
    name = new_game(home, clock)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    _resign(home, clock, name, seen, BOB)
    sent_mail(home, seen)
    return name, seen


def _resign(home, clock, name: str, seen: set[str], who: str) -> None:
    """`who` ("Bob <bob@players.test>") resigns by mail: RESIGN, then the word its answer gives (mails left unread)."""
    deliver(home, order_mail(who, name, signed(who.split()[0], "RESIGN")))
    run_poll(home, clock)
    (ask,) = sent_mail(home, seen)
    word = re.search(r"RESIGN (\d{6})", body_of(ask)).group(1)
    deliver(home, order_mail(who, name, f"RESIGN {word}", In_Reply_To=ask["Message-ID"]))
    run_poll(home, clock)


def _waiting(home, clock) -> list[str]:
    return waiting.listed(waiting.waiting(Home.of(home), clock.now), clock.now)


def test_a_new_code_or_an_address_move_keeps_a_resignation_and_only_a_replacement_ends_it(home, clock) -> None:
    name, seen = _resign_bob(home, clock)
    clock.advance(minutes=5)
    control.new_player_code(Home.of(home), name, "Bob", clock.now, code=CODES["Bob"])  # a new seat row
    clock.advance(minutes=5)
    addresses.move(Home.of(home), name, "Bob", "bob@new.test", clock.now)  # and another
    clock.advance(minutes=5)
    control.new_player_code(Home.of(home), name, "Bob", clock.now, code=CODES["Bob"])
    run_poll(home, clock)
    sent_mail(home, seen)
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "PASS")))  # Bob moves next
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    assert any("Turn 2, Bob to play" in str(m["Subject"]) for m in _to(mails, "alice@players.test"))
    assert not _to(mails, "bob@new.test"), [str(m["Subject"]) for m in _to(mails, "bob@new.test")]
    assert any(line.startswith("  Bob:") and "RESIGNED" in line for line in _waiting(home, clock)), _waiting(
        home, clock
    )
    deliver(home, order_mail("Bob <bob@new.test>", name, signed("Bob", "RESIGN")))  # told when, nothing more
    run_poll(home, clock)
    (once,) = sent_mail(home, seen)
    assert "You resigned from game" in body_of(once), body_of(once)
    resend.resend(Home.of(home), name, "Bob", clock.now)  # the moderator sends his report: it goes
    run_poll(home, clock)
    assert [str(m["Subject"]) for m in _to(sent_mail(home, seen), "bob@new.test")] == ["[pbem hh1] Turn 2, Bob to play"]
    control.replace(Home.of(home), name, "Bob", ("Dora", "dora@players.test"), clock.now)
    run_poll(home, clock)
    sent_mail(home, seen)
    assert not any("RESIGNED" in line for line in _waiting(home, clock)), _waiting(home, clock)


def test_a_resigned_player_gets_nothing_of_the_games_flow_but_its_end(home, clock) -> None:
    """No defaults notice at the deadline, no reminder, no moderator notice (extend, pause, resume, say), no press to
    ALL, no word of another player's resignation, and the deadline waits for them no more when they wrote AWAY; a press
    naming them is not relayed either (the record holds their resignation, so the reason given can be checked:
    tests/test_fairness11.py); the end goes to them."""
    from datetime import timedelta

    from pbem.app import say
    from pbem.app.digests import run_digests

    name, seen = _resign_bob(home, clock)
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "PASS\nPRESS TO ALL: who is left?")))
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    assert [m for m in _to(mails, "carol@players.test") if "Press" in str(m["Subject"])], "ALL: Carol still plays"
    assert not _to(mails, "bob@players.test"), [str(m["Subject"]) for m in _to(mails, "bob@players.test")]
    deliver(home, order_mail(BOB, name, signed("Bob", "AWAY 5\nDIGEST")))  # answered; no wait, no digest: he left
    run_poll(home, clock)
    answers = sorted(str(m["Subject"]) for m in _to(sent_mail(home, seen), "bob@players.test"))  # his own mail's
    assert answers == [
        "Re: [pbem hh1] your mail: DIGEST noted",
        "[pbem hh1] Noted: you are away until Sat 10 Jan 2026 12:00 UTC.",
    ]
    control.extend(Home.of(home), name, timedelta(hours=1), clock.now)
    control.pause(Home.of(home), name, clock.now)
    control.resume(Home.of(home), name, clock.now)
    say.say(Home.of(home), name, "The deadline holds over the holidays.", clock.now)
    for _ in range(10):  # every reminder of Bob's step, then its deadline: the seat's defaults apply
        clock.advance(hours=6)
        run_poll(home, clock)
    mails = sent_mail(home, seen)
    assert any("extended" in body_of(m) for m in _to(mails, "carol@players.test")), "Carol is told"
    assert any("Bob sent no orders for this step by the deadline" in body_of(m) for m in mails), [
        (str(m["To"]), str(m["Subject"])) for m in mails
    ]
    assert not _to(mails, "bob@players.test"), [str(m["Subject"]) for m in _to(mails, "bob@players.test")]
    assert run_digests(Home.of(home), clock.now) == 0, "his day-old report is not due again every poll"
    deliver(home, order_mail("Carol <carol@players.test>", name, signed("Carol", "PRESS TO Bob: still there?")))
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    assert not _to(mails, "bob@players.test"), [str(m["Subject"]) for m in _to(mails, "bob@players.test")]
    assert any("Press not sent: Bob resigned" in body_of(m) for m in _to(mails, "carol@players.test"))
    _resign(home, clock, name, seen, "Carol <carol@players.test>")  # Alice is told; Bob, who left, is not
    mails = sent_mail(home, seen)
    assert [m for m in _to(mails, "alice@players.test") if "Carol resigned" in body_of(m)], "Alice still plays"
    assert not _to(mails, "bob@players.test"), [str(m["Subject"]) for m in _to(mails, "bob@players.test")]
    control.abandon(Home.of(home), name, clock.now)
    run_poll(home, clock)
    assert any("abandoned" in body_of(m) for m in _to(sent_mail(home, seen), "bob@players.test"))


def test_verify_checks_each_address_event_and_names_a_forged_one(home, clock) -> None:
    """An `address` moderator event (`pbem.trust.verify._moved`): public, its data the action, the seat, the player who
    held it at that point of the record (a replacement renames the seat), "player" or "moderator", and pbem's text.
    The honest record passes; each forgery, re-chained as a forger who rewrites the chain would, is named."""
    import copy
    import json

    from pbem.history.export import build
    from pbem.record import store
    from pbem.record.db import session
    from pbem.trust.verify import check
    from tests.test_export_verify import _rechain

    name = new_game(home, clock)
    run_poll(home, clock)
    addresses.move(Home.of(home), name, "Bob", "bob@new.test", clock.now)  # Bob's, before the seat is given
    control.replace(Home.of(home), name, "Bob", ("Dora", "dora@players.test"), clock.now)
    addresses.move(Home.of(home), name, "Dora", "dora@new.test", clock.now)  # Dora's: the same seat, renamed
    with session(home.database_url) as s:  # a player's export of the game in progress: one numbering of entries
        partial = check(json.loads(json.dumps(build(s, store.game_by_name(s, name), as_player="Alice"))), partial=True)
    assert partial.ok and any("address 2" in line for line in partial.checked), partial.problem
    control.abandon(Home.of(home), name, clock.now)
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name))))
    moves = [n for n, e in enumerate(doc["events"]) if (e.get("data") or {}).get("action") == "address"]
    assert [doc["events"][n]["data"]["player"] for n in moves] == ["Bob", "Dora"]
    honest = check(_rechain(copy.deepcopy(doc)))
    assert honest.ok, honest.problem
    assert any("address 2" in line for line in honest.checked), honest.checked
    text = "Dora's mail goes to a new address from now on."
    forged = {  # (what the forger changes in the second move) -> what verify says
        "by": ({"by": "Mallory"}, "a move is the player's or the moderator's"),
        "name before": ({"player": "Bob"}, "seat 1 was Dora's then"),
        "another seat's": ({"player": "Alice"}, "seat 1 was Dora's then"),
        "no seat": ({"seat": 9}, "the game has no seat 9"),
        "address": ({"address": "dora@new.test"}, "a move's holds its action, by, player and seat"),
        "text": ({"text": "Dora's mail goes to dora@new.test."}, f'where its text is "{text}"'),
        "visibility": ({"visibility": ["Dora"]}, "is not public"),
    }
    for what, (change, said) in forged.items():
        bad = copy.deepcopy(doc)
        event = bad["events"][moves[1]]
        for key, value in change.items():
            (event if key in ("text", "visibility") else event["data"])[key] = value
        v = check(_rechain(bad))
        assert not v.ok and "a seat's mail moved" in v.problem and said in v.problem, (what, v.problem)


def _spent(home, clock, who: str = BOB) -> tuple[str, set[str]]:
    """A new game where `who`'s answers budget (2 an hour) is spent: two HELP answers and the "too many" notice."""
    home.replies_per_hour = 2
    name = new_game(home, clock)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    for _ in range(3):
        deliver(home, order_mail(who, name, "HELP"))
    run_poll(home, clock)
    assert "Too many messages" in str(sent_mail(home, seen)[-1]["Subject"])
    return name, seen


def _word_of(mails: list, pattern: str) -> tuple[str, object]:
    for m in mails:
        if found := re.search(pattern, body_of(m)):
            return found.group(1), m
    raise AssertionError(f"no {pattern!r} in {[str(m['Subject']) for m in mails]}")


def _over_budget_resign(home, clock) -> list[str]:
    """RESIGN twice in one poll past the budget, then the word: what is missing ("" nothing)."""
    name, seen = _spent(home, clock)
    for _ in range(2):
        deliver(home, order_mail(BOB, name, signed("Bob", "RESIGN")))
    run_poll(home, clock)
    asked = _to(sent_mail(home, seen), "bob@players.test")
    if len(asked) != 1:
        return [f"RESIGN twice past the budget: {len(asked)} answers, not one"]
    word, ask = _word_of(asked, r"RESIGN (\d{6})")
    deliver(home, order_mail(BOB, name, signed("Bob", "RESIGN")))  # a third that day: past the budget, as any answer
    deliver(home, order_mail(BOB, name, f"RESIGN {word}", In_Reply_To=ask["Message-ID"]))
    run_poll(home, clock)
    told = [str(m["Subject"]) for m in _to(sent_mail(home, seen), "bob@players.test")]
    return [] if told == ["[pbem hh1] You resigned"] else [f"the resignation past the budget told Bob {told}"]


def _over_budget_address(home, clock) -> list[str]:
    """ADDRESS past the old address's budget, CONFIRM from the new one: the word goes, the move is told to both."""
    name, seen = _spent(home, clock)
    deliver(home, order_mail(BOB, name, signed("Bob", "ADDRESS bob@new.test")))
    run_poll(home, clock)
    mails = sent_mail(home, seen)
    if _to(mails, "bob@players.test") or len(_to(mails, "bob@new.test")) != 1:
        return [f"ADDRESS past the budget: {[(str(m['To']), str(m['Subject'])) for m in mails]}"]
    word, ask = _word_of(_to(mails, "bob@new.test"), r"ADDRESS CONFIRM (\d{6})")
    deliver(home, order_mail("Bob <bob@new.test>", name, f"ADDRESS CONFIRM {word}", In_Reply_To=ask["Message-ID"]))
    run_poll(home, clock)
    told = {
        m["To"].addresses[0].addr_spec for m in sent_mail(home, seen) if "The mail of Bob goes" in str(m["Subject"])
    }
    return [] if {"bob@players.test", "bob@new.test"} <= told else [f"the move past the budget told only {told}"]


#: The requests that change a game (judges7): each made by a player whose answers budget is spent must still be
#: answered once, and only once a day (the budget's bound on everything else).
PAST_THE_BUDGET = {"RESIGN and its word": _over_budget_resign, "ADDRESS and its CONFIRM": _over_budget_address}


@pytest.mark.parametrize("what", sorted(PAST_THE_BUDGET))
def test_a_request_that_changes_the_game_is_answered_once_past_the_answers_budget(home, clock, what: str) -> None:
    assert PAST_THE_BUDGET[what](home, clock) == []
