"""players30, part A: the export's DKIM check learns a player's footer from their other signed mails
(`pbem.trust.vouched._footprints`), tested with real DKIM-signed mails.

players29 taught the intake a footer the player signs every mail with (`pbem.app.footprints`) and `pbem verify`'s DKIM
check the same lesson from the export's evidence: an input that applied a signed mail's lines without that footer
is vouched for, the footer noted, where it would be "SUBSTITUTED".  Only `pbem verify --sent` was tested.  Here Alice's
provider signs both her mails (dkimpy, the key served by a stubbed DNS function): a HELP mail with her company's
footer under her sign-off (or right under HELP: `tests/test_replies30_leftovers.py`, item 1), then an order with the
same footer and no sign-off, which the intake applies without it.

Generated: the honest export and four edits of it (`EDITS`), each checked by `vouched.check`.  Right: the honest one
passes with the footer noted; without the HELP mail's evidence, or with that evidence's body cut of the footer (its
signature then fails), the footer is not learnt and the order input is named; an input whose lines were replaced by
another legal order is named SUBSTITUTED whatever the footers; a footer learnt from another player's mail never
counts.  On b1f92b21 the 5 cases after the HELP mail with a sign-off are right (the mechanism held, untested) and
the 5 after a bare HELP wrong (that mail was refused, so nothing was learnt, and the order was refused too: no input);
now all 10 are.  Two games, about 2 s each.
"""

from __future__ import annotations

import base64
import copy
import json
from types import SimpleNamespace
from typing import Any

import dkim as dkimpy
import pytest

from pbem.history.export import build
from pbem.record import store
from pbem.record.db import session
from pbem.trust import dkim, vouched
from tests.conftest import deliver, order_mail, sent_mail
from tests.test_dkim_game import PEM, _dns
from tests.test_moderator import asked, new_game, run_poll

FOOTER = "Play Corp Ltd. 2027"
HEADS = [b"from", b"to", b"subject", b"message-id", b"date"]


def _signed(raw: bytes) -> bytes:
    return dkimpy.sign(raw, b"s1", b"players.example", PEM, include_headers=HEADS) + raw


@pytest.fixture(params=["sign-off", "bare"])
def game(request, home, clock, monkeypatch) -> dict[str, Any]:
    monkeypatch.setattr(dkim, "resolver", _dns)
    monkeypatch.setattr(dkim, "_cache", {})
    monkeypatch.setattr(dkimpy, "time", SimpleNamespace(time=lambda: clock.now.timestamp()))
    players = [("Alice", "alice@players.example"), ("Bob", "bob@players.example"), ("Carol", "carol@players.example")]
    name = new_game(home, clock, kind="dynasties", name="dy1", players=players)
    run_poll(home, clock)
    seen: set[str] = set()

    def reply(body: str) -> bytes:  # a reply to pbem's newest mail to Alice: no code, so its body is kept
        mine = [m for m in sent_mail(home, seen) if "alice" in str(m["To"])]
        last = mine[-1] if mine else reply.last  # type: ignore[attr-defined]
        reply.last = last  # type: ignore[attr-defined]
        raw = order_mail("Alice <alice@players.example>", name, body, subject=f"Re: {last['Subject']}",
                         In_Reply_To=str(last["Message-ID"]), References=str(last["Message-ID"]))  # fmt: skip
        return _signed(raw)

    above = "Cheers,\nAlice\n" if request.param == "sign-off" else ""  # "bare": HELP, the footer under it (item 1)
    deliver(home, reply(f"HELP\n\n{above}{FOOTER}"))
    run_poll(home, clock)
    requests, _ = asked(home, name)
    legal = next(r for r in requests if r.player == "Alice").legal
    deliver(home, reply(f"{legal[0]}\n\n{FOOTER}"))
    run_poll(home, clock)
    with session(home.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, name))))
    order = next(o for o in doc["orders"] if o["player"] == "Alice" and o["kind"] == "orders" and o["message_id"])
    return {"doc": doc, "order": order, "legal": legal}


def _help_evidence(doc: dict[str, Any], order: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in doc["evidence"] if e["message_id"] != order["message_id"] and e.get("body"))


def _without_help(doc: dict[str, Any], order: dict[str, Any]) -> None:
    doc["evidence"].remove(_help_evidence(doc, order))


def _help_cut(doc: dict[str, Any], order: dict[str, Any]) -> None:
    e = _help_evidence(doc, order)
    e["body"] = base64.b64encode(base64.b64decode(e["body"]).replace(FOOTER.encode(), b"")).decode()


def _substituted(doc: dict[str, Any], order: dict[str, Any], legal: list[str]) -> None:
    o = next(o for o in doc["orders"] if o["seq"] == order["seq"])
    o["lines"] = [legal[1]]


def _help_of_bob(doc: dict[str, Any], order: dict[str, Any]) -> None:
    mid = _help_evidence(doc, order)["message_id"]
    for m in doc["messages"]:
        if vouched._mid(m.get("message_id")) == vouched._mid(mid):
            m["player"] = "Bob"


EDITS = ("honest", "without-help", "help-cut", "substituted", "help-of-bob")


def test_the_exports_dkim_check_learns_a_footer_only_from_the_players_own_signed_mails(game) -> None:
    doc, order, legal = game["doc"], game["order"], game["legal"]
    assert order["lines"] == [legal[0]], order  # the intake applied the order without the footer (players29)
    where = f"input {order['seq']} (Alice)"
    failures = []
    for edit in EDITS:
        d = copy.deepcopy(doc)
        if edit == "without-help":
            _without_help(d, order)
        elif edit == "help-cut":
            _help_cut(d, order)
        elif edit == "substituted":
            _substituted(d, order, legal)
        elif edit == "help-of-bob":
            _help_of_bob(d, order)
        v = vouched.check(d)
        named = [f for f in v.failures if f.startswith(where)]
        noted = any(n.startswith(where) and FOOTER in n for n in v.notes)
        if edit == "honest":
            ok = not v.failures and noted and f"{where}: dkim: pass d=players.example" in v.lines
        else:
            ok = bool(named) and not noted and (edit != "substituted" or "SUBSTITUTED" in named[0])
        if not ok:
            failures.append(f"{edit}: failures {v.failures}, notes {v.notes}")
    assert not failures, "\n".join(failures)
