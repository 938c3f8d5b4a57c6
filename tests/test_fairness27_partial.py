"""`due.unasked` against a running game's export: a step that opened after a mail of the reader's since the restart.

fairness22's `due.unasked_unseeded` names a deadline's defaults applied for the reader when none of their mails has
its head since the step was last started again (a `deadline` input or an undo); without the seed there is no
replay to say where each step opened, so a mail written *before* the reader's step opened but after that restart
counted as telling them of it (fairness22's limit: "a turn passed round the table, then the reader's turn never
reported").  Each case here is a game whose first step asks one player (Habsburg: Alice), who answers; the next step
asks the victim, and the moderator withholds every mail of theirs from then on (the report that asks them, its
reminders); the step's deadline applies the victim's defaults.  The victim's mail is checked against their own
export taken while the game runs (`verify --mail` of a version 2 export, no seed).

Their only mail since the restart is the first report, which says "Nothing is asked of you now." and who is awaited
(`pbem.render.asking.first_lines`): a report or acknowledgement that says so was written while no step asked them,
so it tells them of no step that did (`due.unasked_unseeded`'s `asking`).  Counted with
``PBEM_FAIRNESS27_PARTIAL_FULL=1 python3 -m pytest tests/test_fairness27_partial.py -s -q -n 0`` (Alice answering
0, 6, 18 or 30 hours into her turn, Bob next and the victim; the same file runs on ab18255d, where it fails):

* forgeries verified with no WARNING: 4 of 4 on ab18255d, 0 now;
* the same games honest (nothing withheld), every player's mail against their own running export: 0 warned of 12,
  before and now.

The suite runs one case of each.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from email import message_from_bytes

import pytest

import tests.test_fairness20 as t20
from pbem.history.export import build
from pbem.record import store
from pbem.record.db import session
from pbem.trust.receipts import lines, verify_mail
from tests.conftest import deliver, order_mail, signed
from tests.test_moderator import PLAYERS, new_game

FULL = os.environ.get("PBEM_FAIRNESS27_PARTIAL_FULL") == "1"
WARNED = "since the step was last started again"
#: (hours after the game starts that Alice answers, her orders); Bob, whose turn is next, is the victim.
CASES = [(0, "NO EVENT"), (6, "NO EVENT"), (18, "NO EVENT"), (30, "NO EVENT\nNO EVENT")]


def _game(
    home, clock, after: int, orders: str, *, public: bool = False
) -> tuple[dict, dict[bool, dict[str, list[bytes]]]]:
    """Habsburg: Alice's turn first; she answers `after` hours in; polled every 6 hours past Bob's deadline; each
    player's own export of the running game, and each player's mail twice: as sent (honest), and with every mail to
    Bob from her answer on never reaching him (withheld: the report that asks him, its reminders).  `public`: the
    public export of the running game instead of each player's own (fairness28)."""
    name = new_game(home, clock)
    honest, provider = t20.Provider(home), t20.Provider(home)
    t20._poll(home, clock, provider)
    honest.arrive(clock.now)
    for _ in range(after // 6):
        t20._poll(home, clock, provider, 6)
        honest.arrive(clock.now)
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", orders)))
    bob = dict(PLAYERS)["Bob"]

    def held(raw: bytes) -> bool:
        return (message_from_bytes(raw)["To"] or "").endswith(f"<{bob}>")

    due = clock.now + home.default_deadline + timedelta(hours=6)
    while clock.now < due:
        clock.advance(hours=6)
        t20.cron.run_poll(home, clock=clock)
        provider.arrive(clock.now, hold=held)
        honest.arrive(clock.now)
    with session(home.database_url) as s:
        game = store.game_by_name(s, name)
        if public:
            docs: dict = json.loads(json.dumps(build(s, game, public=True)))
        else:
            docs = {p: json.loads(json.dumps(build(s, game, as_player=p))) for p, _ in PLAYERS}
    return docs, {hide: {p: (provider if hide else honest).box(a) for p, a in PLAYERS} for hide in (True, False)}


def _defaulted(doc: dict, player: str) -> bool:
    return any(e.get("kind") == "default-orders" and e["data"].get("player") == player for e in doc["events"])


@pytest.mark.parametrize("case", range(len(CASES)) if FULL else [0])
def test_a_step_that_opened_after_a_mail_asking_nothing_is_named_against_a_running_export(
    home, clock, case: int
) -> None:
    after, orders = CASES[case]
    docs, mail = _game(home, clock, after, orders)
    assert _defaulted(docs["Bob"], "Bob"), "Bob's defaults were applied"
    for hide, boxes in mail.items():
        for player, box in boxes.items():
            doc = docs[player]
            assert doc.get("version") == 2 and not doc.get("seed"), "a running game's own export"
            c = verify_mail(doc, box, player)
            assert c.ok, (player, lines(c))
            warned = [n for n in c.notes if n.startswith("WARNING") and WARNED in n]
            if FULL:
                print(f"fairness27 partial: {after} h {'withheld' if hide else 'honest'} {player}: {len(warned)}")
            assert len(warned) == (hide and player == "Bob"), (player, lines(c))  # (fails on ab18255d)
