"""Twenty-sixth round of the fairness red team: a game made without the format mark, and what its players are told.

fairness25 made every new game declare its bindings (`games.bindings`, `asked.BINDINGS`, part of the header H every
receipt signs), so that a marked game's resignation without its word, player's move without its binding or wait
naming nobody is named, and a mark taken off later changes H.  A game made *without* the mark (an old pbem, or the
row set to 0 before the invitation went out, which every receipt then signs) is checked by what its entries carry,
as every game made before is; and nothing told its players so: `pbem verify` said nothing of it, no mail said which
checks the game promised.  Here each fairness25 forgery (`tests.test_fairness25.FORGERIES`: a resignation without
its word after Bob typed a wrong one, a move to Eve without a binding after Alice's unconfirmed ADDRESS, a wait for
an absence the moderator set) is played in a game made so (`pbem.app.games.BINDINGS` 0: what an edited row or an
old pbem gives), with fairness23's game on 2026-12-07 (real SQLite, real Maildirs, the real poll).  Counted with
``PBEM_FAIRNESS26_FULL=1 python3 -m pytest tests/test_fairness26.py -s -q -n 0`` (the same file runs on 4da2cbd6):

* passing every check (`pbem verify`, every player's `--mail` with no WARNING, `--sent`) with no word that the
  game declares no bindings: 3 of 3 forgeries on 4da2cbd6, 0 now.  They still pass, and must: such a game is one of
  before, whose entries carry none of it; but `pbem verify` now notes that the game declares no bindings and how
  many entries lean on it (`asked.declared`: each forgery's own entry counted), and the first mail of every player
  says it in a header (``X-Pbem-Bindings: 0 (none declared: ...)``, `signing.promised`) and a sentence ("Its record
  declares no bindings: ..."), both bound by the signed H: `--mail` fails where the header says another mark than
  the export's;
* the honest game (a resignation, a press and a move by mail) in such a game: no word from any check but the note.

The suite plays one forgery (`SAMPLE`); ``PBEM_FAIRNESS26_FULL=1`` all four games.
"""

from __future__ import annotations

import json
import os
import re
from email import message_from_bytes

import pytest

from pbem.app import games as games_app
from pbem.trust import asked
from pbem.trust.receipts import verify_mail
from pbem.trust.verify import check
from tests.test_fairness11 import _mailbox
from tests.test_fairness23 import ADDRESS
from tests.test_fairness24 import _verdict
from tests.test_fairness25 import FORGERIES, SCRIPTS, _played

FULL = os.environ.get("PBEM_FAIRNESS26_FULL") == "1"
FIXED = hasattr(asked, "declared")  # (4da2cbd6: counted, not asserted)
HONEST = "honest: Bob resigns, Alice presses and moves by mail"
GAMES = {HONEST: SCRIPTS[HONEST], **FORGERIES}
SAMPLE = [next(iter(FORGERIES))]
#: What each forgery's entry lacks, as `asked.declared` counts it.
LEANS = {"resign": "resignation(s) name no word", "address": "move(s) no binding", "away": "wait(s) nobody"}


@pytest.mark.parametrize("what", [w for w in GAMES if FULL or w in SAMPLE])
def test_a_game_made_without_the_mark_says_so_to_every_check(home, monkeypatch, what) -> None:
    monkeypatch.setattr(games_app, "BINDINGS", 0)  # the game made as an old pbem (or an edited row) makes it
    doc, t = _played(home, GAMES[what])
    assert "bindings" not in doc["game"]
    silent, _, said = _verdict(home, doc, t)
    notes = [n for n in check(doc).notes if "declares no bindings" in n]
    firsts = {p: _first(home, address) for p, address in ADDRESS.items()}
    print(f"fairness26: {what}: passes every check {silent}, noted {bool(notes)}", said, notes, firsts)
    assert silent, said  # a game of before: its entries carry no bindings, and none is asked of them
    if not FIXED:
        return
    (note,) = notes
    if what != HONEST:
        assert LEANS[what.split(":")[0]] in note, note
    for p, (header, text) in firsts.items():
        assert header.startswith("0 (none declared"), (p, header)
        assert "Its record declares no bindings" in text, p
    # the mark put on the export afterwards: every receipt's H differs, and the invitation's header is named
    marked = json.loads(json.dumps(doc))
    marked["game"]["bindings"] = asked.BINDINGS
    c = verify_mail(marked, _mailbox(home, ADDRESS["Alice"]), "Alice")
    assert not c.ok and any("X-Pbem-Bindings" in x for x in c.problems), c.problems


def _first(home, address: str) -> tuple[str, str]:
    """(X-Pbem-Bindings, the text) of the first mail of the game to `address` that states the seed commitment."""
    for raw in sorted(_mailbox(home, address), key=_date):
        msg = message_from_bytes(raw)
        if msg["X-Pbem-Commitment"]:
            body = msg.get_body(("plain",)) if hasattr(msg, "get_body") else None
            text = body.get_content() if body is not None else raw.decode("utf-8", "replace")
            return " ".join(str(msg["X-Pbem-Bindings"] or "").split()), " ".join(str(text).split())
    return "", ""


def _date(raw: bytes) -> str:
    m = re.search(rb"^Date: (.*)$", raw, re.M)
    return m.group(1).decode() if m else ""


def test_the_note_counts_the_entries_that_lean_on_it() -> None:
    """`asked.declared`: none for a marked game; for one without the mark, each entry without its word, binding or
    asker counted, and a moderator's move not (it is counted among his interventions)."""
    if not FIXED:
        return
    resign = {"kind": "moderator", "data": {"action": "resign", "player": "Bob", "seat": 1}}
    moved = {"kind": "moderator", "data": {"action": "address", "by": "player", "player": "Alice", "seat": 0}}
    his = {"kind": "moderator", "data": {"action": "address", "by": "moderator", "player": "Alice", "seat": 0}}
    wait = {"kind": "moderator", "data": {"action": "wait", "players": ["Alice"]}}
    worded = {"kind": "moderator", "data": {"action": "resign", "player": "Carol", "seat": 2, "word": "482193"}}
    events = [resign, moved, his, wait, worded]
    assert asked.declared({"game": {"bindings": 1}, "events": events}) == []
    (note,) = asked.declared({"game": {}, "events": events})
    assert "1 resignation(s) name no word; 1 player's move(s) no binding; 1 wait(s) nobody who asked" in note, note
    (bare,) = asked.declared({"game": {"bindings": "1"}, "events": []})  # a mark of another type is none
    assert "none of this record's entries leans on it" in bare
