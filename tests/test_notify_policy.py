"""Who is mailed when the game moves (issue 23, `pbem.app.notify`): the pure policy on a small fake engine."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.app import notify
from pbem.engine.base import PUBLIC, Event, Request


class Fake:
    """Requests and the result read straight from a plain state: {"asked": {player: step}, "on_file": [...]}."""

    urgent_events = ("war",)

    def requests(self, state: dict[str, Any]) -> list[Request]:
        return [
            Request(p, step, "?", ("PASS",), (), ("PASS",), answered=p in state.get("on_file", ()))
            for p, step in state["asked"].items()
        ]

    def result(self, state: dict[str, Any]) -> object:
        return state.get("over")


EVERYONE = ["Alice", "Bob", "Carol"]
MOVED = [Event("played", "Alice played a card.", PUBLIC)]


def told(before, after, events=MOVED, modes=None, **kw):
    return notify.told(Fake(), before, after, EVERYONE, events, modes, **kw)  # type: ignore[arg-type]


def test_a_public_move_mails_the_player_asked_next_and_the_mover_whose_turn_resolved() -> None:
    assert told({"asked": {"Alice": "t1"}}, {"asked": {"Bob": "t2"}}) == ["Alice", "Bob"]
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    recent = {"Alice": now - timedelta(hours=1)}
    digest = told(
        {"asked": {"Alice": "t1"}}, {"asked": {"Bob": "t2"}}, modes={"Alice": "digest"}, last_report=recent, now=now
    )
    assert digest == ["Bob"]


def test_the_mover_still_asked_is_answered_with_what_comes_next() -> None:
    assert told({"asked": {"Alice": "t1"}}, {"asked": {"Alice": "t1"}}) == []
    assert told({"asked": {"Alice": "t1"}}, {"asked": {"Alice": "t1"}}, mover="Alice") == ["Alice"]


def test_watch_gets_every_move_it_may_see() -> None:
    assert told({"asked": {"Alice": "t1"}}, {"asked": {"Bob": "t2"}}, modes={"Carol": "watch"}) == EVERYONE


def test_a_tribute_on_file_mails_nobody_until_the_step_resolves() -> None:
    before = {"asked": {"Alice": "g1", "Bob": "g1", "Carol": "g1"}}
    after = {"asked": {"Alice": "g1", "Bob": "g1", "Carol": "g1"}, "on_file": ["Alice"]}
    assert told(before, after) == []
    resolved = {"asked": {"Alice": "g1.play"}}  # the last tribute came in: everyone took part
    assert told({**before, "on_file": ["Alice", "Bob"]}, resolved) == ["Alice", "Bob", "Carol"]


def test_what_is_done_to_a_player_reaches_them() -> None:
    stolen = [Event("steal", "Alice took a card from you.", ("Alice", "Carol"))]
    assert told({"asked": {"Alice": "t1"}}, {"asked": {"Alice": "t1b"}}, stolen) == ["Alice", "Carol"]
    war = [Event("war", "France declares war on Spain.", PUBLIC)]
    assert told({"asked": {"Alice": "t1"}}, {"asked": {"Alice": "t1b"}}, war) == EVERYONE  # declared urgent


def test_the_end_reaches_everyone() -> None:
    assert told({"asked": {"Alice": "t9"}}, {"asked": {}, "over": True}) == EVERYONE


def test_digest_waits_a_day_unless_asked_to_act() -> None:
    now = datetime(2026, 12, 1, 12, tzinfo=UTC)
    stolen = [Event("steal", "Alice took a card from you.", ("Alice", "Carol"))]
    args = ({"asked": {"Alice": "t1"}}, {"asked": {"Alice": "t1b"}}, stolen, {"Carol": "digest"})
    assert "Carol" not in told(*args, last_report={"Carol": now - timedelta(hours=3)}, now=now)
    assert "Carol" in told(*args, last_report={"Carol": now - timedelta(hours=25)}, now=now)
    recent = {"Carol": now - timedelta(hours=1)}
    asked = told(
        {"asked": {"Bob": "t1"}}, {"asked": {"Carol": "t2"}}, modes={"Carol": "digest"}, last_report=recent, now=now
    )
    assert asked == ["Bob", "Carol"]  # Bob's turn resolved; Carol is asked to act, however recent her last mail


def test_a_caller_who_locked_a_ballot_is_mailed_when_the_vote_resolves() -> None:
    """Found by trying the product: the player who called a vote and sent VOTE with the call (ST-R9: locked, not
    asked in the voting round) got no mail when the vote resolved, though a step they took part in resolved.
    Real Sixteen Thirty states: the locked voters are the engine's answered requests, so they take part."""
    from pbem.engine.sixteen_thirty import ENGINE
    from tests.engine.test_sixteen_thirty_rules import england_vote_table, give, ok

    st = england_vote_table()
    give(st, "Martin", ["England 1"])
    st = ok(st, "Tim", "CALL England WAR France", "VOTE RED").state
    st = ok(st, "Martin", "PLACE England 1", "VOTE BLUE").state
    for p in ("Simon", "Ann", "Bob"):
        st = ok(st, p, "PLACE NONE").state
    out = ok(st, "Simon", "VOTE BLUE")
    told = notify.told(ENGINE, st, out.state, list(st["players"]), out.events, mover="Simon")
    assert {"Tim", "Martin", "Simon"} <= set(told)
