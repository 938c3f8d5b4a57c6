"""players33, part A: players32's leftovers, each a class with its generator (counts on ab18255d and now).

1. A closing read by a name's prefix: Italian Wars read "keep care" and "pref care" (a closing typed under the orders)
   as LEADER-PREF Careful Soldier, every game matching a name by a unique prefix (`pbem.engine.names`).  Now a line
   at the end of the message whose order word is not in capitals, its words after it in lower case, few, with no
   digit or sign of an order's syntax, one of them no whole word of what the engine read, is a closing: set aside and
   told with the order it would have been, or refused so when alone (`pbem.app.prefixed`).
   `test_a_closing_is_never_read_as_an_order_by_a_prefix`; the orders shaped as orders stay read:
   `test_a_prefix_shaped_as_an_order_is_still_read`.

2. An order a hard wrap parted inside a name ("PLACE-START Spain 3, France 1, German" over "States 2"): offered, never
   read, as `pbem verify --sent` (no game state) could not read it so.  Now the intake reads it joined when the joined
   line is a legal order now (`pbem.app.wraps.read_joined`) and `pbem verify --sent` finds such an input applied as
   written when the mail holds the line and the lines right under it (`pbem.trust.sent.rejoined`): the two agree.
   `test_an_order_wrapped_inside_a_name_is_read_with_the_game_state`,
   `test_verify_sent_reads_a_wrap_inside_a_name_as_the_poll_does`.

`REPLIES33_ALL=1 python3 -m pytest tests/test_replies33_leftovers.py -n 0` runs every case; the suite a sample.
"""

from __future__ import annotations

import os
import random

from tests.replies27 import KINDS, first_state, intake

SAMPLED = 24  # cases of each generator a suite run reads (all with REPLIES33_ALL=1)


def _chosen(every: list[tuple[str, ...]], tag: str, kept: int = 0) -> list[tuple[str, ...]]:
    """A sample of `every` (all with REPLIES33_ALL=1): its first `kept` cases, and `SAMPLED` drawn from the rest."""
    if os.environ.get("REPLIES33_ALL") or len(every) <= SAMPLED + kept:
        return every
    return every[:kept] + random.Random(f"replies33:{tag}").sample(every[kept:], SAMPLED)


def _legal(kind: str) -> list[str]:
    eng, state = first_state(kind)
    return list(next(r for r in eng.requests(state) if r.player == "Alice").legal)


#: Sign-offs as people write them, in English and in their own languages, each starting with an order word of one of
#: the four games (TAKE, KEEP, PLAY, PASS, DROP, CALL, DONE, PLACE, START, VOTE, ACCEPT, OFFER, TRADE, PLAN, ...).
CLOSINGS = (
    "Take care", "Take care!", "Take it easy", "Take care of yourself", "Keep well", "Keep safe!", "Keep in touch",
    "Keep cool", "Keep smiling", "Keep warm", "Keep the faith", "Play nice", "Play fair", "Drop me a line",
    "Call me", "Pass on my regards", "Keep care", "keep care", "Keep care!", "pref care", "Pref care", "Prefer care",
    # German, Norwegian, Dutch, Italian, Spanish, French, Polish, Swedish, Turkish, Russian speakers' sign-offs
    "Pass auf dich auf", "Pass gut auf dich auf!", "Pass på deg selv", "Take care und bis bald", "Keep care, tschüss",
    "Take care, groetjes", "Keep care, ciao", "keep care e a presto", "Take care, abrazos", "Keep care, bises",
    "Take care, pozdrawiam", "Keep care, hälsningar", "Take care, görüşürüz", "Keep care, пока",
    "keep care amigo", "Keep care mate", "take care my friend", "Take care, cara", "keep care cari saluti",
)  # fmt: skip
#: Words that end a sign-off in many languages, after any order word of a game ("keep care", "pass bene").
TAILS = ("care", "care!", "well", "safe", "cool", "nice", "warm", "bene", "bien", "gut", "goed", "bem", "dobrze", "ciao")  # fmt: skip


FIRST = len(CLOSINGS)  # the suite reads every closing of `CLOSINGS` under Italian Wars' order, and `SAMPLED` more


