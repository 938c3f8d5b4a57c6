"""Twentieth round of the fairness red team: the gaps the eighteenth left, probed with real homes and real polls.

Each probe plays a Habsburg game on the Maildir transport with `cron.run_poll` (the clock checks, the poll marks), and
the players' mail as their provider keeps it: each mail the home sends is stamped by the player's provider when it
arrives (`Provider`: the topmost `Received` field, as a provider prepends it), and a mail the moderator holds back
arrives only when he lets it go.

1. `--trust-clock`, not chained: the clock set back to date a late order on time.  Alice's PASS arrives two hours
   after her deadline; the moderator, whose last poll answered Carol's STATUS at 09:00, sets the clock to 08:00 and
   polls with `--trust-clock` (refused without it).  The export verifies (its times go forward) and every mailbox
   verified with no word on e5c877a (3 of 3; without the provider's stamps, 3 of 3 too).  Now Carol's mail names her
   STATUS answer, dated an hour after the entry that follows it (`arrived.rewound`), and Alice's and Bob's name the
   mails dated 08:00 that reached them at 14:00 (`arrived.late`).  Set back without the flag (no poll since the
   time he goes back to), nothing but the providers' stamps can tell: Alice's and Bob's mail name it, Carol's, with
   no mail of that poll, cannot.
2. A late report: Bob's report of his turn held back 30 hours and sent (its Date the time pbem wrote it).  His mail
   verified with no word on e5c877a (1 of 1); now it is a WARNING naming the hours.  The same game with the mail let
   through at once gives none.
3. A report withheld that lists no event: Alice's report asking her, and her reminder, taken out of the outbox (so
   pbem's next report to her lists every event since her last one, and `told.untold` finds each told) and never
   sent; her defaults applied at the deadline.  Her mail verified with no word on e5c877a; now a WARNING names the
   defaults applied in a step none of her mails told her of (`due.unasked`).  Generator: every step of
   `_deadline_game` whose defaults fell on a player, its mails to that player stating its deadline withheld: see
   `test_every_defaulted_step_withheld_is_named`.
4. A fork no player was mailed from: see docs/security.md (twentieth round).  Draws come from the seed and the
   sequence of inputs, never the time: the probe re-polls Alice's mail an hour later, and an hour later again, and
   every event is the same; what a fork can change is which inputs come, and in what order.
"""

from __future__ import annotations

import mailbox
from datetime import datetime, timedelta
from email import message_from_bytes

import pytest
from sqlalchemy import text

from pbem.app import control, cron
from pbem.home.app import Home
from pbem.mail.transports.seam import TransportError
from pbem.record.db import session
from pbem.trust.receipts import lines, verify_mail
from pbem.trust.verify import check
from tests.conftest import deliver, order_mail, signed
from tests.test_fairness16 import _export
from tests.test_moderator import PLAYERS, new_game

pytestmark = pytest.mark.xdist_group("fairness")

LATE = "reached your provider at"
REWOUND = "the record's clock was set back"
UNASKED = "none of your mails before it"


class Provider:
    """The players' providers: each mail the home sent (its `sent` Maildir) arrives when `arrive` is called, stamped
    with a `Received` field of that time, unless `hold` keeps it back for a later call."""

    def __init__(self, home) -> None:
        self.home = home
        self.stamped: dict[str, tuple[datetime, bytes]] = {}

    def arrive(self, now: datetime, hold=lambda raw: False) -> None:
        sent = mailbox.Maildir(str(self.home.maildir_path / "sent"), factory=None, create=False)
        for key in sent.iterkeys():
            if key not in self.stamped and not hold(raw := sent.get_bytes(key)):
                self.stamped[key] = (now, raw)

    def box(self, address: str, stamps: bool = True) -> list[bytes]:
        """The mail `address` holds: with the provider's `Received` field on top, or (`stamps` False) as sent."""
        out = []
        for when, raw in sorted(self.stamped.values(), key=lambda x: x[0]):
            if (message_from_bytes(raw)["To"] or "").endswith(f"<{address}>"):
                stamp = f"Received: from pbem.test by mx.players.test; {when:%a, %d %b %Y %H:%M:%S +0000}\r\n"
                out.append(stamp.encode() + raw if stamps else raw)
        return out


