"""An undo tells nobody how many inputs the record holds (branch `undocount`; docs/security.md, "What the numbering
of a running game reveals").

`pbem game undo NAME --to SEQ` names a global input number, which counts every input so far, other players' secret
revisions included.  The moderator knows it; a player must not read it.  A generator over the four games: two homes
play the same seeded game alike, except that in one of them another player revises their secret answer twice (in
House of Habsburg, where one player moves at a time, writes two private press messages) at the same moment
(`tests.test_hidden_count.play`); then the moderator undoes both games to the same public point, the input before
that player's first move, which is a different global number in each home.  Every other player's mail after the
undo (bytes, but for what each home draws at random and the heads, as `tests/test_secrecy_mail_sizes.py` masks
them), the public export and their own (JSON, text, HTML) and the published site must be identical in both homes;
each player whose own orders the undo took back is told which, privately.  An undo recorded before (its input and
public event naming global numbers: `tests/fixtures/undo_numbered.json`, made with the pbem before the branch)
verifies as before, and a marked undo verifies once the seed is out.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.app.control import abandon
from pbem.app.cron import run_poll
from pbem.app.undo import listed, undo
from pbem.history.export import build, verify
from pbem.home.app import Home
from pbem.record import store
from pbem.record.db import session
from pbem.trust.receipts import verify_mail
from pbem.trust.verify import earlier
from tests.conftest import in_delivered_order
from tests.test_hidden_count import KINDS, PLAYERS, T0, _exports, _first_difference, _site, play
from tests.test_secrecy_mail_sizes import masked

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "undo_numbered.json"
WHY = "a misread order"


def _sent(cfg: Any) -> set[Path]:
    return set((Path(cfg.maildir_path) / "sent").glob("*/*"))


def _undone(kind: str, root: Path, hidden: int) -> tuple[Any, str, list[str], list[int], dict[str, list[bytes]]]:
    """`play` with `hidden` hidden steps, then the undo to the input before the mover's first: the home, the mover,
    the observers, the inputs undone (the moderator's numbers) and each player's mail sent after the undo."""
    cfg, mover, observers = play(kind, root, hidden)
    with session(cfg.database_url) as s:
        rows = store.inputs(s, store.game_by_name(s, "g1").id)
    to = min(r.seq for r in rows if r.player == mover) - 1
    before = _sent(cfg)
    when = T0 + timedelta(minutes=4)
    undone = undo(Home.of(cfg), "g1", to, WHY, False, when)
    assert run_poll(cfg, clock=lambda: when + timedelta(minutes=1)).summary is not None
    mail: dict[str, list[bytes]] = {}
    for path in in_delivered_order(_sent(cfg) - before):
        raw = path.read_bytes()
        for name, address in PLAYERS:
            if re.search(rb"(?m)^To: [^\n]*" + re.escape(address.encode()), raw):
                mail.setdefault(name, []).append(raw)
    return cfg, mover, observers, undone, mail


@pytest.mark.parametrize("kind", KINDS)
def test_an_undo_tells_no_player_how_many_inputs_others_made(kind: str, tmp_path: Path) -> None:
    once, mover, observers, undone_once, mail_once = _undone(kind, tmp_path / "once", 0)
    twice, mover2, observers2, undone_twice, mail_twice = _undone(kind, tmp_path / "twice", 2)
    assert (mover, observers) == (mover2, observers2)
    if kind != "habsburg":  # there the hidden steps are press, no inputs: the same numbers in both homes
        assert len(undone_twice) == len(undone_once) + 2, (
            f"{kind}: the homes' undos undid {undone_once}, {undone_twice}"
        )
    for who in observers:
        a, b = mail_once.get(who, []), mail_twice.get(who, [])
        assert a and len(a) == len(b), f"{kind}: {who} got {len(a)} and {len(b)} mails after the undo"
        for x, y in zip(a, b):
            assert masked(x) == masked(y), f"{kind}: {who}'s mail after the undo counts {mover}'s inputs:\n" + (
                _first_difference(masked(x).decode(errors="replace"), masked(y).decode(errors="replace"))
            )
    audiences: list[str | None] = [None, *observers]
    exports_once, exports_twice = _exports(once, audiences), _exports(twice, audiences)
    for key in exports_once:
        assert exports_once[key] == exports_twice[key], f"{kind}: the {key} export counts {mover}'s inputs:\n" + (
            _first_difference(exports_once[key], exports_twice[key])
        )
    site_once, site_twice = _site(once, tmp_path / "site-once"), _site(twice, tmp_path / "site-twice")
    assert site_once == site_twice, f"{kind}: the site counts {mover}'s inputs"
    with session(twice.database_url) as s:
        game = store.game_by_name(s, "g1")
        rows = store.inputs(s, game.id)
        doc = json.loads(json.dumps(build(s, game)))
    # Each player whose own orders were taken back is told which, privately (their lines); nobody else is.
    told = {tuple(e["visibility"]): e for e in doc["events"] if e["kind"] == "undo" and e["visibility"] != "public"}
    theirs: dict[str, list[list[str]]] = {}
    for r in rows:
        if r.seq in undone_twice and r.player:
            theirs.setdefault(r.player, []).append(json.loads(r.lines_json))
    assert {who for (who,) in told} == set(theirs), kind
    for who, lines in theirs.items():
        assert told[(who,)]["data"] == {"yours": lines}, (kind, who)
        said = b"\n".join(masked(m) for m in mail_twice[who]).decode(errors="replace")
        assert "These orders of yours no longer count" in said and lines[-1][0] in said, (kind, who)
    # Each player's whole mailbox, the undo's reports included, checks against their export (`pbem verify --mail`:
    # every "What happened" line an event they may see, every receipt's head listed at its number).
    everything = [p.read_bytes() for p in sorted(_sent(twice))]
    for who, address in PLAYERS:
        if who not in theirs and who not in observers:
            continue
        with session(twice.database_url) as s:
            mine = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"), as_player=who)))
        honest = verify_mail(mine, [raw for raw in everything if address.encode() in raw], who)
        assert honest.ok and honest.heads > 0, (kind, who, honest.problems)
    # The moderator's own tools keep the global numbers.
    (back,) = [r for r in listed(Home.of(twice), "g1") if r.kind == "undo"]
    assert back.back_to == min(undone_twice) - 1 and back.lines[0].startswith("mark:")


def test_a_marked_undo_verifies_once_the_seed_is_out_and_a_changed_mark_is_refused(tmp_path: Path) -> None:
    cfg, _, _, _, _ = _undone("dynasties", tmp_path / "home", 2)
    abandon(Home.of(cfg), "g1", T0 + timedelta(minutes=9))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    assert doc["seed"]
    v = verify(doc)
    assert v.ok, v.problem
    everything = [p.read_bytes() for p in sorted(_sent(cfg))]
    for who, address in PLAYERS:  # each report's tables are the replayed game's, the marked undo replayed too
        checked = verify_mail(doc, [raw for raw in everything if address.encode() in raw], who)
        assert checked.ok and checked.heads > 0, (who, checked.problems)
    for mark in ("mark:" + "0" * 32, "3"):  # another mark, or a number where a mark was recorded
        forged = json.loads(json.dumps(doc))
        next(o for o in forged["orders"] if o["kind"] == "undo")["lines"][0] = mark
        assert not verify(forged).ok, f"an undo input naming {mark} passed"


def test_an_undo_recorded_before_keeps_its_numbers_and_verifies_as_before() -> None:
    """The fixture was made by the pbem before this branch: its undo input names input 0 and its public event the
    inputs undone by their global numbers.  The replay of this pbem gives the same events (verify compares each,
    text and data), the chain and the salts check byte for byte, and Alice's partial export of the running game
    verifies alone and against the final record."""
    stored = json.loads(FIXTURE.read_text())
    final, alice = stored["final"], stored["alice"]
    (inp,) = [o for o in final["orders"] if o["kind"] == "undo"]
    (ev,) = [e for e in final["events"] if e["kind"] == "undo"]
    assert inp["lines"][0] == "0" and ev["data"]["undone"] == [1, 2, 3, 4] and "inputs 1 to 4" in ev["text"]
    v = verify(final)
    assert v.ok, v.problem
    assert any("reproduced exactly" in line for line in v.checked)
    w = verify(alice, partial=True)
    assert w.ok, w.problem
    e = earlier(final, alice)
    assert e.ok, e.problem
