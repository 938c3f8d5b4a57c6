"""perf11 (issue 27): a reply's reading ahead and its stale-reply read, cheaper with the same answers.

* `pbem.app.ahead._warm_code` read every reply quoting a report whole (`extract`) to find a code to check ahead, because
  the report says "your secret player code": a check of a keyed hash costs microseconds where it is handled, so the
  message is read ahead only for a seat whose code is stored with PBKDF2 (the check worth warming).
* `pbem.record.lookups.state_at` built its SQLAlchemy statement for every reply answering an older report (two thirds of
  a sequential game's replies): now built once and run by `db.fetch`, with a0540ce's answer for every time.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, timedelta
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.app import ahead, games
from pbem.home.app import Home
from pbem.mail.inbound.message import parse
from pbem.record import lookups
from pbem.record.db import session
from pbem.record.models import Snapshot
from pbem.trust import codes
from tests.conftest import CODES, order_mail

PLAYERS = [("Alice", "alice@players.test"), ("Bob", "bob@players.test"), ("Carol", "carol@players.test")]
QUOTED = (
    "NO EVENT\n\nOn Mon, the moderator wrote:\n> Your secret player code is [redacted once sent].\n> Deadline: soon.\n"
)


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts `_warm_code` reads whole (`extract`), recorded."""
    read: list[str] = []
    real = ahead.extract

    def counted(text: str, *args: Any, **kwargs: Any) -> Any:
        read.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(ahead, "extract", counted)
    return read


def test_a_reply_from_a_keyed_seat_is_not_read_ahead_and_a_stretched_code_is_still_checked_ahead(
    home, clock, monkeypatch
) -> None:
    """A reply quoting its report (the word "code" in the quote) from a seat whose code is keyed: not read ahead (on
    a0540ce it was, whole, and nothing was checked).  A seat whose code was stored with PBKDF2 before the keyed hash:
    its CODE line is read and the derivation runs ahead, as before."""
    games.create_game(Home.of(home), "habsburg", "hh1", PLAYERS, seed="perf11", clock=clock, codes=CODES)
    read = _reads(monkeypatch)
    reply = parse(order_mail("Alice <alice@players.test>", "hh1", QUOTED), "moderator@pbem.test")
    before = codes.derivations
    ahead._warm_code(Home.of(home), reply)
    assert read == [], "a keyed seat's reply was read whole ahead of its handling"
    assert codes.derivations == before

    stretched = codes.hash_code(CODES["Bob"], salt="0123456789abcdef", rounds=1000)
    with sqlite3.connect(home.database_url.removeprefix("sqlite:///")) as con:
        con.execute("UPDATE seats SET code_hash = ? WHERE address = 'bob@players.test'", (stretched,))
    codes.forget_checks()
    mail = parse(order_mail("Bob <bob@players.test>", "hh1", f"CODE {CODES['Bob']}\n{QUOTED}"), "moderator@pbem.test")
    runs = codes.pbkdf2_runs
    ahead._warm_code(Home.of(home), mail)
    assert len(read) == 1 and codes.pbkdf2_runs == runs + 1, "a PBKDF2 code is no longer checked ahead"
    ahead._warm_code(Home.of(home), mail)
    assert codes.pbkdf2_runs == runs + 1, "checked once per seat and code"


def _state_then(s: Any, game_id: int, when: Any) -> dict[str, Any] | None:
    """a0540ce's `state_at`: the statement built for each call."""

    row = s.exec(
        select(Snapshot.state_json)
        .where(Snapshot.game_id == game_id, Snapshot.created_at <= when)
        .order_by(col(Snapshot.seq).desc())
        .limit(1)
    ).first()
    from pbem.record import kept_state

    return kept_state.loads(row)  # (the text read as walk12 stores it: led by its digest; the query is a0540ce's)


