"""players34, part A: players33's leftovers, each a class with its generator (counts on 36ff7173 and now).

1. An acknowledgement before the order ("OK, NO EVENT", "Yes: PASS", "Okay - VOTE RED", "Ja, ...", "Oui, ...") and a
   chat's "+1" after it ("NO EVENT +1") were told ("an order line starts with its order word", or refused whole).
   Now an acknowledgement word and its mark (`pbem.orders.openers.ACKNOWLEDGED`) is read as a connective is: before
   an order word in capitals only ("OK, take care" stays a remark, "ok, no event" is told); a "+1" is a tail taken
   off as a courtesy is (`pbem.orders.typed._THANKS`), but never after a number ("TRIBUTE Gold 5 +1" may mean 6: it
   is refused with its reason).  `ack_cases`: every legal order of each game's first step (50 orders) under 13
   acknowledgements and 4 forms of "+1": of the 850 cases, on 36ff7173 50 read, 698 told, 102 told as they must be
   (a bare "+1" after a number), 0 untold, 0 misapplied; now 748 read, 0 told, 102 told as they must be.

2. An order shortened in lower case as the last line ("play plat" for PLAY Platinum 9, "discard vigo capt", "event
   person hein"): players33 set such a line aside as a closing read by a prefix and told it with the order to send.
   Now it is a closing only when one of its words is a word of sign-offs and chat (`pbem.app.prefixed.SIGN_OFF`:
   "keep care" stays told); else it is read as the engine reads it.  `abbreviation_cases`: each legal order of the
   eight moments (`tests.test_replies3_players`) shortened three ways to 3 to 6 letters, in lower case, no digit,
   that the engine reads alone as one legal order: of the 101 cases, on 36ff7173 36 read, 65 told; now 101 read.
   Guard, `chat_cases`: 72 chat lines starting with an order word ("take a break", "keep me posted", "keep smil",
   "drop plat", ...) or an acknowledgement before one ("OK, take care", "OK, TAKE CARE", "Yes, PASS auf dich auf")
   under each game's first order and alone: 576 of 576 read as meant (the order above applied or the line refused,
   nothing of the chat applied) on 36ff7173 and now; players33's 3,576 closings stay 0 misapplied.

3. (Found by part B, `tests/test_replies34_realistic.py`.)  "Same as last turn please." with no order was listed as
   not read, with no word of why; now it is told, quoted, why (pbem does not repeat an earlier step's orders) and
   the orders to send now (`pbem.app.repeated`): `test_same_as_last_turn_alone_is_told_in_the_answer_mail`.

4. (Found while judging part B.)  A change of mind on the order's line: "Change NO EVENT to EVENT PERSON Peter",
   "Change it to ...", "Please change my order to ...", "Switch to ...", "Make that ..." were set aside untold (49 of
   250) or told; "Correction: ...", "Update: ...", "Edit: ...", "Actually: ...", "Scratch that - ..." told ("write it
   as").  Now a correction's label is a connective (`pbem.orders.openers.CONNECTIVE`: read before capitals), and a
   change said in a sentence is one of `pbem.orders.extract.sentence`'s openers: told the order to send, never read
   (the order it changes from is in the line too).  `change_cases`: each legal order of each game's first step in 10
   forms, 500 cases: on 36ff7173 201 told as owed, 250 told where a read is owed, 49 untold; now 250 read, 250 told.

`REPLIES34_ALL=1 python3 -m pytest tests/test_replies34_leftovers.py -n 0 -s` runs every case and prints the counts;
the suite a sample.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from collections.abc import Callable

import pytest

from pbem import engine as registry
from tests.replies27 import KINDS, first_state, intake
from tests.test_replies3_players import Moment, shared_moments

SAMPLED = 24  # cases of each generator a suite run reads (all with REPLIES34_ALL=1)


def _chosen(every: list[tuple[str, ...]], tag: str) -> list[tuple[str, ...]]:
    if os.environ.get("REPLIES34_ALL") or len(every) <= SAMPLED:
        return every
    return random.Random(f"replies34:{tag}").sample(every, SAMPLED)


def _legal(kind: str) -> list[str]:
    eng, state = first_state(kind)
    return list(next(r for r in eng.requests(state) if r.player == "Alice").legal)


def judge(kind: str, body: str, meant: str | None) -> str:
    """ "read" (`meant` applied, or nothing when `meant` is None), "told" (nothing applied; a line refused or a note
    quoting the order), "untold" or "misapplied"."""
    eng, state = first_state(kind)
    got = intake(eng, state, "Alice", body)
    if meant is None:
        return "misapplied" if got.applied else "read"
    if got.applied:
        return "read" if got.state == eng.apply(state, "Alice", [meant]).state else "misapplied"
    return "told" if got.refused or any(meant.upper() in n.upper() for n in got.notes) else "untold"


def _run(
    cases: list[tuple[str, ...]],
    how: Callable[..., str],
    tag: str,
    ok: tuple[str, ...] = ("read", "told, as it must be"),
) -> list[str]:
    counts: Counter[str] = Counter()
    bad = []
    for case in _chosen(cases, tag):
        got = how(*case)
        counts[got] += 1
        if got not in ok:
            bad.append(f"{got}: {case}")
    if os.environ.get("REPLIES34_ALL"):
        print(tag, dict(counts))
    return bad


#: Acknowledgement words players type before their order, each with the marks they put after it.
ACKS = ("OK, {o}", "Ok, {o}", "OK: {o}", "OK - {o}", "Okay, {o}", "ok, {o}", "Yes, {o}", "Sure, {o}", "Alright, {o}",
        "OK! {o}", "Agreed: {o}", "Ja, {o}", "Oui, {o}")  # fmt: skip
#: "+1" after the order, as a chat's agreement.
PLUS = ("{o} +1", "{o} +1!", "{o}  +1", "{o} (+1)")


def ack_cases() -> list[tuple[str, ...]]:
    """(game, the order meant, the line typed): each legal order of each game's first step, with each form."""
    return [(k, o, f.format(o=o)) for k in KINDS for o in _legal(k) for f in (*ACKS, *PLUS)]