def closing_cases() -> list[tuple[str, ...]]:
    """(game, the first legal order, the closing, "under" or "alone"): each closing under the order, and alone in a
    mail with a greeting and a name (no order meant)."""
    out: list[tuple[str, ...]] = []
    for kind in KINDS:
        eng, _ = first_state(kind)
        top = _legal(kind)[0]
        words = sorted({w.lower() for w in eng.order_words if w.replace("-", "").isalpha()})
        lines = [
            *CLOSINGS,
            *(f"{w} {t}" for w in words for t in TAILS),
            *(f"{w.title()} {t}" for w in words for t in TAILS),
        ]
        out += [(kind, top, line, where) for line in lines for where in ("under", "alone")]
    return sorted(out, key=lambda c: c[0] != "italian-wars" or c[2] not in CLOSINGS or c[3] != "under")  # `FIRST`


def closing_outcome(kind: str, top: str, line: str, where: str) -> str:
    """ "read" (the order above applied, nothing of the closing) or "misapplied" (the closing applied as an order)."""
    eng, state = first_state(kind)
    body = f"Hi,\n\n{top}\n\n{line}\nAlice\n" if where == "under" else f"Hi Bob,\n\nsee you soon.\n\n{line}\nAlice\n"
    got = intake(eng, state, "Alice", body)
    if not got.applied:
        return "read" if where == "alone" or got.refused else "misapplied"
    if where == "alone":
        return "misapplied"
    return "read" if got.state == eng.apply(state, "Alice", [top]).state else "misapplied"


def test_a_closing_is_never_read_as_an_order_by_a_prefix() -> None:
    """Of the 3,576 cases (41 closings, and 14 endings after each order word in lower case and capitalised, under the
    game's first order and alone in a mail), on ab18255d 68 misapplied (Italian Wars: "keep care", "Pref care",
    "prefer care", "leader care", "Leader-Pref care!" ... read as LEADER-PREF Careful Soldier, under the order or
    alone), 3,508 read; now 0 misapplied, 3,576 read, each such closing told with that order.  The suite's sample:
    the 41 of `CLOSINGS` under Italian Wars' order (6 misapplied on ab18255d) and 24 drawn."""
    failures = []
    for kind, top, line, where in _chosen(closing_cases(), "closing", FIRST):
        if (how := closing_outcome(kind, top, line, where)) != "read":
            failures.append(f"{how}: {kind} {where} {line!r}")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:20])


def test_a_closing_read_by_a_prefix_is_told_with_the_order() -> None:
    """The note quotes the closing and names the order it would have been, a form `pbem verify --mail` knows."""
    from pbem.trust.acked import unnoted

    eng, state = first_state("italian-wars")
    got = intake(eng, state, "Alice", "DISCARD NONE\n\nkeep care\n")
    assert got.applied == ["DISCARD NONE"]
    assert [n for n in got.notes if n.startswith('"keep care" was not read') and "LEADER-PREF Careful Soldier" in n]
    assert not any(unnoted(f"  NOTE {n}") for n in got.notes)
    alone = intake(eng, state, "Alice", "Hi Bob,\n\nKeep care\nAlice\n")
    assert not alone.applied and alone.refused == ["Keep care"]
    # `pbem verify --sent` reads the input that left it out as a closing set aside, never SUBSTITUTED
    from pbem.trust.sent import set_aside

    known = {
        w.upper() for line in ("DISCARD NONE", "LEADER-PREF Careful Soldier") for w in line.replace("-", " ").split()
    }
    assert set_aside(["DISCARD NONE", "keep care"], ["DISCARD NONE"], known) == ["keep care"]


#: Orders typed with a prefix but shaped as orders: the order word in capitals, a word of the name whole, a capital,
#: a list's comma.  Each is read as the engine reads it, before and now.
SHAPED = (
    ("DISCARD NONE", "KEEP care", "LEADER-PREF Careful Soldier"),
    ("DISCARD NONE", "keep careful", "LEADER-PREF Careful Soldier"),
    ("DISCARD NONE", "pref Care", "LEADER-PREF Careful Soldier"),
    ("DISCARD NONE", "pref great, care", "LEADER-PREF Great Captain, Careful Soldier"),
    ("DISCARD NONE", "LEADER-PREF fam", "LEADER-PREF Famous Captain"),
    ("DISCARD NONE", "prefer vigorous", "LEADER-PREF Vigorous Captain"),
    ("LEADER-PREF Great Captain", "discard nothing", "DISCARD NONE"),
)