def _poll(home, clock, provider: Provider, hours: float = 0, **kw) -> None:
    clock.advance(hours=hours)
    cron.run_poll(home, clock=clock, **kw)
    provider.arrive(clock.now)


def _warned(c, words: str) -> list[str]:
    return [n for n in c.notes if words in n]


def _played(home, clock, provider, name) -> tuple[dict, dict[str, list[bytes]]]:
    for _ in range(3):
        _poll(home, clock, provider, 6)
    control.abandon(Home.of(home), name, clock.now)
    doc = _export(home, name)
    v = check(doc)
    assert v.ok, v.problem
    return doc, {p: provider.box(address) for p, address in PLAYERS}


def _set_back(home, clock) -> tuple[dict, dict[str, list[bytes]]]:
    """Probe 1's game: the poll before Alice's deadline (Wed 12:00) answers Carol's STATUS at 09:00; Alice's PASS comes
    at 14:00, and the moderator polls at 08:00 with `--trust-clock` (refused without it); the mail of that poll
    reaches the players at 14:05."""
    name = new_game(home, clock)
    provider = Provider(home)
    _poll(home, clock, provider)
    for _ in range(7):  # to Wed 06:00
        _poll(home, clock, provider, 6)
    deliver(home, order_mail("Carol <carol@players.test>", name, signed("Carol", "STATUS")))
    _poll(home, clock, provider, 3)  # 09:00: Carol's answer states the deadline, 12:00
    clock.advance(hours=5)  # 14:00: Alice's PASS, two hours late; no poll since 09:00
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "PASS")))
    arrives = clock.now + timedelta(minutes=5)
    clock.now -= timedelta(hours=6)  # 08:00
    with pytest.raises(TransportError, match="behind the latest time this record has seen"):
        cron.run_poll(home, clock=clock)
    cron.run_poll(home, clock=clock, trust_clock=True)
    provider.arrive(arrives)
    clock.now = arrives
    doc, boxes = _played(home, clock, provider, name)
    assert not any(o["kind"] == "deadline" for o in doc["orders"][:3]), "Alice's PASS was taken as on time"
    return doc, boxes


def test_the_clock_set_back_with_trust_clock_to_date_a_late_order_on_time_is_named(home, clock) -> None:
    """Probe 1: 3 of 3 mailboxes verified silently on e5c877a.  Carol's names her STATUS answer (dated an hour after
    the entry after it), Alice's and Bob's the mails dated 08:00 that reached them at 14:05."""
    doc, boxes = _set_back(home, clock)
    for player, box in boxes.items():
        c = verify_mail(doc, box, player)
        assert c.ok, (player, lines(c))
        if player == "Carol":
            (w,) = _warned(c, REWOUND)
            assert "1.0 hours after entry #" in w and "Alice" in w, w
        else:
            assert _warned(c, LATE), (player, lines(c))
            assert all("6.1 hours after its Date" in w for w in _warned(c, LATE)), _warned(c, LATE)


def _held(home, clock, hours: int = 30) -> tuple[dict, dict[str, list[bytes]]]:
    """Probe 2's game: Alice passes; Bob's report of his turn, written then, reaches him `hours` later."""
    name = new_game(home, clock)
    provider = Provider(home)
    _poll(home, clock, provider)
    deliver(home, order_mail("Alice <alice@players.test>", name, signed("Alice", "PASS")))

    def bobs_turn(raw: bytes) -> bool:
        return b"bob@players.test" in raw.split(b"\n\n", 1)[0] and b"Bob to play" in raw

    clock.advance(hours=1)
    cron.run_poll(home, clock=clock)
    provider.arrive(clock.now, hold=bobs_turn)
    clock.advance(hours=hours)
    provider.arrive(clock.now)
    return _played(home, clock, provider, name)


