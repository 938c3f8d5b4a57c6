"""`due.unasked` against the public export of a running game: the defaults everyone is told of, the heads it places.

fairness27 (`tests/test_fairness27_partial.py`) named, against a player's own export of a running game, a deadline's
defaults applied for them with no mail of theirs written since the step last started again
(`due.unasked_unseeded`); against the public export it said nothing, "the public partial export lists nobody's
defaults, so there it waits for the seed".  But it does: every deadline that applies a player's defaults records a
public `default` event naming them ("Bob sent no orders for this step by the deadline; the published default was
applied."), which every player's report lists; only the lines applied (`default-orders`) are the player's alone.
And the deadline inputs and undos that restart a step are the moderator's, listed for everyone.  What the public
export does not list is a head written right after an entry hidden from the public (the reader's own input, a card
shown to them alone): such a mail is placed between the placed mails around it, at most as many public entries after
the one before as the reader's own count grew (`receipts._placed`), and counts as written in any span it may lie in,
so an honest mailbox is never warned.  Nothing hidden is added to the export: the check reads what it already lists.

Each case is fairness27's: Habsburg, Alice answers 0, 6, 18 or 30 hours into her turn, every mail to Bob from then on
withheld (the report that asks him, its reminders), his defaults applied at his turn's deadline; each player's mail
checked against the public export taken while the game runs (`verify --mail` of a version 2 export, audience
public).  Counted with ``PBEM_FAIRNESS28_PARTIAL_FULL=1 python3 -m pytest tests/test_fairness28_partial.py -s -q -n 0``
(the same file runs on 36ff7173, where it fails):

* forgeries verified against the public export with no WARNING: 4 of 4 on 36ff7173, 0 now;
* the same games honest (nothing withheld), every player's mail against the public export: 0 warned of 12, before
  and now;
* fairness20's probe in every title (`test_a_withheld_first_step_is_named_against_the_public_export`: the first
  step's reports withheld): 9 defaulted players, 0 named on 36ff7173, 8 now; the honest games' 11 mailboxes: 0
  warned.  The one left: Sixteen Thirty's first player, whose only mail follows the card she drew, an entry hidden
  from the public, with no listed head of hers before it: it may lie anywhere before it, and her own export or the
  final one names it;
* fairness21's honest games 0-19 (`test_honest_games_are_not_warned_against_their_public_export`: sleepy players
  defaulted, a seat replaced, a resignation, an absence, a pause, an undo, an SMTP outage, a mailbox out of order),
  every player's whole mailbox against the public export taken at every third poll while the game ran (274
  exports): 0 warned.

The suite runs the pure cases (`_placed`'s bounds and the public `default` event read as the defaults applied).
"""

from __future__ import annotations

import json
import os

import pytest

import tests.test_fairness27_partial as t27
from pbem.history.export import build
from pbem.record import store
from pbem.trust import due
from pbem.trust.receipts import lines, verify_mail
from tests.test_fairness27_partial import CASES, WARNED

FULL = os.environ.get("PBEM_FAIRNESS28_PARTIAL_FULL") == "1"


def _game(home, clock, after: int, orders: str) -> tuple[dict, dict[bool, dict[str, list[bytes]]]]:
    """fairness27's game (`tests.test_fairness27_partial._game`) and the public export of it, the game running."""
    return t27._game(home, clock, after, orders, public=True)


@pytest.mark.skipif(not FULL, reason="real games: PBEM_FAIRNESS28_PARTIAL_FULL=1")
@pytest.mark.parametrize("case", range(len(CASES)))
def test_a_withheld_turn_is_named_against_the_public_export_of_a_running_game(home, clock, case: int) -> None:
    after, orders = CASES[case]
    doc, mail = _game(home, clock, after, orders)
    assert doc.get("version") == 2 and doc["audience"] == "public" and not doc.get("seed")
    assert not any(e.get("kind") == "default-orders" for e in doc["events"]), "the public export shows no lines"
    for hide, boxes in mail.items():
        for player, box in boxes.items():
            c = verify_mail(doc, box, player)
            assert c.ok, (player, lines(c))
            warned = [n for n in c.notes if n.startswith("WARNING") and WARNED in n]
            print(f"fairness28 partial: {after} h {'withheld' if hide else 'honest'} {player}: {len(warned)}")
            assert len(warned) == (hide and player == "Bob"), (player, lines(c))  # (fails on 36ff7173)


def _row(kind: str, seq: int, **data: object) -> dict:
    if kind == "deadline":
        return {"seq": seq, "kind": "deadline", "player": "", "lines": [], "at": "2026-12-08T12:00:00+00:00"}
    return {"seq": seq, "kind": kind, "visibility": "public", "data": data, "text": kind}


#: The public list of a game: the set-up, Alice's public events, a deadline that defaults Bob (the public event only).
ROWS = [_row("setup", 1), _row("play", 2, player="Alice"), _row("deadline", 3), _row("default", 4, player="Bob")]