def test_a_prefix_shaped_as_an_order_is_still_read() -> None:
    """A guard: 0 of the 7 fail on ab18255d and now."""
    eng, state = first_state("italian-wars")
    for top, line, meant in SHAPED:
        got = intake(eng, state, "Alice", f"{top}\n\n{line}\n")
        assert got.state == eng.apply(state, "Alice", [top, meant]).state, (line, got.applied, got.notes)


def wrap_cases() -> list[tuple[str, ...]]:
    """(game, the order, the reply): each legal order of the first step hard-wrapped at 16, 20 and 24 columns inside a
    name (the break after a word no reading without the game's state joins: "German" / "States 2"), between a greeting
    and a thanks, as `tests/test_replies32_leftovers.wrap_cases` builds them."""
    from tests.test_replies32_leftovers import wrap_cases as every

    return list(every())


def wrapped_outcome(kind: str, order: str, body: str) -> str:
    from tests.test_replies32_leftovers import wrapped_outcome as outcome

    return outcome(kind, order, body)


def test_an_order_wrapped_inside_a_name_is_read_with_the_game_state() -> None:
    """players32's wrap generator (122 cases): on ab18255d 61 read, 61 told (parted inside a name, offered: "send it
    on one line"), 0 untold, 0 misapplied; now 122 read (`pbem.app.wraps.read_joined`: the refused line joined with
    the lines under it is a legal order now, the message accepted so), 0 told, 0 misapplied."""
    failures = []
    for kind, order, body in _chosen(wrap_cases(), "wrap"):
        if (how := wrapped_outcome(kind, order, body)) != "read":
            failures.append(f"{how}: {kind} {body!r}")
    assert not failures, f"{len(failures)}:\n" + "\n".join(failures[:20])


def test_verify_sent_reads_a_wrap_inside_a_name_as_the_poll_does(home, clock) -> None:  # type: ignore[no-untyped-def]
    """Real SQLite and Maildir: Alice's Sixteen Thirty set-up order wrapped inside "German States" is applied joined by
    the poll, and `pbem verify --sent` of her Sent folder (read as the CLI reads it, `pbem.app.reading.mail_reader`)
    finds it applied as written.  On ab18255d the poll refused it (offered); with the poll's join and verify's old
    reading, SUBSTITUTED."""
    import json

    from pbem.app.reading import mail_reader
    from pbem.history.export import build
    from pbem.record import store
    from pbem.record.db import session
    from pbem.trust.sent import check_sent
    from tests.conftest import body_of, deliver, order_mail, sent_mail, signed
    from tests.test_moderator import asked, new_game, run_poll

    players = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
    name = new_game(home, clock, kind="sixteen-thirty", name="st1", players=players)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    requests, _ = asked(home, name)
    order = next(o for r in requests if r.player == "Alice" for o in r.legal if "German States" in o)
    head, _, tail = order.partition(" States")
    mail = order_mail("Alice <alice@players.test>", name, signed("Alice", f"Hi,\n\n{head}\nStates{tail}\n\nThanks\n"))
    deliver(home, mail)
    run_poll(home, clock)
    answers = [m for m in sent_mail(home, seen) if "alice" in str(m["To"])]
    text = "\n".join(body_of(m) for m in answers)
    assert "NOTHING WAS APPLIED" not in text and order in text, text
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name), as_player="Alice")))
    assert [o["lines"] for o in doc["orders"] if o["player"] == "Alice"] == [[order]]
    for read in (mail_reader(), None):
        checked = check_sent(doc, [mail], "Alice", read)
        assert checked.ok, (checked.problems, checked.notes)


def test_the_new_notes_are_forms_verify_knows() -> None:
    """`pbem verify --mail` names a note that is none of pbem's forms (`pbem.trust.acked.NOTES`): the closing read by a
    prefix (`pbem.app.prefixed.note`) and the order kept alone of a quoted list (`own_mail.changed_note` of
    `TRIMMED`) are forms it knows; both were "no note pbem writes" against ab18255d's forms."""
    from pbem.app.prefixed import note
    from pbem.orders.own_mail import TRIMMED, changed_note
    from pbem.trust.acked import unnoted

    for said in (note("keep care", "LEADER-PREF Careful Soldier"), changed_note(">     NO EVENT", TRIMMED)):
        assert unnoted(f"  NOTE {said}") == "", said
