"""The poll on the composition root with the in-memory transport: no Maildir, a real SQLite record.

`pbem.home.app.Home` holds the record's unit of work, the inbox, the sender, the clock and the
policy; `poll` reads the inbox, decides and writes each message, files it, and sends the outbox.
"""

from __future__ import annotations

from email import message_from_bytes

import pytest

from pbem.app import games
from pbem.app.poll import poll
from pbem.home.app import Home
from pbem.home.policy import Policy
from pbem.mail.transports.memory import MemoryInbox, MemorySender
from pbem.mail.transports.seam import TransportError
from pbem.record import store
from tests.conftest import CODES, order_mail, signed

DUO = [("Ann", "ann@players.test"), ("Ben", "ben@players.test")]


def test_a_poll_in_memory_sends_the_first_reports_then_answers_an_order_mail(home, clock) -> None:
    inbox, sender = MemoryInbox(), MemorySender()
    root = Home.of(home, inbox=inbox, sender=sender, clock=clock)
    assert root.policy == Policy.of(home) and root.policy.moderator_address == "moderator@pbem.test"
    games.create_game(Home.of(home), "italian-wars", "mem1", DUO, seed="in-memory", clock=clock, codes=CODES)

    first = poll(root)
    assert (first.read, first.sent) == (0, 2)
    assert sorted(s.recipients[0] for s in sender.sent) == ["ann@players.test", "ben@players.test"]

    with root.units() as s:
        loaded = store.load(s, store.game_by_name(s, "mem1"))
    req = next(r for r in loaded.engine.requests(loaded.state) if not r.answered)
    addr = dict(DUO)[req.player]
    inbox.put(order_mail(addr, "mem1", signed(req.player, req.legal[0])))
    inbox.put(order_mail("nobody@elsewhere.test", "mem1", "hello"))
    second = poll(root)
    assert (second.read, second.accepted, second.ignored) == (2, 1, 1)
    assert len(inbox.processed) == 1 and len(inbox.rejected) == 1 and not inbox.waiting, "each message filed"
    answers = [message_from_bytes(s.raw) for s in sender.sent[2:]]
    assert any(m["To"].endswith(f"<{addr}>") or m["To"] == addr for m in answers), "the sender is answered"
    assert all("[pbem mem1]" in m["Subject"] for m in answers)


def test_a_refused_send_stops_the_run_and_the_mail_goes_out_in_a_later_one(home, clock) -> None:
    inbox, sender = MemoryInbox(), MemorySender()
    sender.refuse("ben@players.test")
    games.create_game(Home.of(home), "italian-wars", "mem2", DUO, seed="in-memory", clock=clock, codes=CODES)
    with pytest.raises(TransportError, match="try again later"):
        poll(Home.of(home, inbox=inbox, sender=sender, clock=clock))
    assert ("ben@players.test",) not in [s.recipients for s in sender.sent]
    sender.refused.clear()
    clock.advance(hours=6)
    poll(Home.of(home, inbox=inbox, sender=sender, clock=clock))
    assert sorted(s.recipients for s in sender.sent) == [("ann@players.test",), ("ben@players.test",)]
