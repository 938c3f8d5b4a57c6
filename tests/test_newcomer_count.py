"""A replaced seat's newcomer: their receipts count what their export lists (docs/security.md, "A replaced seat's
newcomer").

The newcomer reads the seat's record under its earlier names (its inputs, the events shown to it, its press: the
export and their first report always gave them), so their receipts (`X-Pbem-Record`, "Record #n") count those
entries too: each head a mail states is the export's entry at the number the mail states, and the count does not
depend on whether it was kept up to date by the appends or counted from the start in a new process.  Before, the
receipts counted only the newcomer's own name (6 where the export listed 15).
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from pbem.app.control import replace
from pbem.app.cron import run_poll
from pbem.history.export import build
from pbem.home.app import Home
from pbem.record import reader_view, store
from pbem.record.db import session
from pbem.trust.receipts import verify_mail
from tests.conftest import in_delivered_order
from tests.reliability import killpoints as kp
from tests.test_hidden_count import T0, _mail, play

RECORD = re.compile(rb"(?m)^X-Pbem-Record: (\d+)\s+([0-9a-f]{64})")


def _receipts(cfg: Any, address: str) -> tuple[list[bytes], list[tuple[int, str]]]:
    mails = [
        raw
        for p in in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))
        if address.encode() in (raw := p.read_bytes())
    ]
    return mails, [(int(n), h.decode()) for raw in mails for n, h in RECORD.findall(raw)]


def test_a_newcomers_receipts_count_the_entries_their_export_lists(tmp_path: Path) -> None:
    cfg, mover, _ = play("dynasties", tmp_path / "home", 2)  # the mover answered in secret and revised twice
    kp.deliver_in_order(cfg, [_mail(mover, "press", "PRESS TO Carol: a word in private")])
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=4))
    replace(Home.of(cfg), "g1", mover, ("Dora", "dora@example.test"), T0 + timedelta(minutes=5))
    replace(Home.of(cfg), "g1", "Dora", ("Eve", "eve@example.test"), T0 + timedelta(minutes=6))
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=7))
    for who, address in (("Eve", "eve@example.test"), ("Dora", "dora@example.test")):
        mails, receipts = _receipts(cfg, address)
        assert receipts, f"{who} got no receipt"
        with session(cfg.database_url) as s:
            game = store.game_by_name(s, "g1")
            doc = json.loads(json.dumps(build(s, game, as_player=who)))
        at = {r["hash"]: r["seq"] for r in doc["orders"] + doc["events"]}
        for n, head in receipts:
            assert at.get(head) == n, f"{who}'s receipt #{n} names the export's entry {at.get(head)}"
        assert any(r.get("player") == mover for r in doc["orders"]), "the seat's inputs under its first name listed"
        if who == "Eve":  # the seat's current player: the newest receipt counts every listed entry
            assert receipts[-1][0] == doc["chain"]["entries"], (receipts[-1], doc["chain"]["entries"])
        reader_view.forget()  # counted from the start, as a new process without the snapshot's counts does
        with session(cfg.database_url) as s:
            again = store.receipts_of(s, store.load(s, game), [who], [])[who]
        assert again == (doc["chain"]["entries"], doc["chain"]["head"]), (who, again, doc["chain"])
        checked = verify_mail(doc, mails, who)
        assert checked.ok and checked.heads == len(receipts), (who, checked.problems)