def ambiguous(order: str, line: str) -> bool:
    """ "TRIBUTE Gold 5 +1": a "+1" after a number may add to it; told, never read."""
    return line.endswith(("+1", "+1!")) and order[-1:].isdigit()


def ack_outcome(kind: str, order: str, line: str) -> str:
    got = judge(kind, f"Hi,\n\n{line}\n\nThanks\nAlice\n", order)
    return ("told, as it must be" if got == "told" else f"{got}, to be told") if ambiguous(order, line) else got


def test_an_acknowledgement_before_the_order_or_plus_one_after_it_is_read() -> None:
    """See the module docstring's figures."""
    bad = _run(ack_cases(), ack_outcome, "acks")
    assert not bad, f"{len(bad)}:\n" + "\n".join(bad[:30])


_NAME_WORD = re.compile(r"[^\W\d_]{5,}")


CUTS = (3, 4, 5, 6)  # letters a shortened word keeps


def _cut(word: str, k: int = 4) -> str:
    return word[:k]


def _cut_last(rest: str, k: int) -> str:
    found = list(_NAME_WORD.finditer(rest))
    if not found:
        return rest
    m = found[-1]
    return rest[: m.start()] + _cut(m[0], k) + rest[m.end() :]


#: How players shorten an order in lower case (`pbem.engine.names` reads a name by a unique prefix): the last long
#: word of the name cut to four letters ("discard great capt"), every long word so cut ("discard prol fire"), or the
#: order word and the first word of the name cut, alone ("play plat").
ABBREVIATIONS: dict[str, Callable[[str, str, int], str]] = {
    "cut-last": lambda w, rest, k: f"{w} {_cut_last(rest, k)}",
    "cut-each": lambda w, rest, k: f"{w} {_NAME_WORD.sub(lambda m: _cut(m[0], k), rest)}",
    "first-cut": lambda w, rest, k: f"{w} {_cut(rest.split()[0], k)}" if rest else w,
}