def test_a_report_held_back_thirty_hours_is_named_and_one_sent_at_once_is_not(home, clock) -> None:
    """Probe 2 (1 of 1 verified silently on e5c877a): Bob's report of his turn reaches him 30 hours after its Date.
    Let through at once (the same game's other mail), nothing is said."""
    doc, boxes = _held(home, clock)
    c = verify_mail(doc, boxes["Bob"], "Bob")
    (w,) = _warned(c, LATE)
    assert c.ok and "30.0 hours after its Date" in w and "Bob to play" in w, lines(c)
    for player in ("Alice", "Carol"):
        c = verify_mail(doc, boxes[player], player)
        assert c.ok and not _warned(c, LATE) and not _warned(c, REWOUND), (player, lines(c))


def test_arrival_reads_the_topmost_received_field_only() -> None:
    """The provider's own field is the topmost; one the mail came with below it, a `X-Received` and a malformed date
    are not read as it."""
    from pbem.trust import arrived

    body = b"Date: Mon, 05 Jan 2026 12:00:00 +0000\r\nSubject: x\r\n\r\nReceived: body; Tue, 06 Jan 2026 12:00:00 +0000\r\n"
    top = b"Received: from a\r\n by b; Mon, 05 Jan 2026 13:30:00 +0000\r\nReceived: from c; Sun, 04 Jan 2026 00:00:00 +0000\r\n"
    assert arrived.arrival(top + body) == datetime.fromisoformat("2026-01-05T13:30:00+00:00")
    assert arrived.arrival(b"X-Received: x; Mon, 05 Jan 2026 13:30:00 +0000\r\n" + body) is None
    assert arrived.arrival(b"Received: from a; not a date\r\n" + body) is None
    assert arrived.arrival(body) is None


def _withheld_game(home, clock, hide: bool) -> tuple[dict, dict[str, list[bytes]]]:
    """Alice's turn opens; with `hide`, the moderator deletes her report and her reminder from the outbox before they
    are sent (pbem's next report to her then lists every event since the one before, none untold); her defaults fall
    at the deadline."""
    name = new_game(home, clock)
    provider = Provider(home)

    def withhold() -> None:
        if not hide:
            return
        with session(home.database_url) as s:
            s.connection().execute(text("DELETE FROM outbox WHERE to_addr = 'alice@players.test'"))
            s.commit()
        sent = mailbox.Maildir(str(home.maildir_path / "sent"), factory=None, create=False)
        for key in list(sent.iterkeys()):
            if b"alice@players.test" in sent.get_bytes(key).split(b"\n\n", 1)[0]:
                sent.remove(key)

    cron.run_poll(home, clock=clock)
    withhold()
    provider.arrive(clock.now)
    for _ in range(8):  # to Wed 12:00, her deadline
        clock.advance(hours=6)
        cron.run_poll(home, clock=clock)
        if clock.now < datetime.fromisoformat("2026-01-07T12:00:00+00:00"):
            withhold()
        provider.arrive(clock.now)
    doc, boxes = _played(home, clock, provider, name)
    assert any(o["kind"] == "deadline" for o in doc["orders"]), "Alice's defaults were applied"
    return doc, boxes


@pytest.mark.parametrize("hide", [True, False], ids=["withheld", "honest"])
def test_a_report_withheld_with_no_event_untold_is_named_by_the_defaults_it_left(home, clock, hide) -> None:
    """Probe 3 (1 of 1 verified silently on e5c877a): Alice's report and reminder of her turn deleted from the outbox.
    Every event is told by her next report, so `told.untold` is silent; her defaults fell in a step none of her mails
    stated: a WARNING now.  Honest: none."""
    doc, boxes = _withheld_game(home, clock, hide)
    c = verify_mail(doc, boxes["Alice"], "Alice")
    assert c.ok, lines(c)
    assert not [n for n in c.notes if "listed by none of your reports" in n], lines(c)
    warned = _warned(c, UNASKED)
    assert len(warned) == (1 if hide else 0), lines(c)
    if hide:
        assert "were applied at 2026-01-07 12:00 UTC for Alice" in warned[0], warned
    for player in ("Bob", "Carol"):
        other = verify_mail(doc, boxes[player], player)
        assert other.ok and not _warned(other, UNASKED), (player, lines(other))