@pytest.mark.parametrize(
    ("spans", "warned"),
    [
        ([], True),  # no mail of Bob's at all
        ([(0, 0)], False),  # his invitation, before anything: the span since the last restart (none) holds it
        ([(2, 2)], False),  # a mail placed at Alice's event
        ([(4, 4)], True),  # only mail after the deadline
        ([(1, 4)], False),  # a head the public does not list, that may lie before the deadline
    ],
)
def test_the_public_default_event_names_the_defaults_applied(spans: list, warned: bool) -> None:
    found = due.unasked_unseeded(ROWS, [], ["Bob"], spans)
    assert bool(found) == warned, found  # (fails on 36ff7173: the `default` event was read as naming nobody)


def test_a_head_the_public_export_does_not_list_is_placed_between_its_neighbours() -> None:
    from types import SimpleNamespace

    from pbem.trust.receipts import _placed

    def mail(n: int, head: str) -> SimpleNamespace:
        return SimpleNamespace(record=(n, head), raw=b"Subject: x\r\n\r\nDeadline: soon\r\n")

    at = {"h2": 2, "h9": 9}
    # counts 3 (public 2), 5 (hidden: 2..4), 11 (public 9), 14 (hidden: 9..12), 30 (hidden, maybe after the export)
    got = _placed([mail(3, "h2"), mail(5, "x"), mail(11, "h9"), mail(14, "y"), mail(30, "z")], at, 12)
    assert got == [(2, 2), (2, 4), (9, 9), (9, 12), (9, 12)]


@pytest.mark.skipif(not FULL, reason="real games: PBEM_FAIRNESS28_PARTIAL_FULL=1")
@pytest.mark.parametrize("kind", ["habsburg", "italian-wars", "sixteen-thirty", "dynasties"])
@pytest.mark.parametrize("hide", [True, False], ids=["withheld", "honest"])
def test_a_withheld_first_step_is_named_against_the_public_export(home, clock, monkeypatch, kind, hide) -> None:
    """fairness20's probe in every title (`tests.test_fairness22._partials`: the first step's reports and reminders
    deleted from the outbox, the defaults applied at its deadline), each player's mail against the public export
    taken while the game runs: every defaulted player warned where withheld, nobody where honest."""
    import tests.test_fairness22 as t22

    real = build

    def public(s, game, as_player=None, public=False):  # the public export where fairness22 took each player's own
        return real(s, game, public=True)

    monkeypatch.setattr("pbem.history.export.build", public)
    partial, boxes, defaulted = t22._partials(home, clock, monkeypatch, kind, hide)
    assert defaulted
    missed = []
    for player, box in boxes.items():
        if not box:
            continue
        doc = partial[player]
        assert doc["audience"] == "public" and not doc.get("seed")
        c = verify_mail(doc, box, player)
        assert c.ok, (player, lines(c))
        warned = [n for n in c.notes if n.startswith("WARNING") and WARNED in n]
        print(f"fairness28 partial {kind} {'withheld' if hide else 'honest'} {player}: {len(warned)}")
        assert len(warned) <= (1 if hide and player in defaulted else 0), (player, lines(c))
        if hide and player in defaulted and not warned:
            missed.append(player)
    # what stays: Sixteen Thirty's first player's only mail follows the card she drew, hidden from the public, and no
    # head of hers before it is listed, so it may lie anywhere before it (her own export names it)
    assert missed == (["Alice"] if kind == "sixteen-thirty" and hide else []), missed


@pytest.mark.skipif(not FULL, reason="real games: PBEM_FAIRNESS28_PARTIAL_FULL=1")
@pytest.mark.parametrize("n", range(20))
def test_honest_games_are_not_warned_against_their_public_export(home, clock, monkeypatch, n: int) -> None:
    """fairness21's honest games (late and sleepy players, defaults, a seat replaced, a resignation, an absence, a
    pause, an extension, an undo, an SMTP outage, a mailbox out of order), the public export taken at every poll while
    the game runs, each player's whole mailbox verified against each: no WARNING that a step's defaults found them
    with no mail of theirs (the mails written after an export place nothing before it)."""
    import tests.test_fairness21 as t21
    from tests.test_fairness16 import _export

    taken: list[dict] = []
    real = t21.Game.poll

    def poll(self) -> bool:
        over = real(self)
        doc = _public(self.home, self.name)
        if not doc["game"]["over"] and not doc["game"].get("abandoned"):
            taken.append(doc)
        return over

    def _public(home, name: str) -> dict:
        from pbem.home.app import Home

        with Home.of(home).units() as s:
            return json.loads(json.dumps(build(s, store.game_by_name(s, name), public=True)))

    monkeypatch.setattr(t21.Game, "poll", poll)
    monkeypatch.setattr(t21, "FULL", True)
    _, boxes, _ = t21.honest_game(home, clock, n, monkeypatch)
    assert _export  # (the honest game's own export is fairness21's)
    warned = 0
    for doc in taken[2::3]:
        for player, box in boxes.items():
            c = verify_mail(doc, box, player)
            warned += sum(1 for x in c.notes if x.startswith("WARNING") and WARNED in x)
    print(f"fairness28 partial honest game {n}: {len(taken[2::3])} exports, {warned} warned")
    assert warned == 0