def abbreviation_cases(moments: dict[str, Moment]) -> list[tuple[str, ...]]:
    """(moment, the line typed, the order the engine reads it as alone): each legal order of each moment, shortened
    each way (`ABBREVIATIONS`, to each of `CUTS` letters) in lower case, with no digit, that the engine
    reads alone as one legal order."""
    from tests.test_replies31_realistic import _split

    out: set[tuple[str, ...]] = set()
    for name, m in moments.items():
        eng = registry.get(m.kind)
        for order in m.legal:
            word, rest = _split(order)
            for how in ABBREVIATIONS.values():
                for k in CUTS:
                    line = how(word, rest, k).lower().strip()
                    if any(ch.isdigit() for ch in line) or line == order.lower():
                        continue
                    alone = eng.apply(m.state, m.player, [line])
                    if alone.accepted and len(alone.lines) == 1 and alone.lines[0].understood in m.legal:
                        out.add((name, line, alone.lines[0].understood))
    return sorted(out)


def abbreviation_outcome(moment: Moment, line: str, meant: str) -> str:
    """The line typed as the last line of the message, under a greeting, above the thanks and the name."""
    eng = registry.get(moment.kind)
    body = f"Hi,\n\n{line}\n\nThanks\n{moment.player}\n"
    got = intake(eng, moment.state, moment.player, body)
    if got.applied:
        return "read" if got.state == eng.apply(moment.state, moment.player, [meant]).state else "misapplied"
    return "told" if got.refused or any(meant.upper() in n.upper() for n in got.notes) else "untold"


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Moment]:
    return shared_moments(tmp_path_factory)


def test_an_abbreviated_order_in_lower_case_as_the_last_line_is_read(moments: dict[str, Moment]) -> None:
    """See the module docstring's figures."""
    every = abbreviation_cases(moments)
    bad = _run(every, lambda name, line, meant: abbreviation_outcome(moments[name], line, meant), "abbreviations")
    assert not bad, f"{len(bad)}:\n" + "\n".join(bad[:30])


#: Chat and sign-offs that start with an order word of one of the games and are none of players33's `CLOSINGS`: they
#: must never become orders, now that a lower-case line of an order word and a name's first letters is read.
CHAT = (
    "take a break", "take it slow", "take five", "take your time", "take cover", "keep going", "keep it up",
    "keep fighting", "keep rolling", "keep calm", "keep the change", "keep me posted", "keep your head up",
    "keep dry", "keep healthy", "keep strong", "play on", "play hard", "play well", "play safe", "play it cool",
    "pass the salt", "pass it on", "drop by sometime", "drop me a note", "call soon", "call you later",
    "done for today", "done and dusted", "discard that idea", "claim your prize", "vote early", "trade secrets",
    "offer stands", "accept my apologies", "start soon", "leader of the pack", "plan ahead", "tribute to bob",
    "place your bets", "remove me later", "pass gut auf", "keep care amigos", "take care bro", "take cara",
    "keep smil", "play fa", "prefer the great", "plan b", "neg that", "take copp care",
    "drop plat", "take gol", "play silv", "keep it", "take it", "call me maybe", "drop it",
    # an acknowledgement before a closing (`pbem.orders.openers.ACKNOWLEDGED` reads one before an order)
    "OK, take care", "Yes, Keep well", "OK: Take care!", "Sure, play nice", "OK, TAKE CARE", "Ok - keep it up",
    "OK! Pass it on", "Yes, PASS auf dich auf", "OK, keep care", "Alright, call me", "OK, DONE for today",
    "OK, ACCEPT my apologies", "Sure - TRADE secrets", "Ja, Pass gut auf dich auf!",
)  # fmt: skip


def chat_cases() -> list[tuple[str, ...]]:
    """(game, the first legal order, the chat line, "under" or "alone") for each game and each line of `CHAT`."""
    return [(k, _legal(k)[0], line, where) for k in KINDS for line in CHAT for where in ("under", "alone")]


