"""Two orders on one line are told as such, with each line to send (found by the players' testers: "PLAY Gold 10
PLAY Silver 5" was refused as an unknown card).

A generator over every kind's bot-played moments: two legal lines of the asked player, joined on one line, are
refused with a reason that says the line holds two orders, and what would be accepted shows both lines."""

from __future__ import annotations

import dataclasses

import pytest

from pbem import engine as registry
from pbem.app import refusals
from pbem.render.templates import render_mail
from tests.app.plain import loaded
from tests.app.test_refusals_agree import acknowledgement, send, states


@pytest.mark.parametrize("kind", registry.available())
def test_two_legal_lines_joined_on_one_line_are_told_as_two_orders_with_both_lines_shown(kind: str) -> None:
    eng = registry.get(kind)
    found, _, players = states(kind)
    g0 = loaded(kind, players)
    tried = 0
    for st in found:
        g = dataclasses.replace(g0, state=st)
        for req in eng.requests(st):
            legal = [line for line in req.legal if eng.apply(st, req.player, [line]).accepted]
            if req.answered or len(legal) < 2:
                continue
            for a, b in [(legal[0], legal[-1]), (legal[-1], legal[len(legal) // 2])]:
                if a == b:
                    continue
                d = send(g, req.player, [f"{a} {b}"])
                ack = acknowledgement(d)
                assert d.outcome == "rejected" and ack is not None, (kind, a, b, d.outcome)
                [r] = [r for r in ack["lines"] if not r["ok"]]
                where = (kind, a, b, r["reason"], r["legal"])
                assert "two orders on one line" in r["reason"], where
                assert list(r["legal"]) == [a, b], where
                tried += 1
    assert tried, kind


def test_the_reply_shows_each_order_of_a_joined_line_on_its_own_line() -> None:
    g = loaded("dynasties", ("Alice", "Bob", "Carol"))
    eng = registry.get("dynasties")
    req = next(r for r in eng.requests(g.state) if not r.answered and len(r.legal) >= 2)
    a, b = req.legal[0], req.legal[1]
    d = send(g, req.player, [f"{a} {b}"])
    ack = acknowledgement(d)
    assert ack is not None
    text = render_mail("ack", {**ack, "moderator": "Test Moderator", "record": None, "player": req.player}).text
    assert f'"{a} {b}"' in text and "two orders on one line" in text, text
    assert f"\n         {a}\n         {b}\n" in text, text


@pytest.mark.parametrize("kind", registry.available())
def test_a_legal_line_as_people_type_it_is_never_split(kind: str) -> None:
    """An order word inside one order ("CALL England WAR France PLACE England 2", a card named "Pass Thru Gaps")
    does not make it two: every legal line, as listed and in lower case, is taken whole as the engine takes it."""
    eng = registry.get(kind)
    found, _, _ = states(kind)
    for st in found:
        for req in eng.requests(st):
            for line in req.legal:
                for typed in (line, line.lower()):
                    raw = eng.apply(st, req.player, [typed])
                    told = refusals.worded(eng, st, req.player, raw)
                    assert told.accepted == raw.accepted, (kind, typed, [r.reason for r in told.lines])


@pytest.mark.parametrize("kind", list(registry.KINDS))
def test_no_message_a_game_accepts_is_refused_as_orders_joined(kind: str) -> None:
    """The splitter read "CONCLAVE TAKE HIGHEST" (accepted, with the engine's note "(kept as your standing conclave
    choice)") as the two orders CONCLAVE and TAKE HIGHEST and refused the mail.  Every message of seeded bot games,
    and every line the requests list (legal, default, on file), with each kind's standing orders: what the engine
    accepts, the refusal wording accepts too."""
    from pbem.engine.bots import play
    from tests.engine.test_contract import players

    eng = registry.get(kind)
    for seed in range(2):
        pt = play(eng, players(eng.min_players), f"joined{seed}", bot_seed=f"joinedb{seed}")
        state, _ = eng.setup(list(pt.players), pt.seed, dict(pt.options))
        for who, lines in pt.inputs:
            if who == "!deadline":
                state = eng.timeout(state).state
                continue
            for req in eng.requests(state):
                for line in (*req.default, *req.on_file, *STANDING.get(kind, ())):
                    raw = eng.apply(state, req.player, [line])
                    assert refusals.worded(eng, state, req.player, raw).accepted == raw.accepted, (kind, line)
            raw = eng.apply(state, who, lines)
            told = refusals.worded(eng, state, who, raw)
            assert told.accepted == raw.accepted, (kind, lines, [r.reason for r in told.lines])
            state = raw.state


#: Standing orders as the handbooks write them (sent at any moment; accepted or not, never split when accepted).
STANDING = {
    "dynasties": ("CONCLAVE TAKE HIGHEST", "CONCLAVE TAKE LOWEST", "PLAYS NONE"),
    "italian-wars": ("LEADER-PREF NONE", "NEGATE-PLAN NONE"),
    "habsburg": ("DISCARD-IF-NEEDED LOWEST", "DISCARD-IF-NEEDED HIGHEST"),
    "sixteen-thirty": ("STANDING PLACE NONE",),
}


#: Prose after an order word, as a player writes it when the word only starts a sentence.
PROSE = ("your time, there is no rush", "me if the mail came twice", "it before the weekend maybe")


@pytest.mark.parametrize("kind", registry.available())
def test_an_order_word_starting_a_sentence_is_never_applied_as_the_order_the_word_alone_means(kind: str) -> None:
    """Sixteen Thirty read DECLINE and anything after it as DECLINE ALL: "Decline your time, there is no rush" was
    applied.  For every order word of every asked player in every kind's bot-played moments, the word followed by
    prose is either refused or understood otherwise than the word alone (`pbem.app.unread.ignored`); a refusal
    offers, among what it shows, the order the word alone means."""
    eng = registry.get(kind)
    found, _, players = states(kind)
    g0 = loaded(kind, players)
    tried = 0
    for st in found[:: max(1, len(found) // 12)]:
        g = dataclasses.replace(g0, state=st)
        for req in eng.requests(st):
            if req.answered:
                continue
            for word in sorted({line.split()[0] for line in req.legal if line.split()}):
                alone = eng.apply(st, req.player, [word])
                if not (alone.accepted and len(alone.lines) == 1):
                    continue
                for prose in PROSE:
                    d = send(g, req.player, [f"{word.capitalize()} {prose}"])
                    ack = acknowledgement(d)
                    tried += 1
                    if d.outcome == "rejected":
                        assert ack is not None
                        [r] = [r for r in ack["lines"] if not r["ok"]]
                        assert alone.lines[0].understood.split(" (", 1)[0] in r["legal"], (kind, word, r)
                        continue
                    got = [r for r in (ack or {}).get("lines", []) if r["ok"]]
                    assert all(r["understood"] != alone.lines[0].understood for r in got), (kind, word, prose, got)
    assert tried or kind != "sixteen-thirty", kind
