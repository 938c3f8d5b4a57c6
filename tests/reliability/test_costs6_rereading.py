"""`pbem verify --mail` works out a refusal's reasons again in time linear in the refusals (costs6).

Each acknowledgement of a refused message is compared with pbem's reading of its lines at the states its head allows:
the head's, and each after another player's entry hidden from the reader up to the reader's next visible one (a
window as long as that run).  The reading went through the window from its head and stopped at the first state
that matched: an acknowledgement that matched none (a moderator's made-up reason, or mail of a pbem that words a
refusal otherwise) read every state of its window, so a player who sent n refused messages while another revised
his hidden answer n times cost n times n readings (60 of each: 2.8 s, 15 times 15 of each).  Now the state the export's
order of messages says the message met is read first (an honest refusal: one reading), and at most
`pbem.trust.refused.STATES` states a window; a refusal none of them matches is named where that order placed it, else
set aside and told.

The generator: a Dynasties game played by the poll in which Bob answers, then revises his hidden tribute 2n times
between Alice's 2n refused messages (every one of them in one window: Alice sees none of it); at n and 4n, the
readings `pbem.app.rereading.refused` is asked for and the CPU time of the verification, honest and with every
refusal's "Still awaited from" changed.  `STATES` is set to 4 so that both sizes pass it.  Alice asks STATUS after
each refused message too: the reports answering it share one window as well (`pbem.trust.shown`).
"""

from __future__ import annotations

import functools
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.trust import refused as refused_mod
from tests.growth import growth

N = 3
MAX_GROWTH = 8.0  # readings or time at 4n over n: linear is 4, reading the window for each refusal 16
CAP = 4


def _game(root: Path, n: int) -> tuple[dict[str, Any], list[bytes]]:
    from pbem.app import games, views
    from pbem.app.control import abandon
    from pbem.app.cron import run_poll
    from pbem.history.export import build
    from pbem.home.app import Home
    from pbem.record import store
    from pbem.record.db import session
    from tests.conftest import CODES, in_delivered_order
    from tests.reliability import killpoints as kp
    from tests.test_hidden_count import PLAYERS, T0, _mail

    cfg = kp.make_home(root)
    games.create_game(Home.of(cfg), "dynasties", "g1", PLAYERS, seed="rereading-costs-0123456789abcdef", codes=CODES,
                      clock=lambda: T0)  # fmt: skip
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=1))
    with session(cfg.database_url) as s:
        loaded = store.load(s, store.game_by_name(s, "g1"))
        asked = {r.player: r for r in views.engine(loaded).requests(loaded.state) if not r.answered and r.legal}
    bob = list(asked["Bob"].legal)
    mails = [_mail("Bob", "b", bob[0])]
    for i in range(2 * n):
        mails += [_mail("Bob", f"b{i}", bob[(i + 1) % 2]), _mail("Alice", f"a{i}", f"TRIBUTE Nothing {i}")]
        mails.append(_mail("Alice", f"s{i}", "STATUS"))  # answered with a report
    kp.deliver_in_order(cfg, mails)
    run_poll(cfg, clock=lambda: T0 + timedelta(minutes=2))
    abandon(Home.of(cfg), "g1", T0 + timedelta(minutes=3))
    with session(cfg.database_url) as s:
        doc = json.loads(json.dumps(build(s, store.game_by_name(s, "g1"))))
    sent = in_delivered_order((Path(cfg.maildir_path) / "sent").glob("*/*"))
    return doc, [raw for p in sent if b"alice@" in (raw := p.read_bytes())]


@pytest.fixture(scope="module")
def boxes(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[dict[str, Any], list[bytes]]]:
    return {n: _game(tmp_path_factory.mktemp(f"rereading-{n}") / "home", n) for n in (N, 4 * N)}


def _verify(doc: dict[str, Any], mails: list[bytes]) -> tuple[Any, int]:
    """The check and the readings of refused lines it asked for (its time: `tests.growth` over this)."""
    from pbem.app.rereading import refused
    from pbem.trust.receipts import verify_mail

    asked = [0]

    def counted(*args: Any) -> tuple[str, str]:
        asked[0] += bool(args[3])  # (a status check reads no lines)
        return refused(*args)

    c = verify_mail(doc, mails, "Alice", counted)
    return c, asked[0]


def _noted(c: Any) -> list[str]:
    """The check's notes but the one every mailbox checked without the Sent folder gets (what answers quote of the
    player's own mail is not compared: tests/test_fairness8.py)."""
    return [x for x in c.notes if "were not compared with what you sent" not in x]