def chat_outcome(kind: str, top: str, line: str, where: str) -> str:
    eng, state = first_state(kind)
    body = f"Hi,\n\n{top}\n\n{line}\nAlice\n" if where == "under" else f"Hi Bob,\n\nsee you soon.\n\n{line}\nAlice\n"
    got = intake(eng, state, "Alice", body)
    if where == "alone":
        return "misapplied" if got.applied else "read"
    if not got.applied:
        return "read" if got.refused else "untold"
    return "read" if got.state == eng.apply(state, "Alice", [top]).state else "misapplied"


def test_chat_under_the_orders_never_becomes_an_order() -> None:
    """See the module docstring's figures."""
    bad = _run(chat_cases(), chat_outcome, "chat")
    assert not bad, f"{len(bad)}:\n" + "\n".join(bad[:30])


def test_same_as_last_turn_alone_is_told_in_the_answer_mail(home, clock) -> None:  # type: ignore[no-untyped-def]
    """Real SQLite and Maildir: Alice answers her report with "Same as last turn please." and no order.  On 36ff7173
    the answer listed the line as not read, without why; now it quotes it, says pbem does not repeat an earlier
    step's orders, and shows the orders she may send now, in a form `pbem verify --mail` knows
    (`pbem.trust.acked.unnoted`).  Nothing is applied."""
    from pbem.app.repeated import note
    from pbem.trust.acked import unnoted
    from tests.conftest import body_of, deliver, order_mail, sent_mail, signed
    from tests.test_moderator import asked, new_game, run_poll

    players = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
    name = new_game(home, clock, kind="habsburg", name="hh34", players=players)
    run_poll(home, clock)
    seen: set[str] = set()
    sent_mail(home, seen)
    requests, _ = asked(home, name)
    legal = next(r.legal for r in requests if r.player == "Alice")
    line = "Same as last turn please."
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", f"Hi,\n\n{line}\n\nThanks\n")))
    run_poll(home, clock)
    text = "\n".join(body_of(m) for m in sent_mail(home, seen) if "alice" in str(m["To"]))
    said = note(line, "; ".join(legal[:3]))
    assert said[:60] in " ".join(text.split()), text
    assert asked(home, name)[0] == requests  # nothing applied: Alice is asked the same
    assert unnoted(f"  NOTE {said}") == ""


#: A change of mind said on the order's line: a correction's label before the order (read, before capitals), or a
#: sentence naming the order ("Change NO EVENT to ...": told the order to send; an earlier order replaced by it).
CORRECTIONS = ("Correction: {o}", "Update: {o}", "Edit: {o}", "Actually: {o}", "Scratch that - {o}")
CHANGES = ("Change {p} to {o}", "Change it to {o}", "Please change my order to {o}", "Switch to {o}", "Make that {o}")


def change_cases() -> list[tuple[str, ...]]:
    """(game, the order meant, the line typed, "read" or "told": what is owed): each legal order of each game's first
    step, the order before it in the list as the one changed from."""
    out: list[tuple[str, ...]] = []
    for k in KINDS:
        legal = _legal(k)
        for n, o in enumerate(legal):
            p = legal[n - 1]
            out += [(k, o, f.format(o=o), "read") for f in CORRECTIONS]
            out += [(k, o, f.format(o=o, p=p), "told") for f in CHANGES]
    return out


def change_outcome(kind: str, order: str, line: str, owed: str) -> str:
    got = judge(kind, f"Hi,\n\n{line}\n\nThanks\nAlice\n", order)
    return got if got == owed else f"{got}, owed {owed}"


def test_a_change_of_mind_on_the_order_line_is_read_or_told() -> None:
    """See the module docstring's figures."""
    bad = _run(change_cases(), change_outcome, "changes", ("read", "told"))
    assert not bad, f"{len(bad)}:\n" + "\n".join(bad[:30])