def test_the_state_a_stale_reply_is_read_against_is_a0540ces_at_every_time() -> None:
    """Every snapshot's time of the seeded Italian Wars game (two snapshots an hour), a microsecond before and after, naive and aware, before
    the first and after the last, and a game that is not there: the same state as a0540ce's statement."""
    from pbem.home import config as config_mod
    from tests.test_history_golden import seeded_home

    url = config_mod.load(seeded_home("italian-wars") / "pbem.toml").database_url  # a copy of its own
    with sqlite3.connect(url.removeprefix("sqlite:///")) as con:  # the demo's clock stood still: times apart, two alike
        con.execute(
            "UPDATE snapshots SET created_at = datetime('2026-01-05 12:00', (seq / 2) || ' hours') || '.000000'"
        )
    with session(url) as s:
        rows = s.exec(select(Snapshot.game_id, Snapshot.created_at)).all()
        assert len({t for _, t in rows}) > 5
        gids = [*sorted({g for g, _ in rows}), 10_000]
        tick = timedelta(microseconds=1)
        times = {t + d for _, t in rows for d in (-tick, timedelta(0), tick)}
        times |= {min(times) - timedelta(days=1), max(times) + timedelta(days=1)}
        times |= {t.replace(tzinfo=UTC) for t in list(times)[:40]}
        differ = [
            (g, t) for g in gids for t in sorted(times, key=str) if lookups.state_at(s, g, t) != _state_then(s, g, t)
        ]
    assert not differ, differ[:3]


PIECES = ("code", "CODE", "Code", "cOdE", "codes", "xcode", "_code", "code:", "code=", " ", "\t", "\n", ":", "=", "-",
          "K7QX-2MPD", "AB12", "abcd", "1234", "x", "é", "İ", "ß", "ﬁ", "code code", "K" * 70, ">", "[", "]")  # fmt: skip


def test_a_code_in_running_text_is_found_where_the_word_is_as_the_whole_search_finds_it() -> None:
    """`redact._running` tries the running-text pattern only where the word "code" starts: the same matches as the
    pattern tried at every character (a0540ce's `finditer`), on 3,000 generated texts: the word in every case, glued
    to a letter, an underscore or another word, a code after it of 3 to 70 characters, separators, and characters
    that lower to two (a dotted capital I) or fold otherwise."""
    import random

    from pbem.mail.inbound import redact

    rng = random.Random(27)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
        now = [(m.span(), m.group(1)) for m in redact._running(text)]
        assert now == [(m.span(), m.group(1)) for m in redact._SUBJECT_CODE.finditer(text)], repr(text)


def test_the_environment_reads_a_dicts_name_as_jinja_does() -> None:
    """`templates._Environment.getattr` reads a plain dict's key at once: the same answer as Jinja's `getattr` for
    every name a dict has as an attribute, a key of that name or not, a missing key, dict subclasses (Jinja's way),
    and objects that are no dict; a missing name is Jinja's undefined, which fails loudly."""
    from collections import OrderedDict, defaultdict

    from jinja2 import Environment, StrictUndefined

    from pbem.render import templates

    ours, jinjas = templates.env(), Environment(undefined=StrictUndefined)
    names = ["lines", "items", "keys", "get", "__class__", "__len__", "missing", "", "0"]
    objs: list[Any] = [
        {n: f"key {n}" for n in names[:-2]},
        {"lines": 1},
        {},
        OrderedDict(items=2, lines=3),
        defaultdict(list),
        "text",
        [1],
        None,
    ]
    for obj in objs:
        for name in names:
            got, want = ours.getattr(obj, name), jinjas.getattr(obj, name)
            if isinstance(want, StrictUndefined):
                assert isinstance(got, StrictUndefined), (obj, name)
            else:
                assert got == want, (obj, name)
    page = ours.from_string("{{ d.lines }} {{ d['items'] }} {{ d.items is defined }}")
    assert page.render(d={"lines": "L", "items": "I"}) == "L I True"


def test_the_seat_looked_up_ahead_is_the_one_sqlalchemy_reads() -> None:
    """`lookups.seat_code` (asked ahead for every reply from a seat) run by `db.fetch`: a0540ce's answer, through
    SQLAlchemy, for every seat of the seeded game, its address and game in capitals, an unknown address and game."""
    from pbem.home import config as config_mod
    from pbem.record.db import reading
    from pbem.record.models import Game, Seat
    from tests.test_history_golden import seeded_home

    url = config_mod.load(seeded_home("italian-wars") / "pbem.toml").database_url

    def then(game: str, address: str) -> tuple[int, str] | None:
        with reading(url) as conn:
            row = conn.execute(lookups._Q_SEAT_CODE, {"game": game.lower(), "address": address.lower()}).first()
        return (int(row[0]), str(row[1])) if row is not None and row[1] else None

    with session(url) as s:
        seats = s.exec(select(Game.name, Seat.address).join(Seat, col(Seat.game_id) == col(Game.id))).all()
    cases = [*seats, *((g.upper(), a.upper()) for g, a in seats), (seats[0][0], "nobody@x.test"), ("none", seats[0][1])]
    assert all(lookups.seat_code(url, g, a) == then(g, a) for g, a in cases)
    assert lookups.seat_code(url, *seats[0]) is not None
