"""walk8's L3: what a game queued and no poll sent yet never goes out once the game is abandoned; its end notice does.

`pbem game new ...` then `pbem game abandon ...` before any poll: the next poll mailed every player the "Turn 1"
report (or the invitation to JOIN) of the abandoned game, beside the notice that it was abandoned.  Now the abandon
marks the game's queued mail of its flow withdrawn (`pbem.record.outbox.withdraw`: reports, STATUS answers,
reminders and notices; an acknowledgement, a press, the moderator's own mail still go out), in the transaction that
queues the end notice.

The class: after an abandon, a player gets only the notice of the end.  The generator: each game kind, with and
without the join step, abandoned at three moments where mail waits unsent (after `game new`; after the first poll
and a moderator's `extend`, whose notices wait; after the first poll and a `replace`, whose newcomer's report waits):
24 cases, 24 sent other mail after the abandon on c83d8ea7, 0 now.  `PBEM_WALK8_FULL=1` runs them all; the suite
runs one kind.  A pause withdraws nothing: the mail queued before it goes out before the pause notice, and no
reminder or deadline mail follows while the game is paused (the pause column: 8 cases, each kind at two moments, 0 failing before
and after).
"""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

from pbem.app import control, games
from pbem.app import poll as polling
from pbem.home.app import Home
from pbem.mail.transports.maildir import MaildirInbox, MaildirSender
from tests.conftest import CODES, sent_mail

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
KINDS = ["habsburg", "italian-wars", "dynasties", "sixteen-thirty"]
SAMPLE = KINDS if os.environ.get("PBEM_WALK8_FULL") else ["dynasties"]
MOMENTS = ["after game new", "extend waiting", "replace waiting"]


def _poll(cfg, clock):
    home = Home.of(cfg, inbox=MaildirInbox(cfg.maildir_path), sender=MaildirSender(cfg.maildir_path), clock=clock)
    return polling.poll(home)


def _players(kind: str) -> list[tuple[str, str]]:
    return PLAYERS[:2] if kind == "italian-wars" else PLAYERS


def _made(cfg, clock, kind: str, join: bool, moment: str) -> set[str]:
    """The game at `moment`, with mail queued and not sent; the keys of the mail sent before."""
    seen: set[str] = set()
    table = games.Table(join=join)
    games.create_game(Home.of(cfg, clock=clock), kind, "g1", _players(kind), seed="walk8", clock=clock, codes=CODES,
                      table=table)  # fmt: skip
    if moment == "after game new":
        return seen
    _poll(cfg, clock)
    sent_mail(cfg, seen)
    clock.advance(minutes=5)
    if moment == "extend waiting":
        control.extend(Home.of(cfg, clock=clock), "g1", timedelta(days=1), clock.now)
    else:
        control.replace(Home.of(cfg, clock=clock), "g1", "Bob", ("Erin", "erin@players.test"), clock.now)
    return seen


@pytest.mark.parametrize("join", [False, True], ids=["dealt", "join step"])
@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("kind", SAMPLE)
def test_an_abandoned_games_waiting_mail_never_goes_out_but_its_end_notice(home, clock, kind, moment, join) -> None:
    seen = _made(home, clock, kind, join, moment)
    control.abandon(Home.of(home, clock=clock), "g1", clock.now)
    for _ in range(3):  # and in the days after: nothing more
        _poll(home, clock)
        clock.advance(days=3)
    after = sent_mail(home, seen)
    subjects = [str(m["Subject"]) for m in after]
    assert subjects and all("abandoned the game" in s for s in subjects), subjects
    told = sorted(m["To"].addresses[0].addr_spec for m in after)
    assert len(told) == len(set(told)), told  # once each


@pytest.mark.parametrize("moment", MOMENTS[:2])
@pytest.mark.parametrize("kind", SAMPLE)
def test_a_paused_games_waiting_mail_goes_out_before_the_pause_notice_and_nothing_while_paused(
    home, clock, kind, moment
) -> None:
    seen = _made(home, clock, kind, False, moment)
    control.pause(Home.of(home, clock=clock), "g1", clock.now)
    _poll(home, clock)
    first = [str(m["Subject"]) for m in sent_mail(home, seen)]
    paused = [i for i, s in enumerate(first) if "paused the game" in s]
    assert paused and min(paused) == len(first) - len(paused), first  # the notices last
    for _ in range(4):  # days past every deadline and reminder: nothing while paused but, a week after the pause,
        clock.advance(days=3)  # the moderator's reminder that the game is paused (months4)
        _poll(home, clock)
    later = [(m["To"].addresses[0].addr_spec, str(m["Subject"])) for m in sent_mail(home, seen)]
    assert later == [("moderator@pbem.test", "[pbem g1] paused for 9 days")], later