def _forged(mails: list[bytes]) -> list[bytes]:
    return [m.replace(b"Still awaited from: ", b"Still awaited from: Zed, ") for m in mails]


def test_honest_refusals_are_read_once_each(boxes: Any, monkeypatch: Any) -> None:
    """Every honest refusal matches at the state the order of messages gives: one reading each (two forms of the
    state at most), and the mailbox passes with every refusal worked out again."""
    monkeypatch.setattr(refused_mod, "STATES", CAP, raising=False)
    from pbem.trust.receipts import lines

    for doc, mails in boxes.values():
        refusals = sum(b"NOT applied" in m for m in mails)
        c, readings = _verify(doc, mails)
        assert c.ok and not _noted(c), lines(c)
        assert any(f"reasons {refusals} acknowledgements gave" in x for x in c.checked), lines(c)
        assert readings <= 2 * refusals, (readings, refusals)


def test_refusals_none_of_whose_states_match_cost_readings_linear_in_them(boxes: Any, monkeypatch: Any) -> None:
    """Every refusal made to say someone else is awaited: each is named, and the readings and the time grow as the
    refusals do (4n over n at most `MAX_GROWTH`), not as the refusals times their windows."""
    monkeypatch.setattr(refused_mod, "STATES", CAP, raising=False)
    from pbem.trust.receipts import lines

    got = {}
    forged = {n: (doc, _forged(mails)) for n, (doc, mails) in boxes.items()}
    for n, (doc, mails) in forged.items():
        c, got[n] = _verify(doc, mails)
        refusals = sum(b"NOT applied" in m for m in mails)
        named = [p for p in c.problems if "the refusal you were shown is not pbem's" in p]
        assert len(named) == refusals == 2 * n, lines(c)
    g = growth(lambda k: functools.partial(_verify, *forged[k]), N, bound=MAX_GROWTH)
    assert got[4 * N] / got[N] <= MAX_GROWTH and g.ratio <= MAX_GROWTH, (got, str(g))


def test_without_the_order_of_messages_a_long_window_is_set_aside_and_told(boxes: Any, monkeypatch: Any) -> None:
    """An export whose order of messages places no refusal (here: its messages taken out) reads `STATES` states of a
    window from its head, then reads on from one budget for the mailbox of as many states as the record has inputs:
    honest refusals still pass (they match at its head); the changed ones are named while the budget lasts, and the
    rest set aside with a note naming the mail and the states its window holds (tenth round: every one was set
    aside, none named: 24 of 24 on cc9d072).  The readings stay linear: `STATES` a refusal and the budget."""
    monkeypatch.setattr(refused_mod, "STATES", CAP, raising=False)
    from pbem.trust.receipts import lines

    doc, mails = boxes[4 * N]
    doc = {**doc, "messages": []}
    refusals = sum(b"NOT applied" in m for m in mails)
    c, _ = _verify(doc, mails)
    assert c.ok and not _noted(c), lines(c)
    c, readings = _verify(doc, _forged(mails))
    aside = [x for x in c.notes if f"any of the first {CAP} of the " in x]
    named = [p for p in c.problems if "the refusal you were shown" in p]
    assert named and len(named) + len(aside) == refusals, lines(c)
    assert readings <= 2 * (CAP * refusals + len(doc["orders"])), (lines(c), readings)


def test_reports_that_share_a_window_are_compared_once_with_each_run_of_alike_states(
    boxes: Any, monkeypatch: Any
) -> None:
    """Reports have windows too (`pbem.trust.shown`): each answer to Alice's STATUS was compared with every state of
    its window, every one of which shows her the same (Bob's revisions are hidden), its prose worked out again for
    each (n answers times n states).  Now each run of states that show the same is compared once: the prose
    worked out for each report grows as the reports do."""
    from pbem.trust import prose
    from pbem.trust.receipts import lines

    worked = [0]
    expected = prose.expected

    def counted(*args: Any, **kwargs: Any) -> Any:
        worked[0] += 1
        return expected(*args, **kwargs)

    monkeypatch.setattr(prose, "expected", counted)
    got = {}
    for n, (doc, mails) in boxes.items():
        worked[0] = 0
        c, _ = _verify(doc, mails)
        tables = [x for x in c.checked if x.startswith("the tables of ")]
        assert c.ok and tables and int(tables[0].split()[3]) > 2 * n, lines(c)  # (each answer, and the first)
        got[n] = worked[0]
    g = growth(lambda k: functools.partial(_verify, *boxes[k]), N, bound=MAX_GROWTH)
    assert got[4 * N] / got[N] <= MAX_GROWTH and g.ratio <= MAX_GROWTH, (got, str(g))
